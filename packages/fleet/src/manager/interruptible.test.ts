import { afterEach, describe, expect, it } from "vitest";
import {
  learnPreemptionRate,
  preemptionShare,
  priorPreemptionsPerHour,
  rentalPricing,
} from "../economics/interruptible.js";
import { noKnowledge, type RankCandidate, rankCandidates } from "../economics/ranking.js";
import { timedProofRecords } from "../evidence/benchmark-claim.js";
import { startTestFleet, type TestFleet } from "../test-support/test-fleet.js";
import { resolveFleetConfig } from "./config.js";
import { fleetMembers, runFleetStep } from "./fleet-run.js";

let fleet: TestFleet | undefined;
afterEach(async () => {
  await fleet?.close();
  fleet = undefined;
});

const hour = 3_600_000;
const createPath = /^\/api\/v0\/asks\/\d+\/$/;

async function keep(t: TestFleet, id: string, proofsPerHour: number) {
  await t.manager.agent.register(id, { agentVersion: "0.1.0" });
  for (const phase of ["params", "warmup", "benchmarking"] as const)
    await t.manager.agent.phase(id, { phase });
  const proofs = timedProofRecords({ count: 12, wallMs: hour / proofsPerHour });
  return t.manager.agent.report(id, { verdict: "MET", proofsPerHour, proofs });
}

describe("interruptible rentals: the price", () => {
  it("bids the factor times the minimum bid where that saves, else rents on-demand", () => {
    expect(rentalPricing({ dphTotal: 0.45, minBid: 0.2 }, 1.2)).toEqual({
      dphTotal: 0.24,
      bidPricePerHour: 0.24,
    });
    // A bid that would not save, no minimum bid, or no factor: on-demand.
    expect(rentalPricing({ dphTotal: 0.45, minBid: 0.4 }, 1.2)).toEqual({
      dphTotal: 0.45,
      bidPricePerHour: undefined,
    });
    expect(rentalPricing({ dphTotal: 0.45, minBid: undefined }, 1.2).bidPricePerHour).toBeUndefined();
    expect(rentalPricing({ dphTotal: 0.45, minBid: 0.2 }, undefined).bidPricePerHour).toBeUndefined();
    expect(() => resolveFleetConfig({ minProofsPerHour: 40, interruptibleBidFactor: 0.9 })).toThrow(
      /interruptibleBidFactor must be a number >= 1/,
    );
  });

  it("learns the preemption rate from the fleet's interruptible hours, shrunk toward the prior", () => {
    const rental = (bid: number | undefined, hours: number, preempted: boolean) => ({
      offer: { bidPricePerHour: bid } as never,
      state: "destroyed" as const,
      reason: preempted ? "preempted: Vast stopped the interruptible instance" : "operator destroy",
      createdAt: 0,
      updatedAt: hours * hour,
      lastHeartbeatAt: undefined,
    });
    const hours = (i: { createdAt: number; updatedAt: number }) => (i.updatedAt - i.createdAt) / hour;
    expect(learnPreemptionRate([], hours)).toBeCloseTo(priorPreemptionsPerHour, 12);
    // One preemption in 10 interruptible hours (on-demand rentals do not count): (1 + 1) / 30.
    expect(learnPreemptionRate([rental(0.2, 10, true), rental(undefined, 50, true)], hours)).toBeCloseTo(
      2 / 30,
      12,
    );
    // 100 quiet hours bring it down: 1 / 120.
    expect(learnPreemptionRate([rental(0.2, 100, false)], hours)).toBeCloseTo(1 / 120, 12);
    expect(preemptionShare(0.5, 2)).toBeCloseTo(Math.exp(-1), 12);
    expect(preemptionShare(0, 2)).toBe(1);
  });

  it("prices the preemption rate into the ranking: a cheap bid wins while preemptions are rare and loses once they are not", () => {
    const base: RankCandidate = {
      offerId: 1,
      machineId: 11,
      hostId: 21,
      classKey: "2x RTX 3090",
      dphTotal: 0.45,
      predictedProofsPerHour: 60,
      feasible: true,
      marketReliability: undefined,
    };
    const onDemand = base;
    const bid: RankCandidate = { ...base, offerId: 2, machineId: 12, dphTotal: 0.3, interruptible: true };
    const order = (preemptionsPerHour: number) =>
      rankCandidates(
        [onDemand, bid],
        { ...noKnowledge, preemptionsPerHour },
        {
          minProofsPerHour: 20,
          optimism: 0,
          setupOf: () => ({ hours: 1, usd: 0 }),
        },
      ).ranked.map((r) => r.candidate.offerId);
    // At the prior (1 per 20 h, 1 h of setup) it proves e^-0.05 of its hours: 0.3 / 0.95 < 0.45.
    expect(order(priorPreemptionsPerHour)).toEqual([2, 1]);
    // At one preemption an hour it proves e^-1 of them: 0.3 / 0.37 = 0.82 > 0.45.
    expect(order(1)).toEqual([1, 2]);
  });
});

describe("interruptible rentals: the fleet", () => {
  it("rents at the bid, and an outbid machine is destroyed, not held against the machine, and replaced", async () => {
    fleet = await startTestFleet({ config: { minProofsPerHour: 40, interruptibleBidFactor: 1.2 } });
    const t = fleet;
    const machine = await t.manager.deploy(1002); // $0.45/h on-demand, minimum bid $0.20
    const [create] = t.fake.requestsTo(createPath, "PUT");
    expect(create).toBeDefined();
    expect((create?.body as { price?: number } | undefined)?.price).toBe(0.24);
    expect(machine.offer).toMatchObject({ dphTotal: 0.24, bidPricePerHour: 0.24, onDemandDphTotal: 0.45 });
    expect(machine.dphPerHour).toBe(0.24);
    expect((await keep(t, machine.id, 60)).keep).toBe(true);

    // Another renter outbids it: Vast stops the instance.
    t.fake.setInstanceStatus(machine.vastId as number, "stopped");
    const summary = await t.manager.reconcile();
    expect(summary.preempted).toEqual([machine.id]);
    expect(summary.failedByVast).toEqual([]);
    const after = await t.manager.store.require(machine.id);
    expect(after.state).toBe("destroyed");
    expect(after.reason).toMatch(
      /^preempted: Vast stopped the interruptible instance \(outbid at a bid of \$0\.240\/h\)/,
    );
    expect(t.fake.instances.size).toBe(0);
    // The market's doing, not the machine's: evidence of its own kind, no exclusion, no failure rate.
    const evidence = await t.manager.store.machineEvidence();
    expect(evidence.map((e) => e.kind)).toEqual(["preempted"]);
    const report = await t.manager.machines();
    const row = report.machines.find((m) => m.machineId === machine.machineId);
    expect(row).toBeDefined();
    expect(row?.excluded).toBe(false);
    // The work goes elsewhere: the next step rents a replacement to meet the target.
    const step = await runFleetStep(t.manager, { target: { instances: 1 } });
    expect(step.decisions).toEqual([expect.objectContaining({ action: "rent" })]);
    expect(t.fake.requestsTo(createPath, "PUT")).toHaveLength(2);
  });

  it("counts a kept bid machine at the share of its hours that prove, so a target it alone would meet on-demand still rents", async () => {
    for (const bidFactor of [undefined, 1.2]) {
      fleet = await startTestFleet({ config: { minProofsPerHour: 40, interruptibleBidFactor: bidFactor } });
      const t = fleet;
      const machine = await t.manager.deploy(1002);
      expect((await keep(t, machine.id, 60)).keep).toBe(true);
      const [member] = await fleetMembers(t.manager);
      const step = await runFleetStep(t.manager, { target: { proofsPerHour: 59 } });
      if (bidFactor === undefined) {
        expect(member?.proofsPerHour).toBe(60);
        expect(step.decisions).toEqual([]);
      } else {
        // The prior (1 outbid per 20 h) and an hour of setup: 60 x e^-0.05 = 57.1 < 59.
        expect(member?.proofsPerHour).toBeCloseTo(60 * Math.exp(-priorPreemptionsPerHour), 6);
        expect(step.decisions).toEqual([expect.objectContaining({ action: "rent" })]);
      }
      await t.close();
      fleet = undefined;
    }
  });

  it("without --interruptible-bid rents on-demand and never reads a stopped status as a preemption", async () => {
    fleet = await startTestFleet({ config: { minProofsPerHour: 40 } });
    const t = fleet;
    const machine = await t.manager.deploy(1002);
    const [create] = t.fake.requestsTo(createPath, "PUT");
    expect(create).toBeDefined();
    expect((create?.body as { price?: number } | undefined)?.price).toBeUndefined();
    expect(machine.offer.bidPricePerHour).toBeUndefined();
    expect(machine.dphPerHour).toBe(0.45);
    expect((await keep(t, machine.id, 60)).keep).toBe(true);
    t.fake.setInstanceStatus(machine.vastId as number, "stopped");
    expect((await t.manager.reconcile()).preempted).toEqual([]);
  });
});
