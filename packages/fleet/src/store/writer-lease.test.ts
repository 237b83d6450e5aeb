import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Clock } from "@cuzkit/core";
import { createManualClock } from "@cuzkit/core/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { FleetLeaseHeldError, FleetLeaseLostError } from "../errors.js";
import { testPlan } from "../test-support/fixtures.js";
import { startTestPostgres, type TestPostgres } from "../test-support/test-postgres.js";
import type { FleetStore } from "./fleet-store.js";
import { connectFleetStore, openFleetStore } from "./open-fleet-store.js";

// The writer lease and its fencing, on both stores: two managers on one database, each with
// its own connection(s), as two processes would have.

let postgres: TestPostgres;
beforeAll(async () => {
  postgres = await startTestPostgres();
});
afterAll(async () => {
  await postgres?.stop();
});

const folders: string[] = [];
const opened: FleetStore[] = [];
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

/** Opens one database twice (two managers); `clock` drives both stores and leases. */
const backends: { name: string; pair: (clock: Clock) => Promise<[FleetStore, FleetStore]> }[] = [
  {
    name: "SQLite",
    async pair(clock) {
      const folder = mkdtempSync(join(tmpdir(), "cuzkit-lease-"));
      folders.push(folder);
      const path = join(folder, "fleet.db");
      const a = openFleetStore({ path, clock });
      const b = openFleetStore({ path, clock });
      opened.push(a, b);
      return [a, b];
    },
  },
  {
    name: "PostgreSQL",
    async pair(clock) {
      const schema = postgres.freshSchema("lease");
      const a = await connectFleetStore({ location: postgres.url, schema, clock });
      const b = await connectFleetStore({ location: postgres.url, schema, clock });
      opened.push(a, b);
      return [a, b];
    },
  },
];

const never = () => new Promise<void>(() => {});
const periodMs = 30_000;

describe.each(backends)("writer lease on $name", ({ pair }) => {
  it("lets one manager hold the store; a second is refused with the holder's name and when it lapses", async () => {
    const clock = createManualClock(1_700_000_000_000);
    const [a, b] = await pair(clock);
    const leaseA = a.writerLease({ fleet: "f", holder: "host-a pid 1 #aa", periodMs, clock, sleep: never });
    const leaseB = b.writerLease({ fleet: "f", holder: "host-b pid 2 #bb", periodMs, clock, sleep: never });
    await leaseA.acquireNow();
    expect(leaseA.epoch).toBe(1);

    const refused = await leaseB.acquireNow().catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(FleetLeaseHeldError);
    expect(refused).toMatchObject({
      code: "FLEET_LEASE_HELD",
      holding: { holder: "host-a pid 1 #aa", epoch: 1, expiresAt: clock.now() + periodMs },
    });
    expect((refused as Error).message).toContain("host-a pid 1 #aa");
    expect((refused as FleetLeaseHeldError).hint).toMatch(/stop the other manager.*or wait until/);
    expect(leaseB.held).toBe(false);

    // A renewal keeps the epoch; a release lets the other in at once, with a new epoch.
    clock.advance(periodMs - 1);
    expect(await leaseA.claim()).toEqual({ held: true, epoch: 1, expiresAt: clock.now() + periodMs });
    await leaseA.release();
    await leaseB.acquireNow();
    expect(leaseB.epoch).toBe(2);
    expect(await b.writerLease({ fleet: "f" }).current()).toMatchObject({
      holder: "host-b pid 2 #bb",
      epoch: 2,
    });
    // Another fleet has a lease of its own.
    await a.writerLease({ fleet: "other", clock, sleep: never }).acquireNow();
  });

  it("refuses every fenced write made under a stale epoch, and writes nothing", async () => {
    const clock = createManualClock(1_700_000_000_000);
    const [a, b] = await pair(clock);
    const leaseA = a.writerLease({ fleet: "f", holder: "frozen", periodMs, clock, sleep: never });
    const leaseB = b.writerLease({ fleet: "f", holder: "successor", periodMs, clock, sleep: never });
    await leaseA.acquireNow();
    const fencedA = a.fencedBy(leaseA);
    await fencedA.plan(testPlan("i-0000000a"));
    let lostA = false;
    void leaseA.lost().then(() => {
      lostA = true;
    });

    // A freezes past its period; B takes over (epoch 2) and writes.
    clock.advance(periodMs + 1);
    await leaseB.acquireNow();
    expect(leaseB.epoch).toBe(2);
    const fencedB = b.fencedBy(leaseB);
    await fencedB.transition("i-0000000a", "planned", "renting");
    const eventsBefore = await b.events();

    // A resumes, still believing it holds epoch 1: every kind of write is refused.
    expect(leaseA.epoch).toBe(1);
    const writes: [string, () => Promise<unknown>][] = [
      ["plan", () => fencedA.plan(testPlan("i-0000000b", { label: "cuzkit-fleet-test-b" }))],
      ["transition", () => fencedA.transition("i-0000000a", "renting", "booting")],
      ["tryTransition", () => fencedA.tryTransition("i-0000000a", "renting", "failed")],
      ["update", () => fencedA.update("i-0000000a", "renting", { reason: "x" }, "note")],
      ["appendEvent", () => fencedA.appendEvent("i-0000000a", "stale")],
      ["heartbeat", () => fencedA.heartbeat("i-0000000a")],
      ["excludeMachine", () => fencedA.excludeMachine(501, "stale verdict")],
      ["saveSettings", () => fencedA.saveSettings("f", { stale: true })],
      ["noteUnknownInstance", () => fencedA.noteUnknownInstance(77, "cuzkit-fleet-f-i-00000077")],
      [
        "performance",
        () =>
          fencedA.performance.record({
            kind: "production",
            instanceId: "i-0000000a",
            proofsPerHour: 1e300,
            dphPerHour: 0.5,
            offerId: 1001,
            gpuName: "RTX 3090",
            numGpus: 2,
            cpuRamBytes: 2 ** 30,
            classKey: "k",
            verdict: undefined,
            predictedProofsPerHour: undefined,
            machineId: undefined,
            hostId: undefined,
            cpuCores: undefined,
            cpuName: undefined,
            windowMs: undefined,
            config: undefined,
            records: undefined,
          }),
      ],
    ];
    for (const [what, write] of writes) {
      const error = await write().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error, what).toBeInstanceOf(FleetLeaseLostError);
      expect(error, what).toMatchObject({
        code: "FLEET_LEASE_LOST",
        holding: { holder: "successor", epoch: 2 },
      });
    }
    expect(leaseA.held).toBe(false);
    await Promise.resolve();
    expect(lostA).toBe(true);

    // Nothing of A's reached the store.
    expect(await b.list()).toMatchObject([{ id: "i-0000000a", state: "renting" }]);
    expect(await b.events()).toEqual(eventsBefore);
    expect(await b.isMachineExcluded(501)).toBe(false);
    expect(await b.loadSettings("f")).toBeUndefined();
    expect(await b.performance.list()).toEqual([]);
    // Reads through the fenced store still work.
    expect(await fencedA.get("i-0000000a")).toMatchObject({ state: "renting" });
    // The successor's writes go on.
    await fencedB.appendEvent("i-0000000a", "fine");
  });

  it("ends a tenure that another held meanwhile, even if that one has given the lease back", async () => {
    const clock = createManualClock(1_700_000_000_000);
    const [a, b] = await pair(clock);
    const leaseA = a.writerLease({ fleet: "f", holder: "a", periodMs, clock, sleep: never });
    const leaseB = b.writerLease({ fleet: "f", holder: "b", periodMs, clock, sleep: never });
    await leaseA.acquireNow();
    clock.advance(periodMs + 1);
    await leaseB.acquireNow();
    await leaseB.release();
    // A's renewal finds its tenure gone: it is lost (A stops acting), not silently renewed.
    expect(await leaseA.claim()).toMatchObject({ held: false, holding: { holder: "b", epoch: 2 } });
    expect(leaseA.held).toBe(false);
    // A fresh claim is a new tenure.
    expect(await leaseA.claim()).toMatchObject({ held: true, epoch: 3 });
  });

  it("keeps the lost() it gave across renewals, and resolves it when the tenure ends", async () => {
    const clock = createManualClock(1_700_000_000_000);
    const [a, b] = await pair(clock);
    const leaseA = a.writerLease({ fleet: "f", holder: "a", periodMs, clock, sleep: never });
    const leaseB = b.writerLease({ fleet: "f", holder: "b", periodMs, clock, sleep: never });
    await leaseA.acquireNow();
    let lost = false;
    const lostA = leaseA.lost().then(() => {
      lost = true;
    });
    expect(await leaseA.claim()).toMatchObject({ held: true, epoch: 1 }); // a renewal
    await new Promise((resolve) => setImmediate(resolve));
    expect(lost).toBe(false);
    clock.advance(periodMs + 1);
    await leaseB.acquireNow();
    expect((await leaseA.claim()).held).toBe(false);
    await lostA;
    expect(lost).toBe(true);
    expect(leaseA.held).toBe(false);
  });

  it("renews at each check with one watcher, moving the lease's end", async () => {
    const clock = createManualClock(1_700_000_000_000);
    const [a] = await pair(clock);
    const ticks: (() => void)[] = [];
    const sleep = () => new Promise<void>((resolve) => ticks.push(resolve));
    const leaseA = a.writerLease({ fleet: "f", holder: "a", periodMs, clock, sleep });
    await leaseA.acquireNow();
    expect(ticks).toHaveLength(1);
    clock.advance(10_000);
    ticks.shift()?.();
    await vi.waitFor(async () => {
      expect((await leaseA.current())?.expiresAt).toBe(clock.now() + periodMs);
      expect(ticks).toHaveLength(1);
    });
    await leaseA.release();
  });

  it("on the database's own clock: a lapsed lease is taken over with a new epoch", async () => {
    const [a, b] = await pair(createManualClock(0));
    const leaseA = a.writerLease({ fleet: "f", holder: "a", periodMs: 200, sleep: never });
    const leaseB = b.writerLease({ fleet: "f", holder: "b", periodMs: 200, sleep: never });
    await leaseA.acquireNow();
    const held = await leaseA.current();
    expect(held?.expiresAt).toBeGreaterThan(Date.now() - 5_000);
    expect((await leaseB.claim()).held).toBe(false);
    // B takes it once the store's own clock passes the lease's end, and not before.
    let claim = await leaseB.claim();
    while (!claim.held) {
      expect(Date.now()).toBeLessThan((held?.expiresAt ?? 0) + 5_000);
      await new Promise((resolve) => setTimeout(resolve, 20));
      claim = await leaseB.claim();
    }
    expect(Date.now()).toBeGreaterThanOrEqual((held?.expiresAt ?? 0) - 50);
    expect(claim).toMatchObject({ held: true, epoch: 2 });
    await expect(a.fencedBy(leaseA).appendEvent("x", "stale")).rejects.toMatchObject({
      code: "FLEET_LEASE_LOST",
    });
  });
});
