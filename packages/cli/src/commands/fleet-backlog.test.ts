import { backlogDefaults } from "@cuzkit/fleet/defaults";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { curioTestSchemaSql } from "../../../fleet/src/test-support/curio-test-schema.js";
import { startTestPostgres, type TestPostgres } from "../../../fleet/src/test-support/test-postgres.js";
import { durationText } from "../parse.js";
import { runCli } from "../run-cli.js";
import { fleetSettings, useFleetCli } from "../test-support/fleet-cli.js";
import { memoryIO } from "../test-support/memory-io.js";

// `cuzkit fleet run --follow-backlog`: the flags it needs, refused before anything is rented,
// and one step against a real PostgreSQL holding Curio's harmony_task.

let postgres: TestPostgres;
beforeAll(async () => {
  postgres = await startTestPostgres();
});
afterAll(async () => {
  await postgres?.stop();
});

const cli = useFleetCli();
const creates = () => cli.server.requestsTo(/^\/api\/v0\/asks\/\d+\/$/, "PUT").length;

describe("cuzkit fleet run --follow-backlog", () => {
  it("refuses a missing --curio-db, a --target-* beside it, and backlog flags without it, naming the flags", async () => {
    const cases: [string[], RegExp, string][] = [
      [["--follow-backlog"], /no --curio-db was given/, "--curio-db"],
      [
        ["--follow-backlog", "--curio-db", "postgres://u@127.0.0.1:1/x", "--target-instances", "2"],
        /sets the fleet's target itself/,
        "--target-instances",
      ],
      [
        ["--target-instances", "1", "--idle-window", "1h"],
        /--idle-window applies only with --follow-backlog/,
        "--follow-backlog",
      ],
      [
        [
          "--follow-backlog",
          "--curio-db",
          "postgres://u@127.0.0.1:1/x",
          "--min-instances",
          "3",
          "--max-instances",
          "2",
        ],
        /maximum \(2\) must be a whole number >= the minimum \(3\)/,
        "--max-instances",
      ],
    ];
    for (const [flags, message, hint] of cases) {
      const { error } = await cli.run(["run", "--once", "--db", cli.db, ...flags, ...fleetSettings]);
      expect(error, flags.join(" ")).toMatchObject({
        message: expect.stringMatching(message),
        hint: expect.stringContaining(hint),
      });
    }
    expect(creates()).toBe(0);
    // Through the CLI's entry: exit 1 with the error and its hint.
    const { io, stderr } = memoryIO({
      cwd: cli.home,
      env: { HOME: cli.home, VAST_API_KEY: cli.server.apiKey, VAST_URL: cli.server.url },
    });
    expect(await runCli(["fleet", "run", "--follow-backlog", "--db", cli.db, ...fleetSettings], io)).toBe(1);
    expect(stderr()).toMatch(
      /error: --follow-backlog reads Curio's backlog, and no --curio-db was given\nhint: pass --curio-db/,
    );
    expect(creates()).toBe(0);
  });

  it("--once follows a burst of 200 PoRep: the target rises at once, the offers are rented, the event has the figures", async () => {
    const schema = postgres.freshSchema("curio");
    await postgres.query(curioTestSchemaSql(schema));
    await postgres.query(
      `INSERT INTO ${schema}.harmony_task (posted_time, owner_id, added_by, name)
        SELECT now(), NULL, 1, 'PoRep' FROM generate_series(1, 200)`,
    );
    const { stdout, error } = await cli.run(
      [
        "run",
        "--once",
        "--db",
        cli.db,
        "--follow-backlog",
        "--curio-schema",
        schema,
        "--max-instances",
        "2",
        ...fleetSettings,
      ],
      undefined,
      { CUZKIT_CURIO_DB: postgres.url },
    );
    expect(error).toBeUndefined();
    // No machine yet: one machine's rate is the keep rule's minimum (40/h), 200 x 90 s / 15 min = 20 machines, capped at 2.
    expect(stdout).toMatch(
      /^backlog: 200 waiting, oldest 0\.\d min, 0\.0 proofs\/hour: clears in never against 15\.0 min, the oldest has 1\d\.\d min left to be claimed; up from 1 to 2 machines\n/,
    );
    expect(stdout.match(/^rent offer \d+: under target/gm)).toHaveLength(2);
    expect(creates()).toBe(2);
    const { openFleetStore } = await import("@cuzkit/fleet");
    const store = openFleetStore({ path: cli.db });
    try {
      const events = (await store.events()).filter((e) => e.type === "fleet-backlog");
      expect(events).toEqual([
        expect.objectContaining({
          instanceId: "fleet-default",
          detail: expect.objectContaining({
            action: "up",
            previousTarget: 1,
            target: 2,
            waiting: 200,
            fleetProofsPerHour: 0,
            machineProofsPerHour: 40,
            timeToClearMs: null,
            boundMs: 15 * 60_000,
            neededInstances: 20,
          }),
        }),
      ]);
    } finally {
      await store.close();
    }
  });

  it("help states the backlog flags and their defaults", async () => {
    const { io, stdout } = memoryIO();
    expect(await runCli(["fleet", "run", "--help"], io)).toBe(0);
    const text = stdout().replace(/\s+/g, " ");
    expect(text).toContain("--follow-backlog");
    expect(text).toContain(`the fewest machines kept (default ${backlogDefaults.minInstances})`);
    expect(text).toContain(`--max-instances (default ${backlogDefaults.maxInstances} with --follow-backlog)`);
    expect(text).toContain(`less --prove-timeout, ${durationText(backlogDefaults.clearBoundMs)})`);
    expect(text).toContain(`(default ${durationText(backlogDefaults.idleWindowMs)})`);
    expect(text).toContain(`(default ${durationText(backlogDefaults.proofDeadlineMs)})`);
    expect(text).toContain(`(default ${durationText(backlogDefaults.proveTimeoutMs)})`);
  });
});
