import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createManualClock } from "@cuzkit/core/testing";
import { afterEach, describe, expect, it } from "vitest";
import { FleetStoreError, FleetTransitionError } from "../errors.js";
import { testPlan } from "../testing/fixtures.js";
import { openFleetStore } from "./fleet-store.js";
import { migrations } from "./migrations.js";
import { openDatabase } from "./open-database.js";
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

describe("fleet store", () => {
  it("opens in WAL mode with a busy timeout and survives a reopen", () => {
    const path = tempDb();
    const store = openFleetStore({ path });
    expect(store.db.pragma("journal_mode", { simple: true })).toBe("wal");
    expect(store.db.pragma("busy_timeout", { simple: true })).toBe(5000);
    store.plan(testPlan("i-1"));
    store.transition("i-1", "planned", "renting");
    store.close();
    const again = openFleetStore({ path });
    expect(again.require("i-1").state).toBe("renting");
    expect(again.schemaVersion()).toBe(migrations.length);
    again.close();
  });

  it("runs each migration once, and refuses a store newer than it knows", () => {
    const path = tempDb();
    openFleetStore({ path }).close();
    openFleetStore({ path }).close(); // a second open applies nothing (CREATE TABLE would fail)
    const raw = openSqlite(path);
    raw.prepare("INSERT INTO schema_migrations VALUES (99, 'future', 0)").run();
    raw.close();
    expect(() => openFleetStore({ path })).toThrow(FleetStoreError);
    try {
      openFleetStore({ path });
    } catch (error) {
      expect((error as FleetStoreError).hint).toContain("upgrade cuzkit");
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

  it("guards each transition by the current state and writes its event in the same transaction", () => {
    const clock = createManualClock(1_000);
    const store = openFleetStore({ path: ":memory:", clock });
    store.plan(testPlan("i-1"));
    store.transition("i-1", "planned", "renting");
    clock.advance(500);
    const booting = store.transition("i-1", "renting", "booting", { changes: { vastId: 7001 } });
    expect(booting).toMatchObject({
      state: "booting",
      vastId: 7001,
      phaseStartedAt: 1_500,
      phaseDeadlineAt: 601_500,
    });

    // The same move again (a replay) and a move the table forbids change nothing.
    expect(() => store.transition("i-1", "renting", "booting")).toThrow(FleetTransitionError);
    expect(() => store.transition("i-1", "booting", "active")).toThrow(FleetTransitionError);
    expect(store.tryTransition("i-1", "renting", "booting")).toBeUndefined();
    expect(store.require("i-1").state).toBe("booting");
    const events = store.events({ instanceId: "i-1" });
    expect(events.map((e) => [e.type, e.fromState, e.toState])).toEqual([
      ["planned", undefined, "planned"],
      ["transition", "planned", "renting"],
      ["transition", "renting", "booting"],
    ]);
    try {
      store.transition("i-1", "params", "warmup");
    } catch (error) {
      expect(error).toMatchObject({ code: "FLEET_TRANSITION_REFUSED", actual: "booting" });
    }
    store.close();
  });

  it("lets only one of two racing transitions win", () => {
    const path = tempDb();
    const a = openFleetStore({ path });
    const b = openFleetStore({ path });
    a.plan(testPlan("i-1"));
    a.transition("i-1", "planned", "renting");
    expect(a.tryTransition("i-1", "renting", "booting")).toBeDefined();
    expect(b.tryTransition("i-1", "renting", "failed")).toBeUndefined();
    expect(b.require("i-1").state).toBe("booting");
    expect(b.events({ instanceId: "i-1" })).toHaveLength(3);
    a.close();
    b.close();
  });

  it("keeps events append-only", () => {
    const store = openFleetStore({ path: ":memory:" });
    store.plan(testPlan("i-1"));
    expect(() => store.db.prepare("UPDATE events SET type = 'x'").run()).toThrow(/append-only/);
    expect(() => store.db.prepare("DELETE FROM events").run()).toThrow(/append-only/);
    expect(store.events()).toHaveLength(1);
    store.close();
  });

  it("records a heartbeat only for a live instance", () => {
    const clock = createManualClock(5_000);
    const store = openFleetStore({ path: ":memory:", clock });
    store.plan(testPlan("i-1"));
    expect(store.heartbeat("i-1")).toBe(false); // planned: no machine yet
    store.transition("i-1", "planned", "renting");
    store.transition("i-1", "renting", "booting");
    expect(store.heartbeat("i-1")).toBe(true);
    expect(store.require("i-1").lastHeartbeatAt).toBe(5_000);
    expect(store.heartbeat("i-unknown")).toBe(false);
    store.close();
  });

  it("saves a benchmark result only with its decision", () => {
    const store = openFleetStore({ path: ":memory:" });
    store.plan(testPlan("i-1"));
    const result = {
      verdict: "MET",
      proofsPerHour: 48.2,
      minProofsPerHour: 40,
      machineId: 501,
      gpuName: "RTX 3090",
      numGpus: 2,
      report: { proofs: [{ index: 1, wallMs: 70_000 }] },
    };
    // Not benchmarking yet: nothing is written.
    expect(() => store.decideBenchmark("i-1", result, "active", "met")).toThrow(FleetTransitionError);
    expect(store.benchmarkResult("i-1")).toBeUndefined();
    for (const [from, to] of [
      ["planned", "renting"],
      ["renting", "booting"],
      ["booting", "registered"],
      ["registered", "params"],
      ["params", "warmup"],
      ["warmup", "benchmarking"],
    ] as const)
      store.transition("i-1", from, to);
    const active = store.decideBenchmark("i-1", result, "active", "48.2/h >= 40/h");
    expect(active).toMatchObject({ state: "active", proofsPerHour: 48.2, reason: "48.2/h >= 40/h" });
    expect(store.benchmarkResult("i-1")?.report).toEqual(result.report);
    store.close();
  });

  it("counts destroy attempts and flags the manual ones", () => {
    const store = openFleetStore({ path: ":memory:" });
    store.plan(testPlan("i-1"));
    store.transition("i-1", "planned", "renting");
    store.transition("i-1", "renting", "failed");
    store.transition("i-1", "failed", "destroying");
    store.noteDestroyAttempt("i-1", 10_000, false, "502");
    const manual = store.noteDestroyAttempt("i-1", undefined, true, "502");
    expect(manual).toMatchObject({
      destroyAttempts: 2,
      destroyManual: true,
      destroyNextAttemptAt: undefined,
    });
    expect(store.events({ instanceId: "i-1" }).at(-1)?.type).toBe("destroy-manually");
    store.excludeMachine(501, "unstable");
    store.excludeMachine(501, "again");
    expect(store.isMachineExcluded(501)).toBe(true);
    expect(store.isMachineExcluded(502)).toBe(false);
    expect(store.countByState()).toMatchObject({ destroying: 1, planned: 0 });
    store.close();
  });
});
