import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Clock } from "@cuzkit/core";
import { createManualClock } from "@cuzkit/core/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { FleetBudgetError, FleetStoreError, FleetTransitionError } from "../errors.js";
import { testPlan, vetInStore } from "../test-support/fixtures.js";
import { startTestPostgres, type TestPostgres } from "../test-support/test-postgres.js";
import type { FleetStore } from "./fleet-store.js";
import { migrations } from "./migrations.js";
import { openDatabase } from "./open-database.js";
import { connectFleetStore, openFleetStore } from "./open-fleet-store.js";
import { openPostgresFleetStore } from "./postgres-fleet-store.js";
import { openSqlite } from "./sqlite-driver.js";

const folders: string[] = [];
function tempDb(): string {
  const folder = mkdtempSync(join(tmpdir(), "cuzkit-fleet-store-"));
  folders.push(folder);
  return join(folder, "nested", "fleet.db");
}
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

let postgres: TestPostgres;
beforeAll(async () => {
  postgres = await startTestPostgres();
});
afterAll(async () => {
  await postgres?.stop();
});

/** One place for a test's data, on one backend: open it (again) and run raw SQL there. */
interface Place {
  open(clock?: Clock): Promise<FleetStore>;
  /** Raw SQL on the same tables, around the store. */
  raw(sql: string): Promise<void>;
}

const backends: { name: string; place: () => Place }[] = [
  {
    name: "SQLite",
    place() {
      const path = tempDb();
      return {
        open: async (clock) => openFleetStore({ path, clock }),
        async raw(sql) {
          const db = openSqlite(path);
          try {
            db.exec(sql);
          } finally {
            db.close();
          }
        },
      };
    },
  },
  {
    name: "PostgreSQL",
    place() {
      const schema = postgres.freshSchema("store");
      return {
        open: (clock) => connectFleetStore({ location: postgres.url, schema, clock }),
        async raw(sql) {
          await postgres.query(`SET search_path TO ${schema}; ${sql}`);
        },
      };
    },
  },
];

/** Stores a test opened, closed after it. */
const opened: FleetStore[] = [];
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
});
/** Keeps a store to close after the test. */
const closedAfter = <S extends FleetStore>(store: S): S => {
  opened.push(store);
  return store;
};

describe.each(backends)("fleet store on $name", ({ name, place }) => {
  const open = async (p: Place, clock?: Clock) => closedAfter(await p.open(clock));

  it("keeps what was written across a reopen, at the latest schema version", async () => {
    const p = place();
    const store = await open(p);
    expect(store.kind).toBe(name === "SQLite" ? "sqlite" : "postgres");
    await store.plan(testPlan("i-1"));
    await store.transition("i-1", "planned", "renting");
    await store.saveSettings("test", { minProofsPerHour: 40, image: "x" });
    const again = await open(p);
    expect((await again.require("i-1")).state).toBe("renting");
    expect(await again.loadSettings("test")).toEqual({ minProofsPerHour: 40, image: "x" });
    expect(await again.schemaVersion()).toBe(Math.max(...migrations.map((m) => m.version)));
  });

  it("refuses a store newer than it knows, with a hint to upgrade", async () => {
    const p = place();
    await (await open(p)).close();
    opened.pop();
    await p.raw("INSERT INTO schema_migrations VALUES (99, 'future', 0)");
    const error = await p.open().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FleetStoreError);
    expect((error as FleetStoreError).hint).toContain("upgrade cuzkit");
  });

  it("guards each transition by the current state and writes its event in the same transaction", async () => {
    const clock = createManualClock(1_000);
    const store = await open(place(), clock);
    await store.plan(testPlan("i-1"));
    await store.transition("i-1", "planned", "renting");
    clock.advance(500);
    const booting = await store.transition("i-1", "renting", "booting", { changes: { vastId: 7001 } });
    expect(booting).toMatchObject({
      state: "booting",
      vastId: 7001,
      phaseStartedAt: 1_500,
      phaseDeadlineAt: 601_500,
    });

    // The same move again (a replay) and a move the table forbids change nothing.
    await expect(store.transition("i-1", "renting", "booting")).rejects.toThrow(FleetTransitionError);
    await expect(store.transition("i-1", "booting", "active")).rejects.toThrow(FleetTransitionError);
    expect(await store.tryTransition("i-1", "renting", "booting")).toBeUndefined();
    expect((await store.require("i-1")).state).toBe("booting");
    const events = await store.events({ instanceId: "i-1" });
    expect(events.map((e) => [e.type, e.fromState, e.toState])).toEqual([
      ["planned", undefined, "planned"],
      ["transition", "planned", "renting"],
      ["transition", "renting", "booting"],
    ]);
    await expect(store.transition("i-1", "params", "warmup")).rejects.toMatchObject({
      code: "FLEET_TRANSITION_REFUSED",
      actual: "booting",
    });
    expect(await store.lastEventSeq()).toBe(events.at(-1)?.seq);
    expect(await store.events({ afterSeq: events[0]?.seq, limit: 1 })).toEqual([events[1]]);
  });

  it("lets only one of two stores' transitions of one instance win", async () => {
    const p = place();
    const a = await open(p);
    const b = await open(p);
    await a.plan(testPlan("i-1"));
    await a.transition("i-1", "planned", "renting");
    expect(await a.tryTransition("i-1", "renting", "booting")).toBeDefined();
    expect(await b.tryTransition("i-1", "renting", "failed")).toBeUndefined();
    expect((await b.require("i-1")).state).toBe("booting");
    expect(await b.events({ instanceId: "i-1" })).toHaveLength(3);
  });

  it("runs concurrent calls on one store without mixing their transactions", async () => {
    const store = await open(place());
    // Ten plans at once, each with a guard, interleaved with reads: each is whole, none is lost.
    const ids = Array.from({ length: 10 }, (_, i) => `i-${i}`);
    await Promise.all(ids.flatMap((id) => [store.plan(testPlan(id), { guard: () => {} }), store.list()]));
    expect((await store.list()).map((r) => r.id).sort()).toEqual(ids);
    expect((await store.events()).filter((e) => e.type === "planned")).toHaveLength(10);
  });

  it("keeps events append-only", async () => {
    const p = place();
    const store = await open(p);
    await store.plan(testPlan("i-1"));
    await expect(p.raw("UPDATE events SET type = 'x'")).rejects.toThrow(/append-only/);
    await expect(p.raw("DELETE FROM events")).rejects.toThrow(/append-only/);
    expect((await store.events()).map((e) => e.type)).toEqual(["planned"]);
  });

  it("stores a Curio drain on an active instance with its event, keeps it across a reopen, and clears it when the instance leaves active", async () => {
    const p = place();
    const store = await open(p, createManualClock(2_000));
    await store.plan(testPlan("i-1"));
    const drain = {
      state: "draining" as const,
      curioMachineId: 12,
      since: 2_000,
      deadlineAt: 902_000,
      destroyPending: true,
    };
    // Not active yet: refused, nothing written.
    expect(await store.setCurioDrain("i-1", drain, { type: "curio-draining" })).toBeUndefined();
    for (const [from, to] of [
      ["planned", "renting"],
      ["renting", "booting"],
      ["booting", "registered"],
      ["registered", "params"],
      ["params", "warmup"],
      ["warmup", "benchmarking"],
      ["benchmarking", "active"],
    ] as const)
      await store.transition("i-1", from, to);
    expect(
      (await store.setCurioDrain("i-1", drain, { type: "curio-draining", detail: { deadlineAt: 902_000 } }))
        ?.curioDrain,
    ).toEqual(drain);
    expect((await store.events({ instanceId: "i-1" })).at(-1)).toMatchObject({
      type: "curio-draining",
      detail: { deadlineAt: 902_000 },
    });
    const again = await open(p);
    expect((await again.require("i-1")).curioDrain).toEqual(drain);
    const cordoned = { ...drain, state: "cordoned" as const, deadlineAt: undefined, destroyPending: false };
    expect((await again.setCurioDrain("i-1", cordoned))?.curioDrain).toEqual(cordoned);
    // Leaving active ends the drain in the same write.
    await again.transition("i-1", "active", "draining");
    expect((await again.require("i-1")).curioDrain).toBeUndefined();
    // Clearing works in any state.
    expect(await again.setCurioDrain("i-1", undefined)).toMatchObject({ state: "draining" });
  });

  it("records a heartbeat only for a live instance", async () => {
    const clock = createManualClock(5_000);
    const store = await open(place(), clock);
    await store.plan(testPlan("i-1"));
    expect(await store.heartbeat("i-1")).toBe(false); // planned: no machine yet
    await store.transition("i-1", "planned", "renting");
    await store.transition("i-1", "renting", "booting");
    expect(await store.heartbeat("i-1")).toBe(true);
    expect((await store.require("i-1")).lastHeartbeatAt).toBe(5_000);
    expect(await store.heartbeat("i-unknown")).toBe(false);
  });

  it("saves a benchmark result and its measurement only with its decision", async () => {
    const store = await open(place());
    await store.plan(testPlan("i-1"));
    const result = {
      verdict: "MET",
      proofsPerHour: 48.2,
      minProofsPerHour: 40,
      machineId: 501,
      gpuName: "RTX 3090",
      numGpus: 2,
      report: { proofs: [{ index: 1, wallMs: 70_000 }] },
    };
    const measured = {
      kind: "benchmark" as const,
      instanceId: "i-1",
      verdict: "MET",
      proofsPerHour: 48.2,
      predictedProofsPerHour: 50.25,
      dphPerHour: 0.5,
      offerId: 1001,
      machineId: 501,
      hostId: undefined,
      gpuName: "RTX 3090",
      numGpus: 2,
      cpuRamBytes: 256 * 2 ** 30,
      cpuCores: 32,
      cpuName: undefined,
      classKey: "rtx3090x2",
      windowMs: undefined,
      config: "[daemon]\n",
      records: [{ index: 1 }],
    };
    // Not benchmarking yet: nothing is written, neither the result nor the measurement.
    await expect(store.decideBenchmark("i-1", result, "active", "met", measured)).rejects.toThrow(
      FleetTransitionError,
    );
    expect(await store.benchmarkResult("i-1")).toBeUndefined();
    expect(await store.performance.list()).toEqual([]);
    await vetInStore(store, "i-1");
    const active = await store.decideBenchmark("i-1", result, "active", "48.2/h >= 40/h", measured);
    expect(active).toMatchObject({ state: "active", proofsPerHour: 48.2, reason: "48.2/h >= 40/h" });
    expect((await store.benchmarkResult("i-1"))?.report).toEqual(result.report);
    expect(await store.benchmarkSummaries()).toEqual([
      expect.objectContaining({ instanceId: "i-1", verdict: "MET", proofsPerHour: 48.2, numGpus: 2 }),
    ]);
    const [row] = await store.performance.list({ machineId: 501 });
    expect(row).toMatchObject({ ...measured, seq: expect.any(Number), at: expect.any(Number) });
    // Doubles stay doubles (PostgreSQL's REAL would round 50.25 only slightly; 48.2 visibly).
    expect(row?.proofsPerHour).toBe(48.2);
  });

  it("keeps only the newest lines of each instance's log tail, across reopens", async () => {
    const clock = createManualClock(5_000);
    const p = place();
    const store = await open(p, clock);
    await store.plan(testPlan("i-1"));
    await store.plan(testPlan("i-2"));
    const batch = (from: number, count: number) =>
      Array.from({ length: count }, (_, k) => ({
        stream: "daemon",
        at: 100 + from + k,
        text: `line ${from + k}`,
      }));
    await store.appendLogLines("i-1", batch(1, 3), 5);
    await store.appendLogLines("i-2", batch(1, 2), 5);
    clock.advance(1_000);
    await store.appendLogLines("i-1", batch(4, 4), 5);
    const tail = await store.logTail("i-1");
    expect(tail.map((l) => l.text)).toEqual(["line 3", "line 4", "line 5", "line 6", "line 7"]);
    expect(tail[0]).toMatchObject({ instanceId: "i-1", stream: "daemon", at: 103, receivedAt: 5_000 });
    expect(tail.at(-1)?.receivedAt).toBe(6_000);
    // A shipment larger than the bound keeps its newest lines; the other instance's tail is its own.
    await store.appendLogLines("i-1", batch(10, 8), 5);
    expect((await store.logTail("i-1")).map((l) => l.text)).toEqual([
      "line 13",
      "line 14",
      "line 15",
      "line 16",
      "line 17",
    ]);
    expect((await store.logTail("i-1", 2)).map((l) => l.text)).toEqual(["line 16", "line 17"]);
    expect((await store.logTail("i-2")).map((l) => l.text)).toEqual(["line 1", "line 2"]);
    await store.close();
    opened.pop();
    const again = await open(p, clock);
    expect(await again.logTail("i-1")).toHaveLength(5);
  });

  it("refuses a plan its guard rejects, writing nothing", async () => {
    const store = await open(place());
    await store.plan(testPlan("i-1"));
    const refuse = () => {
      throw new FleetBudgetError("over", { hint: "raise --max-instances" });
    };
    await expect(store.plan(testPlan("i-2"), { guard: refuse })).rejects.toThrow(FleetBudgetError);
    expect((await store.list()).map((r) => r.id)).toEqual(["i-1"]);
    expect(await store.events({ instanceId: "i-2" })).toEqual([]);
    let seen: string[] = [];
    await store.plan(testPlan("i-3"), {
      guard: (all) => {
        seen = all.map((r) => r.id);
      },
    });
    expect(seen).toEqual(["i-1"]);
  });

  it("counts destroy attempts, flags the manual ones, and keeps unknown instances and exclusions", async () => {
    const clock = createManualClock(10_000);
    const store = await open(place(), clock);
    await store.plan(testPlan("i-1"));
    await store.transition("i-1", "planned", "renting");
    await store.transition("i-1", "renting", "failed");
    await store.transition("i-1", "failed", "destroying");
    await store.noteDestroyAttempt("i-1", 20_000, false, "502");
    const manual = await store.noteDestroyAttempt("i-1", undefined, true, "502");
    expect(manual).toMatchObject({
      destroyAttempts: 2,
      destroyFirstAttemptAt: 10_000,
      destroyManual: true,
      destroyNextAttemptAt: undefined,
    });
    expect((await store.events({ instanceId: "i-1" })).at(-1)?.type).toBe("destroy-manually");
    await store.excludeMachine(501, "cordoned");
    expect(await store.isMachineExcluded(501)).toBe(true);
    expect(await store.isMachineExcluded(502)).toBe(false);
    expect(await store.machineEvidence({ machineId: 501 })).toMatchObject([
      { machineId: 501, kind: "cordon", reason: "cordoned", at: 10_000 },
    ]);
    expect(await store.performance.failedInstanceIds()).toEqual(new Set(["i-1"]));
    expect(await store.countByState()).toMatchObject({ destroying: 1, planned: 0 });

    expect(await store.noteUnknownInstance(9001, "cuzkit-fleet-test-i-x")).toEqual({
      firstSeenAt: 10_000,
      outcome: undefined,
    });
    clock.advance(1_000);
    expect((await store.noteUnknownInstance(9001, "cuzkit-fleet-test-i-x")).firstSeenAt).toBe(10_000);
    await store.settleUnknownInstance(9001, "destroyed");
    expect((await store.noteUnknownInstance(9001, "x")).outcome).toBe("destroyed");
  });
  it("keeps machine evidence append-only: a lift is a row, and only evidence after it excludes", async () => {
    const clock = createManualClock(10_000);
    const store = await open(place(), clock);
    const death = { machineId: 7, hostId: 70, instanceId: "i-1", kind: "death" as const, reason: "lost" };
    await store.recordEvidence(death);
    expect(await store.isMachineExcluded(7)).toBe(false); // one death never excludes
    clock.advance(60_000);
    await store.recordEvidence({ ...death, instanceId: "i-2" });
    expect(await store.machineExclusion(7)).toMatchObject({ since: 70_000, until: 10_000 + 7 * 86_400_000 });
    await store.liftExclusion(7, "checked by hand");
    expect(await store.isMachineExcluded(7)).toBe(false);
    expect((await store.machineEvidence({ machineId: 7 })).map((e) => e.kind)).toEqual([
      "death",
      "death",
      "lift",
    ]);
    expect((await store.events({ instanceId: "machine-7" })).map((e) => [e.type, e.detail])).toEqual([
      ["machine-lifted", { machineId: 7, reason: "checked by hand" }],
    ]);
  });
});

describe("fleet store on SQLite only", () => {
  it("opens in WAL mode with a busy timeout", () => {
    const store = openFleetStore({ path: tempDb() });
    expect(store.db.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(store.db.pragma("busy_timeout", { simple: true })).toBe(5000);
    store.db.close();
  });

  it("runs each migration once", async () => {
    const path = tempDb();
    await openFleetStore({ path }).close();
    await openFleetStore({ path }).close(); // a second open applies nothing (CREATE TABLE would fail)
    const raw = openSqlite(path);
    expect(raw.prepare("SELECT COUNT(*) AS n FROM schema_migrations").get()).toEqual({
      n: migrations.length,
    });
    raw.close();
  });

  it("turns the old permanent exclusions into evidence: a cordon stays until lifted, UNSTABLE expires", async () => {
    const path = tempDb();
    const old = openDatabase(
      path,
      migrations.filter((m) => m.version < 7),
    );
    old
      .prepare("INSERT INTO excluded_machines (machine_id, at, reason) VALUES (?, ?, ?)")
      .run(1, 1_000, "cordoned by the operator (instance i-1)");
    old
      .prepare("INSERT INTO excluded_machines (machine_id, at, reason) VALUES (?, ?, ?)")
      .run(2, 2_000, "rejected as unstable");
    old.close();
    const clock = createManualClock(3_000);
    const store = openFleetStore({ path, clock });
    try {
      expect((await store.machineEvidence()).map((e) => [e.machineId, e.kind, e.at])).toEqual([
        [1, "cordon", 1_000],
        [2, "unstable", 2_000],
      ]);
      expect(await store.isMachineExcluded(2)).toBe(true);
      clock.advance(7 * 86_400_000);
      expect(await store.isMachineExcluded(2)).toBe(false);
      expect(await store.isMachineExcluded(1)).toBe(true);
    } finally {
      await store.close();
    }
  });

  it("rolls a failing migration back as a whole", () => {
    const path = tempDb();
    const first = openDatabase(path, [{ version: 1, description: "ok", sql: "CREATE TABLE a (x INTEGER)" }]);
    first.close();
    expect(() =>
      openDatabase(path, [
        { version: 1, description: "ok", sql: "CREATE TABLE a (x INTEGER)" },
        { version: 2, description: "half", sql: "CREATE TABLE b (x INTEGER); CREATE TABLE a (y INTEGER);" },
      ]),
    ).toThrow(FleetStoreError);
    const check = openSqlite(path);
    // Neither table b nor version 2 exists: the migration left nothing half-applied.
    expect(check.prepare("SELECT name FROM sqlite_master WHERE name = 'b'").get()).toBeUndefined();
    expect(check.prepare("SELECT MAX(version) AS v FROM schema_migrations").get()).toEqual({ v: 1 });
    check.close();
  });
});

describe("fleet store on PostgreSQL only", () => {
  /** Two stores on one fresh schema, as two manager replicas hold it (closed after the test). */
  const twoReplicas = async (prefix: string) => {
    const schema = postgres.freshSchema(prefix);
    const a = closedAfter(await openPostgresFleetStore({ url: postgres.url, schema }));
    const b = closedAfter(await openPostgresFleetStore({ url: postgres.url, schema }));
    return { a, b };
  };

  it("lets exactly one of two concurrent transitions win", async () => {
    const { a, b } = await twoReplicas("race");
    await a.plan(testPlan("i-1"));
    await a.transition("i-1", "planned", "renting");
    const outcomes = await Promise.all([
      a.tryTransition("i-1", "renting", "booting"),
      b.tryTransition("i-1", "renting", "failed"),
    ]);
    expect(outcomes.filter((o) => o !== undefined)).toHaveLength(1);
    expect(await a.events({ instanceId: "i-1" })).toHaveLength(3);
  });

  it("serialises two concurrent plans' guards, so a cap of one lets one through", async () => {
    const { a, b } = await twoReplicas("cap");
    const atMostOne = (all: readonly unknown[]) => {
      if (all.length >= 1) throw new FleetBudgetError("over", { hint: "raise --max-instances" });
    };
    const results = await Promise.allSettled([
      a.plan(testPlan("i-1"), { guard: atMostOne }),
      b.plan(testPlan("i-2"), { guard: atMostOne }),
    ]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    expect(await a.list()).toHaveLength(1);
  });

  it("creates its tables in its own schema and rolls a failing migration back as a whole", async () => {
    const schema = postgres.freshSchema("own");
    const store = await openPostgresFleetStore({ url: postgres.url, schema });
    await store.close();
    const tables = await postgres.query<{ table_name: string }>(
      "SELECT table_name FROM information_schema.tables WHERE table_schema = $1 ORDER BY table_name",
      [schema],
    );
    expect(tables.map((t) => t.table_name)).toEqual(
      expect.arrayContaining(["events", "instances", "host_performance", "schema_migrations"]),
    );
    const publicTables = await postgres.query(
      "SELECT 1 FROM information_schema.tables WHERE table_schema = 'public' AND table_name = 'instances'",
    );
    expect(publicTables).toEqual([]);

    const half = postgres.freshSchema("half");
    await expect(
      openPostgresFleetStore({
        url: postgres.url,
        schema: half,
        migrations: [
          { version: 1, description: "ok", sql: "CREATE TABLE a (x BIGINT)" },
          { version: 2, description: "bad", sql: "CREATE TABLE b (x BIGINT); CREATE TABLE a (y BIGINT);" },
        ],
      }),
    ).rejects.toThrow(FleetStoreError);
    expect(
      await postgres.query("SELECT 1 FROM information_schema.schemata WHERE schema_name = $1", [half]),
    ).toEqual([]);
  });

  it("never shows the password of a connection string it cannot use", async () => {
    const url = postgres.url.replace(/:[^:@/]+@/, ":wrong-secret-pw@");
    const error = await openPostgresFleetStore({ url, schema: "x" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FleetStoreError);
    const shown = `${(error as Error).message} ${(error as FleetStoreError).hint}`;
    expect(shown).not.toContain("wrong-secret-pw");
    expect(shown).toContain(`postgres:***@${new URL(postgres.url).host}`);
    expect((error as FleetStoreError).hint).toContain("--db postgres://");
  });

  it("refuses a schema name that is not a plain identifier", async () => {
    await expect(
      openPostgresFleetStore({ url: postgres.url, schema: "x; DROP TABLE y" }),
    ).rejects.toMatchObject({
      code: "FLEET_STORE",
      hint: expect.stringContaining("--db-schema"),
    });
  });
});
