import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hardwareFrom } from "@cuzkit/core";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { LogsBody } from "../protocol/requests.js";
import { startTestFleet, type TestFleet } from "../test-support/test-fleet.js";
import { runAgent } from "./agent.js";
import { createLogTail } from "./log-tail.js";
import { redactionMarker } from "./redact.js";
import { type AgentReporter, createHttpReporter } from "./reporter.js";
import type { CommandOutcome } from "./run-command.js";

// A real agent (runAgent with the HTTP reporter) against a real manager on loopback, with a
// daemon that prints secrets and dies while starting: its tail reaches the manager's store, with
// every secret gone.

const vastKey = "c0ffee5e7a1b2c3d4e5f60718293a4b5c6d7e8f90a1b2c3d4e5f60718293a4b5";
const machine = hardwareFrom({ ram: "251GiB", cores: 32, gpus: "2xRTX3090" });

let dir: string;
let fleet: TestFleet | undefined;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "cuzkit-agent-logs-"));
});
afterEach(async () => {
  vi.unstubAllEnvs();
  rmSync(dir, { recursive: true, force: true });
  await fleet?.close();
  fleet = undefined;
});

describe("an agent whose daemon fails", () => {
  it("ships its tail on the failure, and the manager stores it with the secrets redacted", async () => {
    fleet = await startTestFleet();
    const url = await fleet.app.listen({ host: "127.0.0.1", port: 0 });
    const record = await fleet.manager.deploy(1002);
    const token = fleet.tokenOf(record.id);
    // The Vast key as Vast gives it to every container: in the environment the daemon inherits.
    vi.stubEnv("CONTAINER_API_KEY", vastKey);
    const [first, second] = [token.slice(0, 20), token.slice(20)];
    // The daemon prints secrets of every kind (the token split over two writes and two lines),
    // then dies before it answers. {config} and {addr} sit in a comment: the harness fills them in.
    const daemon = [
      'echo "cuzk-daemon 0.9 starting"',
      'echo "vast key is $CONTAINER_API_KEY"',
      `printf 'token ${first}'; sleep 0.05; printf '${second.slice(0, 5)}\\n${second.slice(5)} (wrapped)\\n'`,
      'echo "connecting postgres://curio:yb-secret-pw@db.internal:5433/yugabyte"',
      'echo "Authorization: Bearer abcdefghijklmnop"',
      'echo "CUDA_API_KEY=sk-live-123456"',
      'echo "fatal: CUDA out of memory allocating 24 GiB" >&2',
      "exit 3 # {config} {addr}",
    ].join("; ");
    const outcome = await runAgent({
      reporter: createHttpReporter({
        url,
        token,
        instanceId: record.id,
        attempts: 2,
        sleep: async () => {},
      }),
      // The token as the CLI has it: CUZKIT_FLEET_TOKEN (here given, not in this process's environment).
      logSecrets: [token],
      daemonCommand: daemon,
      daemonAddress: `unix://${join(dir, "cuzk.sock")}`,
      request: { proofKind: 1 } as never,
      detectHardware: async () => machine,
      readyTimeoutMs: 20_000,
      timers: { setInterval: () => 0, clearInterval: () => {} },
    });
    expect(outcome).toMatchObject({ status: "failed", failedStep: "warmup" });

    const stored = await fleet.manager.store.logTail(record.id);
    const daemonLines = stored.filter((l) => l.stream === "daemon").map((l) => l.text);
    expect(daemonLines).toEqual([
      "cuzk-daemon 0.9 starting",
      `vast key is ${redactionMarker}`,
      `token ${redactionMarker}`,
      `${redactionMarker} (wrapped)`,
      `connecting postgres://curio:${redactionMarker}@db.internal:5433/yugabyte`,
      `Authorization: ${redactionMarker} ${redactionMarker}`,
      `CUDA_API_KEY=${redactionMarker}`,
      "fatal: CUDA out of memory allocating 24 GiB",
    ]);
    const agentLines = stored.filter((l) => l.stream === "agent").map((l) => l.text);
    expect(agentLines.some((l) => l.startsWith("error agent step failed"))).toBe(true);
    const everything = JSON.stringify(stored);
    for (const secret of [
      vastKey,
      token,
      first,
      second,
      "yb-secret-pw",
      "abcdefghijklmnop",
      "sk-live-123456",
    ])
      expect(everything).not.toContain(secret);
    // The failure itself reached the manager after the tail: the machine is given up.
    expect(["failed", "destroying", "destroyed"]).toContain(
      (await fleet.manager.store.require(record.id)).state,
    );
  }, 60_000);
});

describe("an agent asked for its logs", () => {
  it("ships at each phase, when a heartbeat's answer asks, and on the failure, each line once", async () => {
    const shipped: LogsBody[] = [];
    let answer: "ok" | "send-logs" = "ok";
    const reporter: AgentReporter = {
      kind: "manager",
      register: async () => ({
        instanceId: "i-0000abcd",
        minProofsPerHour: 10,
        benchmarkProofs: 3,
        heartbeatIntervalMs: 30_000,
        dialect: "budget",
      }),
      phase: async () => {},
      heartbeat: async () => answer,
      failure: async () => {},
      report: async () => ({ state: "rejected", keep: false, reason: "no" }),
      logs: async (body) => {
        shipped.push(body);
      },
    };
    let beat = () => {};
    let finishParams: (outcome: CommandOutcome) => void = () => {};
    let paramsStarted: () => void = () => {};
    const started = new Promise<void>((resolve) => {
      paramsStarted = resolve;
    });
    const tail = createLogTail();
    const outcome = runAgent({
      reporter,
      logTail: tail,
      logShipEveryMs: 0,
      paramsCommand: "fetch-params",
      runCommand: () =>
        new Promise<CommandOutcome>((resolve) => {
          finishParams = resolve;
          paramsStarted();
        }),
      daemonCommand: "never-started",
      daemonAddress: `unix://${join(dir, "cuzk.sock")}`,
      request: { proofKind: 1 } as never,
      timers: {
        setInterval: (callback) => {
          beat = callback;
          return 1;
        },
        clearInterval: () => {},
      },
    });
    await started;
    // The phase's shipment: the register line.
    await vi.waitFor(() => expect(shipped.map((b) => b.reason)).toEqual(["phase"]));
    tail.line("agent", "params: 40% fetched");
    // A plain heartbeat ships nothing; one whose answer asks does.
    beat();
    await new Promise((resolve) => setImmediate(resolve));
    expect(shipped).toHaveLength(1);
    answer = "send-logs";
    beat();
    await vi.waitFor(() => expect(shipped.map((b) => b.reason)).toEqual(["phase", "request"]));
    expect(shipped[1]).toMatchObject({ phase: "params", lines: [{ text: "params: 40% fetched" }] });
    finishParams({ exitCode: 2, signal: null, tail: ["error: params URL unreachable"] });
    expect(await outcome).toMatchObject({ status: "failed", failedStep: "params" });
    expect(shipped.map((b) => b.reason)).toEqual(["phase", "request", "failure"]);
    const failureLines = shipped[2]?.lines.map((l) => l.text) ?? [];
    expect(failureLines).toContain("params: error: params URL unreachable");
    expect(failureLines.some((l) => l.startsWith("error agent step failed"))).toBe(true);
    // Each line went once.
    const all = shipped.flatMap((b) => b.lines.map((l) => `${l.stream}|${l.at}|${l.text}`));
    expect(new Set(all).size).toBe(all.length);
  });
});
