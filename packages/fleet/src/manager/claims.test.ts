import { sampleOffers } from "@cuzkit/vast/testing";
import { afterEach, describe, expect, it } from "vitest";
import { timedProofRecords } from "../evidence/benchmark-claim.js";
import { readCountedRate } from "../evidence/counted-rate.js";
import type { ProofRecord } from "../protocol/requests.js";
import { proofsPerHourSeries } from "../server/dashboard-views.js";
import { startTestFleet, type TestFleet } from "../test-support/test-fleet.js";
import { fleetMembers, runFleetStep } from "./fleet-run.js";

let fleet: TestFleet | undefined;
afterEach(async () => {
  await fleet?.close();
  fleet = undefined;
});

const minute = 60_000;

/** Registers, walks the phases and reports a benchmark as the agent on the machine would (or as its host could). */
async function report(t: TestFleet, id: string, proofsPerHour: number, proofs: ProofRecord[]) {
  await t.manager.agent.register(id, { agentVersion: "0.1.0" });
  for (const phase of ["params", "warmup", "benchmarking"] as const)
    await t.manager.agent.phase(id, { phase });
  return t.manager.agent.report(id, { verdict: "MET", proofsPerHour, proofs });
}

/** 12 honest timed proofs, one at a time, at `proofsPerHour`. */
const honest = (proofsPerHour: number) => timedProofRecords({ count: 12, wallMs: 3_600_000 / proofsPerHour });

const eventsOf = async (t: TestFleet, id: string, type: string) =>
  (await t.manager.store.events({ instanceId: id })).filter((e) => e.type === type);

/** The planner's total: every active machine at its counted rate. */
const fleetRate = async (t: TestFleet) =>
  (await fleetMembers(t.manager))
    .filter((m) => m.stage === "active")
    .reduce((s, m) => s + m.proofsPerHour, 0);

/**
 * Advances the clock in 30-minute steps; at each, the active machines heartbeat (they are
 * alive), report `proofsPerStep` proofs of production for the 30 minutes (per machine), and the
 * monitor makes its pass.
 */
async function serve(t: TestFleet, steps: number, proofsPerStep: number | ((id: string) => number)) {
  for (let i = 0; i < steps; i++) {
    t.clock.advance(30 * minute);
    for (const r of await t.manager.store.list(["active"])) {
      await t.manager.agent.heartbeat(r.id);
      const proofs = typeof proofsPerStep === "number" ? proofsPerStep : proofsPerStep(r.id);
      await t.manager.agent.throughput(r.id, { proofs, windowMs: 30 * minute });
    }
    await t.manager.monitor();
  }
}

describe("claims checked against evidence", () => {
  it("neither keeps nor counts an absurd or an inconsistent claim, and an honest 60/h machine survives a step whose target it alone meets", async () => {
    // The sample market, plus a twin of offer 1002 on another machine for the absurd claim.
    const twin = { ...sampleOffers().find((o) => o.id === 1002), id: 1012, machine_id: 512 };
    fleet = await startTestFleet({
      config: { minProofsPerHour: 40 },
      fake: { offers: [...sampleOffers(), twin] },
    });
    const t = fleet;
    const honestMachine = await t.manager.deploy(1002);
    const absurd = await t.manager.deploy(1012);
    const inconsistent = await t.manager.deploy(1003);

    expect((await report(t, honestMachine.id, 60, honest(60))).keep).toBe(true);
    // MET at 1e300/h with no proof records: refused, destroyed, no measurement kept.
    const absurdAnswer = await report(t, absurd.id, 1e300, []);
    expect(absurdAnswer).toMatchObject({ keep: false, state: "rejected" });
    expect(absurdAnswer.reason).toMatch(/claim refused: claimed 1\.00e\+300\/h with 0 timed proofs/);
    // 5000/h from 12 proofs of 60 s, one at a time (60/h): a report that contradicts itself is
    // refused and destroyed like the absurd one, not kept at its records' rate.
    const inconsistentAnswer = await report(t, inconsistent.id, 5000, honest(60));
    expect(inconsistentAnswer).toMatchObject({ keep: false, state: "rejected" });
    expect(inconsistentAnswer.reason).toMatch(
      /claim refused: claimed 5000\.0\/h, but its own 12 timed proofs over 720 s .* produce 60\.0\/h/,
    );

    expect(await readCountedRate(t.manager.store, absurd.id)).toMatchObject({
      state: "destroyed",
      proofsPerHour: 0,
      claimedProofsPerHour: 1e300,
      benchmarkProofsPerHour: undefined,
    });
    expect((await t.manager.store.require(absurd.id)).proofsPerHour).toBeUndefined();
    expect(await readCountedRate(t.manager.store, inconsistent.id)).toMatchObject({
      state: "destroyed",
      proofsPerHour: 0,
      claimedProofsPerHour: 5000,
      benchmarkProofsPerHour: undefined,
    });
    // Events with their reasons and figures.
    const [refused] = await eventsOf(t, absurd.id, "claim-refused");
    expect(refused?.detail).toMatchObject({
      outcome: "refused",
      claimedProofsPerHour: 1e300,
      timedProofs: 0,
    });
    const [contradicted] = await eventsOf(t, inconsistent.id, "claim-refused");
    expect(contradicted?.detail).toMatchObject({
      contradicted: true,
      claimedProofsPerHour: 5000,
      recordsProofsPerHour: 60,
      modelProofsPerHour: expect.any(Number),
    });
    // No claim is evidence of the machine's speed: no host-performance row for either liar.
    const performance = await t.manager.store.performance.list();
    expect(performance.map((p) => p.instanceId)).not.toContain(absurd.id);
    expect(performance.map((p) => p.instanceId)).not.toContain(inconsistent.id);
    expect(Math.max(...performance.map((p) => p.proofsPerHour))).toBe(60);
    // Both lies are evidence against their machines (a second within the period excludes).
    const evidence = await t.manager.store.machineEvidence();
    expect(
      evidence
        .filter((e) => e.kind === "failure")
        .map((e) => e.instanceId)
        .sort(),
    ).toEqual([absurd.id, inconsistent.id].sort());

    // The fleet counts 60/h, not 1e300 or 5060; a step whose target the honest machine alone
    // meets keeps it, and rents nothing.
    expect(await fleetRate(t)).toBeCloseTo(60, 6);
    const step = await runFleetStep(t.manager, { target: { proofsPerHour: 50 } });
    expect(step.decisions).toEqual([]);
    expect((await t.manager.store.require(honestMachine.id)).state).toBe("active");
    // A second step does not touch it either.
    await runFleetStep(t.manager, { target: { proofsPerHour: 50 } });
    expect((await t.manager.store.require(honestMachine.id)).state).toBe("active");
  });

  it("refuses an old agent's report (records without times) with a reason, without crashing", async () => {
    fleet = await startTestFleet({ config: { minProofsPerHour: 40 } });
    const record = await fleet.manager.deploy(1002);
    const old = honest(60).map(({ submitMs: _s, settleMs: _e, ...r }) => r);
    const answer = await report(fleet, record.id, 60, old);
    expect(answer).toMatchObject({ keep: false, state: "rejected" });
    expect(answer.reason).toMatch(/upgrade the image/);
  });

  it("holds a claim over 3x the model as suspect: serves on probation at the model's rate until production confirms it", async () => {
    fleet = await startTestFleet({ config: { minProofsPerHour: 40 } });
    const t = fleet;
    const record = await t.manager.deploy(1002); // 2x RTX 3090: the model says about 62.6/h
    const answer = await report(t, record.id, 195, honest(195));
    expect(answer).toMatchObject({ keep: true, state: "active" });
    const onProbation = await readCountedRate(t.manager.store, record.id);
    expect(onProbation).toMatchObject({
      basis: "probation",
      claimedProofsPerHour: 195,
      benchmarkProofsPerHour: 195,
    });
    const model = onProbation?.modelProofsPerHour as number;
    expect(model).toBeGreaterThan(50);
    expect(model).toBeLessThan(65);
    expect(onProbation?.proofsPerHour).toBe(model);
    expect((await eventsOf(t, record.id, "claim-suspect"))[0]?.detail).toMatchObject({
      outcome: "suspect",
      claimedProofsPerHour: 195,
      modelProofsPerHour: model,
    });
    expect(await fleetRate(t)).toBe(model);
    // The dashboard's series and the ranking's history hold the model's rate, not the suspect claim.
    expect((await proofsPerHourSeries(t.manager.store, t.clock.now())).fleet.at(-1)).toBe(model);
    expect((await t.manager.store.performance.list({ instanceId: record.id }))[0]?.proofsPerHour).toBe(model);

    // Production the hardware cannot explain (over 3x the model) is an event, not evidence.
    t.clock.advance(30 * minute);
    await t.manager.agent.heartbeat(record.id);
    await t.manager.agent.throughput(record.id, { proofs: 500, windowMs: 30 * minute });
    expect((await eventsOf(t, record.id, "production-implausible"))[0]?.detail?.reason).toMatch(
      /over 3x the model's rate/,
    );
    expect((await t.manager.store.performance.list({ instanceId: record.id })).map((p) => p.kind)).toEqual([
      "benchmark",
    ]);

    // 85 proofs every 30 minutes (170/h, 87% of the benchmark): still on probation before a full window...
    await serve(t, 2, 85);
    expect((await readCountedRate(t.manager.store, record.id))?.basis).toBe("probation");
    // ...then confirmed, counted at production.
    await serve(t, 1, 85);
    expect(await readCountedRate(t.manager.store, record.id)).toMatchObject({
      basis: "production",
      proofsPerHour: 170,
      productionProofsPerHour: 170,
    });
    expect((await eventsOf(t, record.id, "claim-confirmed"))[0]?.detail?.reason).toMatch(
      /production 170\.0\/h \(agent\) confirms the benchmark's 195\.0\/h/,
    );
  });
});

describe("production is the truth once a machine serves", () => {
  it("counts a machine that drops to 0.6x at production within one window, replaces it below the keep rule, and the fleet gets back to target", async () => {
    fleet = await startTestFleet({ config: { minProofsPerHour: 40 } });
    const t = fleet;
    const target = { proofsPerHour: 50 };
    const first = await runFleetStep(t.manager, { target });
    expect(first.decisions).toEqual([expect.objectContaining({ action: "rent" })]);
    const [machine] = await t.manager.store.list();
    const id = machine?.id as string;
    expect((await report(t, id, 60, honest(60))).keep).toBe(true);
    expect(await readCountedRate(t.manager.store, id)).toMatchObject({
      basis: "benchmark",
      proofsPerHour: 60,
    });
    expect(await fleetRate(t)).toBe(60);

    // It throttles to 0.6x: 18 proofs per 30 minutes = 36/h. Within one window it counts at 36/h.
    await serve(t, 4, 18);
    expect(await readCountedRate(t.manager.store, id)).toMatchObject({
      state: "active",
      basis: "production",
      proofsPerHour: 36,
      belowKeepSince: t.clock.now(),
    });
    expect(await fleetRate(t)).toBe(36);
    expect((await proofsPerHourSeries(t.manager.store, t.clock.now())).fleet.at(-1)).toBe(36);
    expect((await eventsOf(t, id, "production-below"))[0]?.detail?.reason).toMatch(
      /production 36\.0\/h \(agent\) is below the minimum 40\.0\/h: replaced unless it recovers to 44\.0\/h within 120 min/,
    );

    // The planner sees the fleet under target and rents a replacement, which benchmarks honestly.
    const step = await runFleetStep(t.manager, { target });
    expect(step.decisions).toEqual([expect.objectContaining({ action: "rent" })]);
    const [replacement] = (await t.manager.store.list()).filter((r) => r.state === "booting");
    const replacementId = replacement?.id as string;
    expect((await report(t, replacementId, 60, honest(60))).keep).toBe(true);
    const proofsOf = (machine: string) => (machine === id ? 18 : 30); // 36/h and 60/h

    // Below for a full window (hysteresis): replaced, with the event saying why.
    await serve(t, 3, proofsOf);
    expect((await t.manager.store.require(id)).state).toBe("active");
    await serve(t, 1, proofsOf);
    expect((await t.manager.store.require(id)).state).toBe("destroyed");
    expect((await eventsOf(t, id, "production-replaced"))[0]?.detail?.reason).toMatch(
      /replaced: production 36\.0\/h stayed below the minimum 40\.0\/h for 120 min/,
    );

    // The fleet is back at target, counted at production, and the planner leaves it be.
    expect(await readCountedRate(t.manager.store, replacementId)).toMatchObject({
      state: "active",
      basis: "production",
      proofsPerHour: 60,
    });
    expect(await fleetRate(t)).toBeGreaterThanOrEqual(target.proofsPerHour);
    expect(
      (await runFleetStep(t.manager, { target })).decisions.filter((d) => d.action === "destroy"),
    ).toEqual([]);
  });
});
