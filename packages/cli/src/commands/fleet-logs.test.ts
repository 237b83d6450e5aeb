import { describe, expect, it } from "vitest";
import { fleetSettings, useFleetCli } from "../test-support/fleet-cli.js";

const cli = useFleetCli();
const managerUrl = ["--manager-url", "http://203.0.113.5:7320"];

/** A fleet with one deployed instance whose agent has shipped a few lines (as the manager stores them). */
async function instanceWithLogs(lines: { stream: string; at: number; text: string }[]): Promise<string> {
  await cli.run(["serve", "--db", cli.db, "--listen", "127.0.0.1:0", ...fleetSettings]);
  const deploy = await cli.run(["deploy", "--db", cli.db, "--offer", "1002", ...managerUrl]);
  const id = /^(i-[0-9a-f]{8}) /.exec(deploy.stdout)?.[1] as string;
  expect(id).toBeDefined();
  const { openFleetStore } = await import("@cuzkit/fleet");
  const store = openFleetStore({ path: cli.db });
  try {
    await store.appendLogLines(id, lines);
  } finally {
    await store.close();
  }
  return id;
}

const at = Date.UTC(2026, 11, 3, 7, 30, 0);

describe("cuzkit fleet logs", () => {
  it("prints the stored tail oldest first with time and stream, one stream with --stream, JSON with --json", async () => {
    const id = await instanceWithLogs([
      { stream: "agent", at, text: "info agent registered" },
      { stream: "daemon", at: at + 1_000, text: "loading parameters" },
      { stream: "daemon", at: at + 2_000, text: "fatal: CUDA out of memory" },
      { stream: "agent", at: at + 3_000, text: 'error agent step failed {"code":"DAEMON_START_FAILED"}' },
    ]);
    const text = await cli.run(["logs", "--db", cli.db, id]);
    expect(text.error).toBeUndefined();
    expect(text.stdout).toBe(
      [
        "2026-12-03T07:30:00Z agent  info agent registered",
        "2026-12-03T07:30:01Z daemon loading parameters",
        "2026-12-03T07:30:02Z daemon fatal: CUDA out of memory",
        '2026-12-03T07:30:03Z agent  error agent step failed {"code":"DAEMON_START_FAILED"}',
        "",
      ].join("\n"),
    );
    const daemonOnly = await cli.run(["logs", "--db", cli.db, id, "--stream", "daemon", "--lines", "3"]);
    expect(daemonOnly.stdout.trim().split("\n")).toEqual([
      "2026-12-03T07:30:01Z daemon loading parameters",
      "2026-12-03T07:30:02Z daemon fatal: CUDA out of memory",
    ]);
    const json = JSON.parse((await cli.run(["logs", "--db", cli.db, id, "--json", "--lines", "2"])).stdout);
    expect(json).toMatchObject({
      instanceId: id,
      state: "booting",
      lines: [
        { stream: "daemon", at: at + 2_000, text: "fatal: CUDA out of memory" },
        { stream: "agent", at: at + 3_000 },
      ],
    });
  });

  it("redacts again with the shell's secrets, says when there is nothing, and names a bad stream or id", async () => {
    const secret = "my-own-vast-key-0123456789abcdef";
    const id = await instanceWithLogs([{ stream: "daemon", at, text: `echoed ${secret} and token=abc123` }]);
    const run = await cli.run(["logs", "--db", cli.db, id], {}, { VAST_API_KEY: secret });
    expect(run.stdout).toBe("2026-12-03T07:30:00Z daemon echoed [REDACTED] and token=[REDACTED]\n");

    const second = await cli.run(["deploy", "--db", cli.db, "--offer", "1003", ...managerUrl]);
    const empty = /^(i-[0-9a-f]{8}) /.exec(second.stdout)?.[1] as string;
    expect((await cli.run(["logs", "--db", cli.db, empty])).stdout).toContain(
      `no log lines from ${empty} (booting)`,
    );
    const badStream = await cli.run(["logs", "--db", cli.db, id, "--stream", "kernel"]);
    expect(badStream.error).toMatchObject({
      code: "INVALID_INPUT",
      hint: expect.stringContaining("--stream"),
    });
    const unknown = await cli.run(["logs", "--db", cli.db, "i-00000000"]);
    expect(unknown.error).toMatchObject({
      code: "FLEET_INSTANCE_NOT_FOUND",
      hint: expect.stringContaining("cuzkit fleet status"),
    });
  });
});
