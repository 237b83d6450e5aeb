import { createManualClock } from "@cuzkit/core/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { FleetMember } from "../economics/run-planner.js";
import { timedProofRecords } from "../evidence/benchmark-claim.js";
import { backlogEventType, createBacklogFollower, followerOf } from "../manager/backlog-follower.js";
import { resolveFleetConfig } from "../manager/config.js";
import { type FleetRunStep, startFleetRun } from "../manager/fleet-run.js";
import { openFleetStore } from "../store/open-fleet-store.js";
import { curioTestSchemaSql } from "../test-support/curio-test-schema.js";
import { startTestFleet, type TestFleet } from "../test-support/test-fleet.js";
import { startTestPostgres, type TestPostgres } from "../test-support/test-postgres.js";
import { type CurioBacklogSource, curioBacklogSql, openCurioBacklogSource } from "./backlog-source.js";

// Following Curio's backlog against a real PostgreSQL holding Curio's harmony_task, with the
// run's clock simulated: every step is one minute, and the test acts between steps.

let postgres: TestPostgres;
beforeAll(async () => {
  postgres = await startTestPostgres();
});
afterAll(async () => {
  await postgres?.stop();
});

const minute = 60_000;
let fleet: TestFleet | undefined;
let source: CurioBacklogSource | undefined;
afterEach(async () => {
  await fleet?.close();
  await source?.close();
  fleet = undefined;
  source = undefined;
});

/** A fresh Curio schema with one node; the backlog source reading it. */
async function curioCluster() {
  const schema = postgres.freshSchema("curio");
  await postgres.query(curioTestSchemaSql(schema));
  await postgres.query(
    `INSERT INTO ${schema}.harmony_machines (host_and_port, cpu, ram, gpu) VALUES ('192.0.2.1:12300', 8, 1, 0)`,
  );
  source = openCurioBacklogSource({ url: postgres.url, schema });
  return {
    schema,
    source,
    /** Posts `count` unclaimed tasks of `name` at `postedMs`. */
    post: (count: number, postedMs: number, name = "PoRep") =>
      postgres.query(
        `INSERT INTO ${schema}.harmony_task (posted_time, owner_id, added_by, name)
          SELECT to_timestamp($1 / 1000.0), NULL, 1, $2 FROM generate_series(1, $3)`,
        [postedMs, name, count],
      ),
    /** Curio's nodes took and finished every task: the rows leave harmony_task. */
    clear: () => postgres.query(`DELETE FROM ${schema}.harmony_task`),
  };
}

async function vet(t: TestFleet, id: string, proofsPerHour: number) {
  await t.manager.agent.register(id, { agentVersion: "0.1.0" });
  for (const phase of ["params", "warmup", "benchmarking"] as const)
    await t.manager.agent.phase(id, { phase });
  const proofs = timedProofRecords({ count: 12, wallMs: 3_600_000 / proofsPerHour });
  return t.manager.agent.report(id, { verdict: "MET", proofsPerHour, proofs });
}

const backlogEvents = async (store: { events(): Promise<{ type: string; at: number; detail: unknown }[]> }) =>
  (await store.events())
    .filter((e) => e.type === backlogEventType)
    .map((e): Record<string, unknown> => ({ at: e.at, ...(e.detail as Record<string, unknown>) }));

describe("fleet run --follow-backlog against Curio's harmony_task", () => {
  it("reads unclaimed proving tasks only, by type, with the oldest posting", async () => {
    const curio = await curioCluster();
    const t0 = Date.UTC(2026, 11, 2, 9, 0, 0);
    await curio.post(3, t0, "PoRep");
    await curio.post(2, t0 - 5 * minute, "UpdateProve");
    await curio.post(1, t0 + minute, "PSProve");
    await curio.post(4, t0 - 60 * minute, "SDR"); // not a proof
    await postgres.query(
      `INSERT INTO ${curio.schema}.harmony_task (posted_time, owner_id, added_by, name) VALUES (to_timestamp($1 / 1000.0), 1, 1, 'PoRep')`,
      [t0 - 90 * minute],
    ); // claimed by a node: not waiting
    expect(await curio.source.read()).toEqual({
      waiting: 6,
      oldestPostedMs: t0 - 5 * minute,
      byType: [
        { taskType: "PoRep", waiting: 3, oldestPostedMs: t0 },
        { taskType: "UpdateProve", waiting: 2, oldestPostedMs: t0 - 5 * minute },
        { taskType: "PSProve", waiting: 1, oldestPostedMs: t0 + minute },
      ],
    });
    expect(curioBacklogSql).toMatch(/WHERE owner_id IS NULL AND name = ANY\(\$1\)/);
  });

  it("a burst of 200 PoRep then silence: up within one step, down after the idle window, never under the minimum", async () => {
    const curio = await curioCluster();
    const t = await startTestFleet({ config: { minProofsPerHour: 40 }, fake: { rateLimits: false } });
    fleet = t;
    const steps: FleetRunStep[] = [];
    const targets: number[] = [];
    const errors: unknown[] = [];
    let stopping: Promise<void> | undefined;
    let ended: () => void = () => {};
    const finished = new Promise<void>((resolve) => {
      ended = resolve;
    });
    let burstAt = 0;
    let silenceAt = 0;
    const totalSteps = 45;
    const stop = startFleetRun(t.manager, {
      followBacklog: { source: curio.source, minInstances: 1, maxInstances: 2, idleWindowMs: 30 * minute },
      clock: t.clock,
      intervalMs: minute,
      onBacklog: (step) => targets.push(step.kind === "decided" ? step.decision.target : step.target),
      onStep: (step) => steps.push(step),
      onError: (error) => errors.push(error),
      sleep: async (ms) => {
        t.clock.advance(ms);
        const done = steps.length;
        if (done === 1) {
          // The first step rented the minimum; it vets at 50/h, and Curio gets a burst.
          const [first] = await t.manager.store.list();
          await vet(t, first?.id as string, 50);
          burstAt = t.clock.now();
          await curio.post(200, burstAt);
        } else if (done === 2) {
          // The second machine vets at 80/h; Curio's nodes clear the burst; no new work comes.
          const second = (await t.manager.store.list()).find((r) => r.state !== "active");
          await vet(t, second?.id as string, 80);
          await curio.clear();
          silenceAt = t.clock.now();
        } else if (done >= totalSteps) {
          stopping = stop();
          ended();
        }
      },
    });
    await finished;
    await stopping;
    expect(errors).toEqual([]);

    // Step 1: no backlog, no machine: the minimum is rented.
    expect(steps[0]?.decisions).toEqual([expect.objectContaining({ action: "rent" })]);
    // Step 2: the burst raises the target to the maximum and rents in the same step.
    expect(targets.slice(0, 3)).toEqual([1, 2, 2]);
    expect(steps[1]?.decisions).toEqual([expect.objectContaining({ action: "rent" })]);
    // Then quiet from step 3: down after 30 minutes of it, the dearest per proof destroyed.
    const downStep = targets.findIndex((target, i) => i > 1 && target === 1);
    expect(downStep).toBe(2 + 30);
    expect(Math.min(...targets)).toBe(1);
    expect(targets.slice(downStep)).toEqual(Array(totalSteps - downStep).fill(1));
    expect(steps[downStep]?.decisions).toEqual([
      expect.objectContaining({
        action: "destroy",
        reason: expect.stringMatching(/^over target \(2 instances for 1\)/),
      }),
    ]);
    const records = await t.manager.store.list();
    const destroyed = records.filter((r) => r.state === "destroyed");
    const kept = records.filter((r) => r.state === "active");
    expect([destroyed.length, kept.length]).toEqual([1, 1]);
    const cost = (r: (typeof records)[number]) => r.dphPerHour / (r.proofsPerHour as number);
    expect(cost(destroyed[0] as (typeof records)[number])).toBeGreaterThan(
      cost(kept[0] as (typeof records)[number]),
    );

    // Each move is an event with its figures.
    const events = await backlogEvents(t.manager.store);
    expect(events.filter((e) => e.action !== "hold")).toEqual([
      expect.objectContaining({
        at: burstAt,
        action: "up",
        reason: "over-bound",
        previousTarget: 1,
        target: 2,
        waiting: 200,
        oldestAgeMs: 0,
        slackMs: 15 * minute,
        fleetProofsPerHour: 50,
        machineProofsPerHour: 50,
        timeToClearMs: 4 * 3_600_000,
        boundMs: 15 * minute,
        neededInstances: 16,
        byType: [{ taskType: "PoRep", waiting: 200, oldestPostedMs: burstAt }],
        text: expect.stringMatching(
          /^200 waiting, oldest 0\.0 min, 50\.0 proofs\/hour: clears in 240\.0 min/,
        ),
      }),
      expect.objectContaining({
        at: silenceAt + 30 * minute,
        action: "down",
        reason: "idle",
        previousTarget: 2,
        target: 1,
        waiting: 0,
        timeToClearMs: 0,
      }),
    ]);
  });

  it("a backlog swinging around the bound does not flap the target", async () => {
    const curio = await curioCluster();
    const clock = createManualClock(Date.UTC(2026, 11, 2, 9, 0, 0));
    const store = openFleetStore({ path: ":memory:", clock });
    try {
      const follower = createBacklogFollower(
        { source: curio.source, minInstances: 1, maxInstances: 8 },
        { store, fleet: "f", fallbackMachineProofsPerHour: 40, clock },
      );
      // Four machines at 40/h: the bound (15 min) is 40 waiting; the backlog swings 44 <-> 36
      // every minute for two hours, and the fleet proves at whatever target it has.
      const members = (n: number): FleetMember[] =>
        Array.from({ length: n }, (_, i) => ({
          instanceId: `i-${i}`,
          stage: "active",
          dphPerHour: 1,
          proofsPerHour: 40,
        }));
      let target = 4;
      const targets: number[] = [];
      for (let i = 0; i < 120; i++) {
        // Curio's nodes claim what waited; new work arrives.
        await curio.clear();
        await curio.post(i % 2 === 0 ? 44 : 36, clock.now());
        target = (await follower.next(members(target))).target;
        targets.push(target);
        clock.advance(minute);
      }
      // Raised once (44 at 160/h is 16.5 min), then held through every swing.
      expect(targets[0]).toBe(5);
      expect(new Set(targets)).toEqual(new Set([5]));
      const events = await backlogEvents(store);
      expect(events.map((e) => [e.action, e.reason])).toEqual([
        ["up", "over-bound"],
        ["hold", "within-band"],
      ]);
    } finally {
      await store.close();
    }
  });

  it("an unreadable HarmonyDB keeps the target, records FLEET_CURIO_DB, and restarts the idle window", async () => {
    const curio = await curioCluster();
    const clock = createManualClock(Date.UTC(2026, 11, 2, 9, 0, 0));
    const store = openFleetStore({ path: ":memory:", clock });
    try {
      const follower = createBacklogFollower(
        { source: curio.source, minInstances: 1, maxInstances: 4, idleWindowMs: 30 * minute },
        { store, fleet: "f", fallbackMachineProofsPerHour: 40, clock },
      );
      const members = (n: number): FleetMember[] =>
        Array.from({ length: n }, (_, i) => ({
          instanceId: `i-${i}`,
          stage: "active",
          dphPerHour: 1,
          proofsPerHour: 40,
        }));
      let target = 1;
      const step = async () => {
        const out = await follower.next(members(target));
        target = out.target;
        clock.advance(minute);
        return out;
      };
      await curio.post(200, clock.now());
      expect((await step()).target).toBe(4);
      await curio.clear();
      for (let i = 0; i < 20; i++) expect((await step()).target).toBe(4); // quiet for 20 minutes
      // HarmonyDB loses the table for 20 minutes (a failed migration, a restore).
      await postgres.query(`ALTER TABLE ${curio.schema}.harmony_task RENAME TO harmony_task_away`);
      const outage = [];
      for (let i = 0; i < 20; i++) outage.push(await step());
      expect(
        outage.every((o) => o.target === 4 && o.step.kind === "kept" && o.step.code === "FLEET_CURIO_DB"),
      ).toBe(true);
      await postgres.query(`ALTER TABLE ${curio.schema}.harmony_task_away RENAME TO harmony_task`);
      const backAt = clock.now();
      // 40 quiet minutes before the outage and after would pass the window: the outage is no evidence.
      let downAt: number | undefined;
      for (let i = 0; i < 40 && downAt === undefined; i++) {
        const at = clock.now();
        if ((await step()).target < 4) downAt = at;
      }
      expect(downAt).toBe(backAt + 30 * minute);
      expect(target).toBe(1);
      const events = await backlogEvents(store);
      const kept = events.filter((e) => e.action === "keep");
      expect(kept).toEqual([
        expect.objectContaining({
          reason: "curio-unreadable",
          code: "FLEET_CURIO_DB",
          target: 4,
          message: expect.stringContaining("harmony_task"),
        }),
      ]);
      expect(JSON.stringify(kept)).not.toContain(new URL(postgres.url).password);
    } finally {
      await store.close();
    }
  });

  it("takes the fleet's --max-instances as its maximum, and refuses a fixed target beside it", async () => {
    const clock = createManualClock(Date.UTC(2026, 11, 2, 9, 0, 0));
    const store = openFleetStore({ path: ":memory:", clock });
    try {
      const burst: CurioBacklogSource = {
        location: "stub",
        read: async () => ({ waiting: 200, oldestPostedMs: clock.now(), byType: [] }),
        close: async () => {},
      };
      const config = resolveFleetConfig({ minProofsPerHour: 40, maxInstances: 3 });
      const follower = followerOf({ store, config }, undefined, { source: burst }, clock);
      expect((await follower?.next([]))?.target).toBe(3);
      // Given, the policy's own maximum wins.
      const own = followerOf({ store, config }, undefined, { source: burst, maxInstances: 2 }, clock);
      expect((await own?.next([]))?.target).toBe(2);
      expect(() => followerOf({ store, config }, { instances: 2 }, { source: burst }, clock)).toThrow(
        expect.objectContaining({
          code: "FLEET_CONFIG",
          hint: expect.stringContaining("--target-instances"),
        }),
      );
      // Without a backlog, a run keeps its fixed target.
      expect(followerOf({ store, config }, { instances: 2 }, undefined, clock)).toBeUndefined();
    } finally {
      await store.close();
    }
  });
});
