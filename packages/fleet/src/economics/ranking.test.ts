import { describe, expect, it } from "vitest";
import { learnCalibration } from "./calibration.js";
import { hardwareClassKey, ramTierGib } from "./hardware-class.js";
import { interruptibleSetupHours, preemptionShare, priorPreemptionsPerHour } from "./interruptible.js";
import {
  type MachineMeasurements,
  noKnowledge,
  type RankCandidate,
  type RankingKnowledge,
  type RankingOptions,
  rankCandidates,
} from "./ranking.js";

const candidate = (offerId: number, over: Partial<RankCandidate> = {}): RankCandidate => ({
  offerId,
  machineId: offerId + 1000,
  hostId: offerId + 2000,
  classKey: "2x RTX 3090 | 256+ GiB | 32+ cores | EPYC",
  dphTotal: 0.5,
  predictedProofsPerHour: 60,
  feasible: true,
  marketReliability: undefined,
  ...over,
});
const measuredMachine = (...runs: number[]): MachineMeasurements => ({
  runsProofsPerHour: runs,
  excludedReason: undefined,
});

describe("hardware classes", () => {
  it.each([
    [255 * 2 ** 30, 256],
    [384 * 2 ** 30, 256],
    [2048 * 2 ** 30, 2048],
    [100 * 2 ** 30, 64],
  ])("%d bytes is in the %d GiB tier", (bytes, tier) => expect(ramTierGib(bytes)).toBe(tier));

  it("puts GPU model and count, RAM tier, core tier and CPU model in the key", () => {
    const key = hardwareClassKey({
      gpuName: "A40",
      numGpus: 2,
      cpuRamBytes: 2048 * 2 ** 30,
      cpuCores: 48,
      cpuName: "AMD EPYC 7742",
    });
    expect(key).toBe("2x A40 | 2048+ GiB | 32+ cores | AMD EPYC 7742");
  });
});

describe("calibration", () => {
  it("is the geometric mean of measured/predicted per class, with spread and samples", () => {
    const cal = learnCalibration([
      { classKey: "a", machineId: 1, measuredProofsPerHour: 30, predictedProofsPerHour: 60 },
      { classKey: "a", machineId: 2, measuredProofsPerHour: 120, predictedProofsPerHour: 60 },
      { classKey: "b", machineId: 3, measuredProofsPerHour: 0, predictedProofsPerHour: 60 },
    ]);
    expect(cal.get("a")?.factor).toBeCloseTo(1, 9);
    expect(cal.get("a")?.samples).toBe(2);
    expect(cal.get("a")?.spreadLog).toBeCloseTo(Math.log(4) / Math.sqrt(2), 6);
    expect(cal.has("b")).toBe(false);
  });
});

describe("the ranking rule", () => {
  it("uses this machine's measurement first, then the class calibration, then the model", () => {
    const knowledge = {
      calibration: learnCalibration([
        { classKey: "k", machineId: 9, measuredProofsPerHour: 30, predictedProofsPerHour: 60 },
      ]),
      machines: new Map([[1001, measuredMachine(50, 50)]]),
      hosts: new Map(),
    };
    const { ranked } = rankCandidates(
      [candidate(1), candidate(2, { classKey: "k" }), candidate(3, { classKey: "other" })],
      knowledge,
      { minProofsPerHour: 20 },
    );
    const byId = new Map(ranked.map((r) => [r.candidate.offerId, r]));
    expect(byId.get(1)).toMatchObject({
      source: "measured",
      measured: { runs: 2 },
    });
    expect(byId.get(1)?.estimateProofsPerHour).toBeCloseTo(50, 9);
    expect(byId.get(2)).toMatchObject({
      source: "corrected",
    });
    expect(byId.get(2)?.estimateProofsPerHour).toBeCloseTo(30, 9);
    expect(byId.get(3)).toMatchObject({
      source: "predicted",
      estimateProofsPerHour: 60,
      correctedProofsPerHour: undefined,
    });
    expect(byId.get(1)?.costPer1000).toBeCloseTo(10, 6);
  });

  it("explores an unmeasured offer only while its optimistic cost beats the best measured one", () => {
    // Measured: 50/h at $0.50 -> $10 per 1000. Unmeasured, modelled 40/h at $0.50: optimistic 40 x e^0.35 = 56.8/h.
    const knowledge = { ...noKnowledge, machines: new Map([[1001, measuredMachine(50, 50, 50)]]) };
    const { ranked } = rankCandidates(
      [candidate(1), candidate(2, { predictedProofsPerHour: 40 })],
      knowledge,
      {
        minProofsPerHour: 20,
      },
    );
    expect(ranked.map((r) => r.candidate.offerId)).toEqual([2, 1]);
    expect(ranked[0]?.worthTrying).toBe(true);
    // With no optimism the measured machine wins: pure exploitation.
    const greedy = rankCandidates([candidate(1), candidate(2, { predictedProofsPerHour: 40 })], knowledge, {
      minProofsPerHour: 20,
      optimism: 0,
    });
    expect(greedy.ranked.map((r) => r.candidate.offerId)).toEqual([1, 2]);
    expect(greedy.ranked[1]?.worthTrying).toBe(false);
  });

  it("narrows a class's bonus as it is measured", () => {
    const one = learnCalibration([
      { classKey: "k", machineId: 1, measuredProofsPerHour: 60, predictedProofsPerHour: 60 },
    ]);
    const many = learnCalibration(
      [58, 60, 62, 61, 59].map((m, i) => ({
        classKey: "k",
        machineId: i,
        measuredProofsPerHour: m,
        predictedProofsPerHour: 60,
      })),
    );
    const spreadOf = (calibration: typeof one) =>
      rankCandidates(
        [candidate(5, { classKey: "k" })],
        { ...noKnowledge, calibration },
        { minProofsPerHour: 20 },
      ).ranked[0]?.spreadLog as number;
    expect(spreadOf(many)).toBeLessThan(spreadOf(one));
    expect(spreadOf(one)).toBeLessThan(0.35);
  });

  it.each([
    ["an excluded machine", { excluded: "UNSTABLE" }, /excluded: UNSTABLE/],
    ["a machine measured below the minimum", { runs: [10, 12] }, /below the minimum 20/],
    ["an offer the tuner finds no config for", { infeasible: true }, /no safe config/],
  ])("leaves out %s", (_name, setup, reason) => {
    const machines = new Map<number, MachineMeasurements>();
    if ("excluded" in setup)
      machines.set(1001, { runsProofsPerHour: [], excludedReason: setup.excluded as string });
    if ("runs" in setup) machines.set(1001, measuredMachine(...(setup.runs as number[])));
    const { ranked, excluded } = rankCandidates(
      [candidate(1, { feasible: !("infeasible" in setup) })],
      { ...noKnowledge, machines },
      { minProofsPerHour: 20 },
    );
    expect(ranked).toEqual([]);
    expect(excluded[0]?.reason).toMatch(reason);
  });

  it("discounts a host that failed before, by Laplace's rule", () => {
    const hosts = new Map([[2001, { attempts: 1, failures: 1 }]]);
    const { ranked } = rankCandidates(
      [candidate(1), candidate(2)],
      { ...noKnowledge, hosts },
      { minProofsPerHour: 20 },
    );
    expect(ranked.map((r) => [r.candidate.offerId, r.reliability])).toEqual([
      [2, 1],
      [1, 0.5],
    ]);
  });
});

describe("ranking under a price keep rule", () => {
  it("gives each offer its own floor from its price, leaves out a machine measured above the ceiling, and ranks first what can pay for itself", () => {
    const cheap = candidate(1, { dphTotal: 0.45 }); // floor 30/h at $15 per 1000 proofs
    const dear = candidate(2, { dphTotal: 1.2 }); // floor 80/h
    const priceyModel = candidate(3, { dphTotal: 1.5, predictedProofsPerHour: 150 }); // floor 100/h, $10 per 1000
    const hopeless = candidate(4, { dphTotal: 0.1, predictedProofsPerHour: 5 }); // floor 6.7/h, reaches 5
    const knowledge = {
      ...noKnowledge,
      machines: new Map([
        [1001, measuredMachine(60, 60)],
        [1002, measuredMachine(60, 60)],
      ]),
    };
    const { ranked, excluded } = rankCandidates([cheap, dear, priceyModel, hopeless], knowledge, {
      minProofsPerHour: 0,
      maxUsdPer1000Proofs: 15,
      optimism: 0,
    });
    // The dear machine measured 60/h: $20 per 1000 proofs, above the ceiling.
    expect(excluded.map((e) => [e.candidate.offerId, e.reason])).toEqual([
      [2, "measured 60.0 proofs/hour, below the minimum 80.0/h ($1.200/h at most $15.00 per 1000 proofs)"],
    ]);
    const floors = new Map(ranked.map((r) => [r.candidate.offerId, r.keepMinimumProofsPerHour]));
    expect(floors.get(1)).toBeCloseTo(30, 9);
    expect(floors.get(3)).toBeCloseTo(100, 9);
    expect(floors.get(4)).toBeCloseTo(100 / 15, 9);
    // The cheapest per proof that cannot reach its own floor goes last.
    expect(ranked.map((r) => r.candidate.offerId)).toEqual([1, 3, 4]);
    // Without the ceiling the same measurements keep the dear machine.
    const floorOnly = rankCandidates([cheap, dear], knowledge, { minProofsPerHour: 40, optimism: 0 });
    expect(floorOnly.excluded).toEqual([]);
    expect(floorOnly.ranked.every((r) => r.keepMinimumProofsPerHour === 40)).toBe(true);
  });
});

// The arithmetic behind which offer is rented first: each rule on its own, with exact figures.
describe("the ranking's figures", () => {
  const rank = (
    candidates: RankCandidate[],
    knowledge: Partial<RankingKnowledge> = {},
    options: Partial<RankingOptions> = {},
  ) => rankCandidates(candidates, { ...noKnowledge, ...knowledge }, { minProofsPerHour: 20, ...options });

  it("ranks an unmeasured offer at the model's rate with the model's spread as its bonus", () => {
    const [r] = rank([candidate(1)]).ranked;
    expect(r).toMatchObject({
      source: "predicted",
      estimateProofsPerHour: 60,
      spreadLog: 0.35,
      failureRate: 0,
    });
    expect(r?.optimisticProofsPerHour).toBeCloseTo(60 * Math.exp(0.35), 9);
    expect(r?.costPer1000).toBeCloseTo((0.5 * 1000) / 60, 9);
    expect(r?.optimisticCostPer1000).toBeCloseTo((0.5 * 1000) / (60 * Math.exp(0.35)), 9);
    // The options move it: a narrower model, more optimism.
    const [narrow] = rank([candidate(1)], {}, { modelSpreadLog: 0.2, optimism: 2 }).ranked;
    expect(narrow?.optimisticProofsPerHour).toBeCloseTo(60 * Math.exp(0.4), 9);
  });

  it("takes a measured machine at the geometric mean of its runs, its spread shrinking with their count", () => {
    const machines = new Map([[1001, measuredMachine(40, 60, 0)]]);
    const [r] = rank([candidate(1)], { machines }).ranked;
    // The 0 (a failed run) is not a rate.
    expect(r?.measured).toEqual({ proofsPerHour: Math.sqrt(40 * 60), runs: 2 });
    expect(r?.estimateProofsPerHour).toBeCloseTo(Math.sqrt(2400), 9);
    const sd = Math.abs(Math.log(60) - Math.log(40)) / Math.sqrt(2);
    expect(r?.spreadLog).toBeCloseTo(sd / Math.sqrt(2), 9);
    // Identical runs: the run-to-run floor, over the square root of the count.
    const [steady] = rank([candidate(1)], {
      machines: new Map([[1001, measuredMachine(50, 50, 50, 50)]]),
    }).ranked;
    expect(steady?.spreadLog).toBeCloseTo(0.05 / 2, 9);
    const [floored] = rank(
      [candidate(1)],
      { machines: new Map([[1001, measuredMachine(50, 50, 50, 50)]]) },
      { runSpreadFloorLog: 0.2 },
    ).ranked;
    expect(floored?.spreadLog).toBeCloseTo(0.1, 9);
    // One run: no spread of its own, the floor.
    const [once] = rank([candidate(1)], { machines: new Map([[1001, measuredMachine(50)]]) }).ranked;
    expect(once?.spreadLog).toBeCloseTo(0.05, 9);
  });

  it("uses a machine's latest production rate before the mean of its runs", () => {
    const machines = new Map([[1001, { ...measuredMachine(50, 50), currentProofsPerHour: 42 }]]);
    const [r] = rank([candidate(1)], { machines }).ranked;
    expect(r?.estimateProofsPerHour).toBe(42);
    expect(r?.measured?.proofsPerHour).toBeCloseTo(50, 9);
  });

  it("corrects an unmeasured offer by its class, with a spread that narrows with the class's samples", () => {
    const calibration = (samples: number, spreadLog: number) =>
      new Map([["k", { classKey: "k", factor: 0.5, samples, spreadLog, machines: samples }]]);
    const one = rank([candidate(1, { classKey: "k" })], { calibration: calibration(1, 0) }).ranked[0];
    expect(one).toMatchObject({ source: "corrected", estimateProofsPerHour: 30, correctedProofsPerHour: 30 });
    // One sample: half the model's spread (above the class floor), plus the mean's own error.
    expect(one?.spreadLog).toBeCloseTo(0.175 * Math.sqrt(2), 9);
    const many = rank([candidate(1, { classKey: "k" })], { calibration: calibration(4, 0.2) }).ranked[0];
    expect(many?.spreadLog).toBeCloseTo(0.2 * Math.sqrt(1 + 1 / 4), 9);
    const tight = rank([candidate(1, { classKey: "k" })], { calibration: calibration(4, 0.01) }).ranked[0];
    expect(tight?.spreadLog).toBeCloseTo(0.1 * Math.sqrt(1 + 1 / 4), 9);
    const custom = rank(
      [candidate(1, { classKey: "k" })],
      { calibration: calibration(4, 0.2) },
      { correct: (c, cal) => c.predictedProofsPerHour * cal.factor + 1, classSpreadFloorLog: 0.3 },
    ).ranked[0];
    expect(custom?.estimateProofsPerHour).toBe(31);
    expect(custom?.spreadLog).toBeCloseTo(0.3 * Math.sqrt(1 + 1 / 4), 9);
  });

  it("discounts by the machine's own failure rate first, then its host's, then the fleet's", () => {
    const hosts = new Map([[2001, { attempts: 4, failures: 1, failureRate: 0.3 }]]);
    const machines = new Map([[1001, { ...measuredMachine(), failureRate: 0.1 }]]);
    expect(rank([candidate(1)], { hosts, machines }).ranked[0]?.failureRate).toBe(0.1);
    expect(rank([candidate(1)], { hosts }).ranked[0]?.failureRate).toBe(0.3);
    const counted = new Map([[2001, { attempts: 4, failures: 1 }]]);
    expect(rank([candidate(1)], { hosts: counted }).ranked[0]?.failureRate).toBeCloseTo(1 / 5, 9);
    expect(rank([candidate(1)], { fleetFailureRate: 0.25 }).ranked[0]?.failureRate).toBe(0.25);
    const [r] = rank([candidate(1, { marketReliability: 0.9 })], { fleetFailureRate: 0.25 }).ranked;
    expect(r?.reliability).toBeCloseTo(0.9 * 0.75, 9);
    expect(r?.costPer1000).toBeCloseTo((0.5 * 1000) / (60 * 0.9 * 0.75), 9);
    // A host that always fails still gets a floor of 5%, so it ranks last rather than dividing by zero.
    expect(rank([candidate(1)], { fleetFailureRate: 1 }).ranked[0]?.reliability).toBe(0.05);
  });

  it("counts an interruptible rental's preemptions: each one redoes its setup", () => {
    const [bid] = rank([candidate(1, { interruptible: true })], { preemptionsPerHour: 0.2 }).ranked;
    expect(bid?.preemptionShare).toBeCloseTo(preemptionShare(0.2, interruptibleSetupHours), 9);
    expect(bid?.reliability).toBeCloseTo(Math.exp(-0.2), 9);
    const [prior] = rank([candidate(1, { interruptible: true })]).ranked;
    expect(prior?.preemptionShare).toBeCloseTo(preemptionShare(priorPreemptionsPerHour, 1), 9);
    const [slow] = rank(
      [candidate(1, { interruptible: true })],
      { preemptionsPerHour: 0.2 },
      {
        setupOf: () => ({ hours: 3, usd: 0 }),
      },
    ).ranked;
    expect(slow?.preemptionShare).toBeCloseTo(Math.exp(-0.6), 9);
    expect(rank([candidate(1)], { preemptionsPerHour: 0.2 }).ranked[0]?.preemptionShare).toBe(1);
  });

  it("charges the setup over the hours left, and leaves out an offer whose setup does not end in time", () => {
    const setupOf = () => ({ hours: 1, usd: 2 });
    const [r] = rank([candidate(1)], {}, { hoursLeft: 10, setupOf }).ranked;
    // $0.50/h for 10 h plus $2, over the 9 h that prove.
    const charge = (0.5 * 10 + 2) / (0.5 * 9);
    expect(r?.costPer1000).toBeCloseTo(((0.5 * 1000) / 60) * charge, 9);
    expect(r?.optimisticCostPer1000).toBeCloseTo(((0.5 * 1000) / (60 * Math.exp(0.35))) * charge, 9);
    const late = rank([candidate(1)], {}, { hoursLeft: 1, setupOf });
    expect(late.ranked).toEqual([]);
    expect(late.excluded[0]?.reason).toMatch(/does not end in the 1.0 h left/);
    // No end: no charge.
    expect(rank([candidate(1)], {}, { setupOf }).ranked[0]?.costPer1000).toBeCloseTo((0.5 * 1000) / 60, 9);
  });

  it("leaves out an offer with no positive price or no rate", () => {
    expect(rank([candidate(1, { dphTotal: 0 })]).excluded[0]?.reason).toMatch(/no positive price/);
    expect(rank([candidate(1, { predictedProofsPerHour: 0 })]).excluded[0]?.reason).toMatch(/no safe config/);
    // An offer with no machine id is ranked on the model.
    expect(rank([candidate(1, { machineId: undefined, hostId: undefined })]).ranked[0]?.source).toBe(
      "predicted",
    );
  });

  it("judges worth trying against the fleet's best measured cost too, and breaks cost ties by offer id", () => {
    // Optimistic $6.16 per 1000: worth trying against nothing measured, not against a running $5.
    expect(rank([candidate(1)]).ranked[0]?.worthTrying).toBe(true);
    expect(rank([candidate(1)], {}, { bestMeasuredCostPer1000: 5 }).ranked[0]?.worthTrying).toBe(false);
    expect(rank([candidate(1)], {}, { bestMeasuredCostPer1000: 7 }).ranked[0]?.worthTrying).toBe(true);
    expect(rank([candidate(7), candidate(3), candidate(5)]).ranked.map((r) => r.candidate.offerId)).toEqual([
      3, 5, 7,
    ]);
  });
});

describe("the ranking's edges", () => {
  const rank = (
    candidates: RankCandidate[],
    knowledge: Partial<RankingKnowledge> = {},
    options: Partial<RankingOptions> = {},
  ) => rankCandidates(candidates, { ...noKnowledge, ...knowledge }, { minProofsPerHour: 20, ...options });

  it("takes the runs' spread as a sample standard deviation of their logs", () => {
    const runs = [40, 50, 60];
    const logs = runs.map(Math.log);
    const mean = logs.reduce((a, b) => a + b, 0) / 3;
    const sd = Math.sqrt(logs.reduce((a, b) => a + (b - mean) ** 2, 0) / 2);
    const [r] = rank([candidate(1)], { machines: new Map([[1001, measuredMachine(...runs)]]) }).ranked;
    expect(r?.spreadLog).toBeCloseTo(sd / Math.sqrt(3), 9);
  });

  it("keeps a machine measured exactly at its minimum", () => {
    // 20 and 20: through logs their geometric mean lands a rounding error below 20.
    for (const rate of [40, 20, 0.7]) {
      const { ranked, excluded } = rank(
        [candidate(1)],
        { machines: new Map([[1001, measuredMachine(rate, rate)]]) },
        { minProofsPerHour: rate },
      );
      expect(excluded, `${rate}/h`).toEqual([]);
      expect(ranked[0]?.source).toBe("measured");
      expect(ranked[0]?.measured?.proofsPerHour).toBe(rate);
    }
  });

  it("charges no setup when an end is given but no setup", () => {
    const [r] = rank([candidate(1)], {}, { hoursLeft: 10 }).ranked;
    expect(r?.costPer1000).toBeCloseTo((0.5 * 1000) / 60, 9);
  });

  it("calls every unmeasured offer worth trying while nothing is measured, and never a measured one", () => {
    const { ranked } = rank([candidate(1), candidate(2, { dphTotal: 2 })]);
    expect(ranked.map((r) => r.worthTrying)).toEqual([true, true]);
    const measured = rank([candidate(1)], { machines: new Map([[1001, measuredMachine(60, 60)]]) }).ranked[0];
    expect(measured?.worthTrying).toBe(false);
  });

  it("is worth trying only when strictly cheaper at its best than the best measured", () => {
    const [r] = rank([candidate(1)]).ranked;
    const exact = r?.optimisticCostPer1000 as number;
    expect(rank([candidate(1)], {}, { bestMeasuredCostPer1000: exact }).ranked[0]?.worthTrying).toBe(false);
  });

  it("ranks first what can reach its keep minimum (at its best), then by cost", () => {
    // The cheap one cannot reach 50/h even at its optimistic 30 x e^0.35 = 42.6/h.
    const cheap = candidate(1, { dphTotal: 0.1, predictedProofsPerHour: 30 });
    const able = candidate(2, { dphTotal: 1, predictedProofsPerHour: 100 });
    expect(rank([cheap, able], {}, { minProofsPerHour: 50 }).ranked.map((r) => r.candidate.offerId)).toEqual([
      2, 1,
    ]);
    // Exactly at the minimum counts as reaching it.
    const atFloor = candidate(3, { dphTotal: 1, predictedProofsPerHour: 50 });
    const below = candidate(4, { dphTotal: 0.1, predictedProofsPerHour: 40 });
    expect(
      rank([below, atFloor], {}, { minProofsPerHour: 50, optimism: 0 }).ranked.map(
        (r) => r.candidate.offerId,
      ),
    ).toEqual([3, 4]);
  });
});
