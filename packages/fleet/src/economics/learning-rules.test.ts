import { describe, expect, it } from "vitest";
import type { RateSample } from "./calibration.js";
import { classLevels, levelledCalibration } from "./calibration-levels.js";
import { deathHazards, hazardAsFailureRate } from "./death-hazard.js";
import { fitPriors } from "./priors.js";
import { type RankCandidate, rankCandidates } from "./ranking.js";
import { type FleetMember, planFleetStep } from "./run-planner.js";

const candidate = (offerId: number, over: Partial<RankCandidate> = {}): RankCandidate => ({
  offerId,
  machineId: offerId + 1000,
  hostId: offerId + 2000,
  classKey: "2x RTX 3090 | 256+ GiB | 32+ cores | EPYC",
  dphTotal: 0.5,
  predictedProofsPerHour: 100,
  feasible: true,
  marketReliability: undefined,
  ...over,
});
const sample = (classKey: string, machineId: number, ratio: number): RateSample => ({
  classKey,
  machineId,
  measuredProofsPerHour: 100 * ratio,
  predictedProofsPerHour: 100,
});

describe("deaths as evidence", () => {
  it("one death does not exclude a machine: it is priced at a shrunk hazard", () => {
    const hazards = deathHazards({ deaths: 1, rentedHours: 40 }, { priorPerHour: 0.01, priorHours: 12 });
    const once = hazards.machinePerHour({ deaths: 1, rentedHours: 2 }, { deaths: 1, rentedHours: 2 });
    expect(hazardAsFailureRate(once, 0.75)).toBeLessThan(0.15);
    const ranked = rankCandidates(
      [candidate(1)],
      {
        calibration: new Map(),
        machines: new Map([
          [
            1001,
            {
              runsProofsPerHour: [100],
              excludedReason: undefined,
              failureRate: hazardAsFailureRate(once, 0.75),
            },
          ],
        ]),
        hosts: new Map(),
      },
      { minProofsPerHour: 40 },
    ).ranked;
    expect(ranked).toHaveLength(1);
    // A host that dies every two hours climbs toward its true rate (0.5/h) and is priced out.
    const flaky = hazards.machinePerHour({ deaths: 6, rentedHours: 12 }, { deaths: 6, rentedHours: 12 });
    expect(flaky).toBeGreaterThan(0.25);
    expect(hazardAsFailureRate(flaky, 0.75)).toBeGreaterThan(0.2);
  });

  it("a hazard that strikes at random is learnt as the fleet's, not pinned on the unlucky machine", () => {
    const hazards = deathHazards({ deaths: 10, rentedHours: 200 }, { priorPerHour: 0.01 });
    expect(hazards.fleetPerHour).toBeGreaterThan(0.04);
    const unlucky = hazards.machinePerHour({ deaths: 1, rentedHours: 10 }, undefined);
    const clean = hazards.machinePerHour({ deaths: 0, rentedHours: 10 }, undefined);
    // The unlucky machine costs a few percent more per proof, not an exclusion.
    expect(hazardAsFailureRate(unlucky, 0.75) - hazardAsFailureRate(clean, 0.75)).toBeLessThan(0.05);
  });
});

describe("production rates replace benchmark rates", () => {
  it("a machine is ranked at its latest production rate, not its benchmark's", () => {
    const knowledge = (current: number | undefined) => ({
      calibration: new Map(),
      machines: new Map([
        [
          1001,
          { runsProofsPerHour: [120, 118, 60], excludedReason: undefined, currentProofsPerHour: current },
        ],
      ]),
      hosts: new Map(),
    });
    const now = rankCandidates([candidate(1)], knowledge(60), { minProofsPerHour: 40 }).ranked[0];
    const mean = rankCandidates([candidate(1)], knowledge(undefined), { minProofsPerHour: 40 }).ranked[0];
    expect(now?.estimateProofsPerHour).toBe(60);
    expect(mean?.estimateProofsPerHour).toBeGreaterThan(90);
  });
});

describe("exploration charged for its setup and the hours left", () => {
  it("charges the setup over the hours left, and leaves out what cannot prove before the end", () => {
    const setupOf = () => ({ hours: 1, usd: 0.5 });
    const rank = (hoursLeft: number | undefined) =>
      rankCandidates(
        [candidate(1)],
        { calibration: new Map(), machines: new Map(), hosts: new Map() },
        {
          minProofsPerHour: 40,
          hoursLeft,
          setupOf,
        },
      );
    const open = rank(undefined).ranked[0]?.costPer1000 as number;
    const morning = rank(20).ranked[0]?.costPer1000 as number;
    const evening = rank(3).ranked[0]?.costPer1000 as number;
    expect(open).toBeCloseTo(5, 9);
    expect(morning).toBeCloseTo(((0.5 * 20 + 0.5) * 1000) / (100 * 19), 9);
    expect(evening).toBeGreaterThan(morning * 1.4);
    expect(rank(0.9).excluded[0]?.reason).toMatch(/does not end/);
  });
});

describe("calibration at coarser levels when a class is thin", () => {
  it("a class never measured borrows from its GPU and RAM tier, then its GPU model", () => {
    const a = "2x RTX 3090 | 256+ GiB | 32+ cores | EPYC";
    const sameTier = "2x RTX 3090 | 256+ GiB | 64+ cores | Xeon";
    const sameGpu = "4x RTX 3090 | 512+ GiB | 64+ cores | Xeon";
    const other = "1x A40 | 256+ GiB | 32+ cores | EPYC";
    expect(classLevels(a)).toEqual({ gpuModel: "RTX 3090", gpuAndRam: "2x RTX 3090 | 256+ GiB" });
    const samples = [sample(a, 1, 1.5), sample(a, 2, 1.5), sample(a, 3, 1.5)];
    const cal = levelledCalibration(samples, [a, sameTier, sameGpu, other]);
    expect(cal.get(a)?.factor).toBeGreaterThan(1.4);
    expect(cal.get(sameTier)?.factor).toBeGreaterThan(1.3);
    expect(cal.get(sameGpu)?.factor).toBeGreaterThan(1.2);
    expect(cal.get(sameGpu)?.factor).toBeLessThan(cal.get(sameTier)?.factor as number);
    expect(cal.has(other)).toBe(false);
  });

  it("a thin class is shrunk toward its coarser level, a full one keeps its own", () => {
    const a = "2x RTX 3090 | 256+ GiB | 32+ cores | EPYC";
    const b = "2x RTX 3090 | 256+ GiB | 64+ cores | Xeon";
    const samples = [...[1, 2, 3, 4, 5, 6].map((m) => sample(a, m, 1.5)), sample(b, 9, 0.8)];
    const cal = levelledCalibration(samples, [a, b]);
    expect(cal.get(b)?.factor).toBeGreaterThan(0.9);
    expect(cal.get(a)?.factor).toBeGreaterThan(1.3);
  });
});

describe("priors fitted from data", () => {
  it("recovers the model's spread, the class spread and the hazard from measurements", () => {
    const samples: RateSample[] = [];
    const biases = [0.6, 1.4, 0.9, 1.2, 0.7, 1.1];
    biases.forEach((bias, c) => {
      for (let m = 0; m < 4; m += 1)
        samples.push(sample(`c${c}`, c * 10 + m, bias * (m % 2 === 0 ? 1.05 : 1 / 1.05)));
    });
    const fitted = fitPriors(samples, { deaths: 3, rentedHours: 300 });
    const rms = Math.sqrt(biases.reduce((a, b) => a + Math.log(b) ** 2, 0) / biases.length);
    expect(fitted.modelSpreadLog).toBeCloseTo(Math.sqrt(rms ** 2 + Math.log(1.05) ** 2), 2);
    expect(fitted.classSpreadLog).toBeGreaterThan(0.04);
    expect(fitted.classSpreadLog).toBeLessThan(0.07);
    expect(fitted.hazardPerHour).toBeCloseTo(0.01, 9);
  });
});

describe("the last gap filled by $ per useful proof", () => {
  it("rents a machine the gap's size rather than a big one whose excess is wasted", () => {
    const members: FleetMember[] = [{ instanceId: "a", stage: "active", dphPerHour: 1, proofsPerHour: 280 }];
    const ranked = rankCandidates(
      [
        candidate(1, { dphTotal: 1.6, predictedProofsPerHour: 400 }),
        candidate(2, { dphTotal: 0.3, predictedProofsPerHour: 50 }),
      ],
      { calibration: new Map(), machines: new Map(), hosts: new Map() },
      { minProofsPerHour: 40, optimism: 0 },
    ).ranked;
    expect(ranked[0]?.candidate.offerId).toBe(1); // $4/1000 beats $6/1000 per proof
    const plan = (usefulRate: boolean) =>
      planFleetStep({ members, ranked, target: { proofsPerHour: 300 }, usefulRate }).map((d) =>
        d.action === "rent" ? d.offerId : d.instanceId,
      );
    expect(plan(false)).toEqual([1]);
    expect(plan(true)).toEqual([2]);
  });
});
