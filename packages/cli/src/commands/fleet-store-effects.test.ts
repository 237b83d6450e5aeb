// The fleet store has no side effects on failure: read-only commands never create one, an
// unknown --db scheme is refused before anything exists, and a serve/run/deploy that fails before
// it starts leaves no store, admin token or folder that it made.
import { existsSync, readdirSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { runCli } from "../run-cli.js";
import { fleetSettings, useFleetCli } from "../test-support/fleet-cli.js";
import { memoryIO } from "../test-support/memory-io.js";

const cli = useFleetCli();

/** A port something already listens on, so `--listen` there fails after the store is opened. */
async function busyPort(): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

describe("read-only fleet commands never create a store", () => {
  it.each([
    ["status", []],
    ["hosts", []],
    ["hosts --lift", ["--lift", "502"]],
    ["destroy", ["i-00000000"]],
  ])("%s --db typo.db: FLEET_STORE naming the path, nothing created", async (_name, extra) => {
    const typo = join(cli.home, "typo", "typo.db");
    const [command, ...rest] = _name.split(" ");
    const { error } = await cli.run([command as string, ...rest.slice(1), ...extra, "--db", typo]);
    expect(error).toMatchObject({
      code: "FLEET_STORE",
      message: `there is no fleet store at ${typo} (--db)`,
      hint: expect.stringContaining(`cuzkit fleet serve --db ${typo}`),
    });
    expect(existsSync(join(cli.home, "typo"))).toBe(false);
  });

  it("cuzkit fleet status --db typo.db exits 1 with the error and hint, and creates nothing", async () => {
    const typo = join(cli.home, "typo", "typo.db");
    const { io, stdout, stderr } = memoryIO({ cwd: cli.home, env: { HOME: cli.home } });
    expect(await runCli(["fleet", "status", "--db", typo], io)).toBe(1);
    expect(stderr()).toContain(
      `error: there is no fleet store at ${typo} (--db)\nhint: check --db for a typo;`,
    );
    expect(stdout()).toBe("");
    expect(existsSync(join(cli.home, "typo"))).toBe(false);
  });

  it("status with no store at the default path says where it would be and who creates it", async () => {
    const state = join(cli.home, "state");
    const { error } = await cli.run(["status"], {}, { XDG_STATE_HOME: state });
    expect(error).toMatchObject({
      code: "FLEET_STORE",
      message: `there is no fleet store yet at the default path ${join(state, "cuzkit", "fleet.db")}`,
      hint: expect.stringContaining("`cuzkit fleet serve` creates the store there"),
    });
    expect(existsSync(state)).toBe(false);
  });

  it("offers with no store ranks without evidence, says so, and creates nothing", async () => {
    const missing = join(cli.home, "none", "fleet.db");
    const { error, stdout, stderr } = await cli.run([
      "offers",
      "--db",
      missing,
      "--min-proofs-per-hour",
      "40",
    ]);
    expect(error).toBeUndefined();
    expect(stdout).not.toBe("");
    expect(stderr).toContain(`note: no fleet store at ${missing}: reading none (nothing is created)`);
    expect(existsSync(join(cli.home, "none"))).toBe(false);
  });
});

describe("an unknown --db scheme", () => {
  it.each([
    ["serve", ["--listen", "127.0.0.1:0", ...fleetSettings]],
    ["status", []],
  ])(
    "is refused by %s before anything is created (no ./mysql: folder, no admin token)",
    async (command, extra) => {
      const before = readdirSync(cli.home).sort();
      const { error } = await cli.run([command, "--db", "mysql://x", ...extra]);
      expect(error).toMatchObject({
        code: "FLEET_STORE",
        message:
          "--db has the unknown scheme mysql://: the fleet store is a SQLite file path or a postgres:// URL",
      });
      expect(readdirSync(cli.home).sort()).toEqual(before);
      expect(existsSync(join(cli.home, "mysql:"))).toBe(false);
    },
  );
});

describe("a command that fails before it starts leaves nothing it created", () => {
  it("serve on a busy port: no store, no admin token, no folder", async () => {
    const folder = join(cli.home, "new", "state");
    const db = join(folder, "fleet.db");
    const port = await busyPort();
    const { error } = await cli.run(["serve", "--db", db, "--listen", `127.0.0.1:${port}`, ...fleetSettings]);
    expect(error).toBeDefined();
    expect(existsSync(join(cli.home, "new"))).toBe(false);
  });

  it("serve with a bad setting, and run without a URL agents reach: no store left behind", async () => {
    const serve = await cli.run(["serve", "--db", cli.db, "--listen", "127.0.0.1:0"]);
    expect(serve.error).toMatchObject({ code: "INVALID_INPUT" });
    const run = await cli.run([
      ...["run", "--db", cli.db, "--listen", "127.0.0.1:0", "--target-instances", "1"],
      ...["--min-proofs-per-hour", "40", "--image", "ghcr.io/example/prover:1"],
    ]);
    expect(run.error).toMatchObject({ code: "FLEET_MANAGER_URL" });
    const deploy = await cli.run([
      "deploy",
      "--db",
      cli.db,
      "--offer",
      "1002",
      "--image",
      "ghcr.io/example/prover:1",
    ]);
    expect(deploy.error).toMatchObject({ code: "FLEET_MANAGER_URL" });
    expect(
      readdirSync(cli.home).filter((name) => name.startsWith("fleet.db") || name === "admin-token"),
    ).toEqual([]);
    // Nothing was rented either.
    expect(cli.server.requestsTo(/^\/api\/v0\/asks\/\d+\/$/, "PUT")).toEqual([]);
  });

  it("a failed serve on an existing store keeps the store and its admin token", async () => {
    const first = await cli.run(["serve", "--db", cli.db, "--listen", "127.0.0.1:0", ...fleetSettings]);
    expect(first.error).toBeUndefined();
    const kept = readdirSync(cli.home).filter((name) => name === "fleet.db" || name === "admin-token");
    expect(kept.sort()).toEqual(["admin-token", "fleet.db"]);
    const port = await busyPort();
    const { error } = await cli.run(["serve", "--db", cli.db, "--listen", `127.0.0.1:${port}`]);
    expect(error).toBeDefined();
    expect(existsSync(cli.db)).toBe(true);
    expect(existsSync(join(cli.home, "admin-token"))).toBe(true);
    // And status reads it.
    expect((await cli.run(["status", "--db", cli.db])).error).toBeUndefined();
  });
});
