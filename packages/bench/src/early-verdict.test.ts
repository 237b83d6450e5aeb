import { InvalidInputError } from "@cuzkit/core";
import { describe, expect, it } from "vitest";
import { createEarlyVerdictTest, resolveEarlyVerdictOptions } from "./early-verdict.js";
import { basisProofsPerHour, rateBasis } from "./proof-rate.js";
import { studentTQuantile } from "./student-t.js";
import {
  runSyntheticBatch,
  type SyntheticMachine,
  sustainedProofsPerHour,
} from "./test-support/synthetic-proofs.js";

// The early verdict fed synthetic proof timings (seeded, no real time): lognormal stage times,
// synthesis pipelined behind the GPU, the threshold set from each machine's long-run rate.

const machines: Record<string, SyntheticMachine> = {
  "one slot, CV 0.3": { concurrency: 1, synthesisMs: 40_000, gpuMs: 80_000, cv: 0.3 },
  "2 slots on 1 GPU, CV 0.3": { concurrency: 2, synthesisMs: 60_000, gpuMs: 100_000, cv: 0.3 },
  "2 slots on 1 GPU, CV 0.2": { concurrency: 2, synthesisMs: 60_000, gpuMs: 100_000, cv: 0.2 },
  "3 slots on 2 GPUs, CV 0.2": { concurrency: 3, gpus: 2, synthesisMs: 50_000, gpuMs: 100_000, cv: 0.2 },
  "4 slots on 2 GPUs, CV 0.1": { concurrency: 4, gpus: 2, synthesisMs: 50_000, gpuMs: 100_000, cv: 0.1 },
};
const seeds = Array.from({ length: 100 }, (_, i) => i + 1);

/** Runs 100 seeded batches of `machine` at `factor` x the threshold. */
function hundredRuns(name: string, factor: number, count: number) {
  const machine = machines[name] as SyntheticMachine;
  const threshold = sustainedProofsPerHour(machine) / factor;
  return seeds.map((seed) => runSyntheticBatch(machine, threshold, count, seed));
}

describe("early verdict inside the indifference zone", () => {
  it.each([
    ["one slot, CV 0.3", 0.95],
    ["one slot, CV 0.3", 1.05],
    ["2 slots on 1 GPU, CV 0.3", 0.95],
    ["2 slots on 1 GPU, CV 0.3", 1.05],
    ["3 slots on 2 GPUs, CV 0.2", 0.95],
    ["3 slots on 2 GPUs, CV 0.2", 1.05],
  ])("%s at %sx the threshold: no early verdict on the wrong side in 100 seeds", (name, factor) => {
    const runs = hundredRuns(name, factor, 12);
    const wrongSide = runs.filter((r) => r.decision && r.decision.above !== factor > 1);
    expect(wrongSide).toHaveLength(0);
    // Without an early verdict the whole batch ran.
    for (const run of runs) if (!run.decision) expect(run.proofs).toBe(12);
  });
});

describe("early verdict far from the threshold", () => {
  it.each([
    ["2 slots on 1 GPU, CV 0.2", 0.7, 24],
    ["2 slots on 1 GPU, CV 0.2", 1.4, 24],
    ["3 slots on 2 GPUs, CV 0.2", 0.7, 24],
    ["3 slots on 2 GPUs, CV 0.2", 1.4, 24],
    ["4 slots on 2 GPUs, CV 0.1", 0.7, 12],
    ["4 slots on 2 GPUs, CV 0.1", 1.4, 12],
  ])(
    "%s at %sx the threshold of a %s-proof batch: stops early, right, in >= 90 of 100 seeds",
    (name, factor, count) => {
      const runs = hundredRuns(name, factor, count);
      const early = runs.filter((r) => r.decision !== undefined && r.proofs < count);
      expect(early.length).toBeGreaterThanOrEqual(90);
      expect(early.every((r) => r.decision?.above === factor > 1)).toBe(true);
    },
  );
});

describe("the early verdict's rate is the report's rate", () => {
  it("states the rate over exactly the proofs it decided on, as the report computes it", () => {
    let decided = 0;
    for (const run of hundredRuns("2 slots on 1 GPU, CV 0.2", 1.4, 24)) {
      if (!run.decision) continue;
      decided++;
      expect(run.decision.info.proofsPerHour).toBe(run.proofsPerHour);
      expect(run.decision.info.samples).toBe(run.basis.proofs);
      expect(run.decision.info.slots).toBe(run.basis.slots);
      expect(run.decision.info.boundProofsPerHour).toBeLessThanOrEqual(run.proofsPerHour);
    }
    expect(decided).toBeGreaterThan(0);
  });

  it("rests on slots x completions per slot-hour", () => {
    // Two slots, 3 proofs in 300 s of slot time: 2 x 3 x 3600 / 300 = 72 proofs/hour.
    const cycles = [
      { slot: 1, cycleMs: 100_000 },
      { slot: 2, cycleMs: 110_000 },
      { slot: 1, cycleMs: 90_000 },
    ];
    expect(rateBasis(cycles)).toEqual({ proofs: 3, slots: 2, slotTimeMs: 300_000 });
    expect(basisProofsPerHour(rateBasis(cycles))).toBe(72);
  });
});

describe("early verdict guards", () => {
  // Concurrency 2 against 40 proofs/hour: a 180 s mean cycle is the threshold.
  it("waits for the minimum samples, even when the cycles are identical and far from the threshold", () => {
    const test = createEarlyVerdictTest(40, 2);
    for (let i = 0; i < 4; i++) expect(test.add(90_000)).toBeUndefined();
    expect(test.add(90_000)).toMatchObject({ above: true, info: { test: "confidence-bound", samples: 5 } });
  });

  it("waits until every slot has completed a proof", () => {
    const test = createEarlyVerdictTest(40, 2, { minSamples: 2 });
    for (let i = 0; i < 6; i++) expect(test.add(90_000, 1)).toBeUndefined();
    expect(test.add(90_000, 2)?.above).toBe(true);
  });

  it("decides BELOW for a machine at half the threshold", () => {
    const test = createEarlyVerdictTest(40, 2);
    const decisions = [360_000, 350_000, 370_000, 365_000, 355_000].map((c) => test.add(c));
    expect(decisions.at(-1)?.above).toBe(false);
  });

  it("never stops early while the estimate is inside the indifference zone", () => {
    // 7% above the threshold with no noise at all: the bound clears 40, the estimate is inside +-10%.
    const test = createEarlyVerdictTest(40, 2, { maxSamples: 100 });
    for (let i = 0; i < 100; i++) expect(test.add(180_000 / 1.07)).toBeUndefined();
  });

  it.each([
    [{ confidence: 1.5 }, /confidence/],
    [{ minSamples: 1 }, /minSamples/],
    [{ maxSamples: 0 }, /maxSamples/],
    [{ indifference: 1 }, /indifference/],
  ])("rejects %j", (options, message) => {
    expect(() => createEarlyVerdictTest(40, 2, options)).toThrow(message);
  });
});

// The test's own arithmetic, on hand-made cycles: which side it stops on, when, and the bound
// it reports (the report prints it). The long-run variance follows the doc comment of
// early-verdict.ts: the sample variance plus twice the autocovariances up to lag slots - 1.
describe("early verdict arithmetic", () => {
  const hourMs = 3_600_000;
  /** The reference bound for cycles run round robin on `slots` slots. */
  function referenceBounds(
    cyclesMs: number[],
    slots: number,
    o: { confidence: number; minVariation: number; maxSamples: number; minSamples: number },
  ) {
    const n = cyclesMs.length;
    const mean = cyclesMs.reduce((a, b) => a + b, 0) / n;
    const d = cyclesMs.map((c) => c - mean);
    const variance = d.reduce((a, x) => a + x * x, 0) / (n - 1);
    let cov = 0;
    for (let lag = 1; lag < Math.min(slots, n - 1); lag++) {
      let sum = 0;
      for (let i = 0; i + lag < n; i++) sum += (d[i] as number) * (d[i + lag] as number);
      cov += sum / (n - 1);
    }
    const sd = Math.max(Math.sqrt(Math.max(variance, variance + 2 * cov)), o.minVariation * mean);
    const looks = Math.max(1, o.maxSamples - Math.max(o.minSamples, slots) + 1);
    const margin = (studentTQuantile((1 - o.confidence) / looks, n - 1) * sd) / Math.sqrt(n);
    return { lower: (slots * hourMs) / (mean + margin), upper: (slots * hourMs) / (mean - margin) };
  }

  it("stops MET at the first look once the bound clears the zone, reporting the bound and the basis", () => {
    const options = { confidence: 0.9, minVariation: 0.1, maxSamples: 12, minSamples: 5 };
    const test = createEarlyVerdictTest(30, 1, { ...options, indifference: 0.1 });
    const cycles = [60_000, 62_000, 58_000, 61_000, 59_000];
    const decisions = cycles.map((c) => test.add(c));
    expect(decisions.slice(0, 4)).toEqual([undefined, undefined, undefined, undefined]);
    const decision = decisions[4];
    expect(decision?.above).toBe(true);
    expect(decision?.info).toMatchObject({
      test: "confidence-bound",
      confidence: 0.9,
      indifference: 0.1,
      samples: 5,
      slots: 1,
    });
    expect(decision?.info.proofsPerHour).toBeCloseTo(60, 9);
    expect(decision?.info.boundProofsPerHour).toBeCloseTo(referenceBounds(cycles, 1, options).lower, 6);
    expect(test.samples).toBe(5);
    expect(test.basis).toEqual({ proofs: 5, slots: 1, slotTimeMs: 300_000 });
    expect(test.proofsPerHour).toBeCloseTo(60, 9);
  });

  it("stops BELOW mirrored, with the upper bound", () => {
    const options = { confidence: 0.9, minVariation: 0.1, maxSamples: 12, minSamples: 5 };
    const test = createEarlyVerdictTest(120, 1, { ...options, indifference: 0.1 });
    const cycles = [60_000, 62_000, 58_000, 61_000, 59_000];
    const decision = cycles.map((c) => test.add(c))[4];
    expect(decision?.above).toBe(false);
    expect(decision?.info.boundProofsPerHour).toBeCloseTo(referenceBounds(cycles, 1, options).upper, 6);
  });

  it("weighs slots that wait on each other: the bound counts the cycles' autocovariance", () => {
    // Two slots on one GPU: a long cycle on one slot follows a long one on the other.
    const options = { confidence: 0.9, minVariation: 0, maxSamples: 12, minSamples: 6 };
    const test = createEarlyVerdictTest(30, 2, { ...options, indifference: 0.1 });
    const cycles = [100_000, 110_000, 120_000, 130_000, 100_000, 110_000, 120_000, 130_000];
    const decisions = cycles.map((c) => test.add(c));
    const decision = decisions.find((x) => x !== undefined);
    const at = decisions.indexOf(decision);
    expect(decision?.above).toBe(true);
    expect(decision?.info.slots).toBe(2); // round robin over both slots
    expect(decision?.info.boundProofsPerHour).toBeCloseTo(
      referenceBounds(cycles.slice(0, at + 1), 2, options).lower,
      6,
    );
  });

  it("decides exactly at the zone's edges: the estimate at threshold x (1 +- indifference) is enough", () => {
    // Identical cycles and no variation floor: no margin, so the bound is the estimate (60/h).
    const o = { minVariation: 0, indifference: 0.5, minSamples: 2, maxSamples: 4 };
    const met = createEarlyVerdictTest(40, 1, o); // 40 x 1.5 = 60
    met.add(60_000);
    expect(met.add(60_000)?.above).toBe(true);
    const below = createEarlyVerdictTest(120, 1, o); // 120 x 0.5 = 60
    below.add(60_000);
    expect(below.add(60_000)?.above).toBe(false);
    // Just inside the zone on either side: no early verdict.
    const inside = createEarlyVerdictTest(40.01, 1, o);
    inside.add(60_000);
    expect(inside.add(60_000)).toBeUndefined();
  });

  it("counts a positive autocovariance between slots into the bound", () => {
    // Pairs of long and short cycles: neighbours on the two slots run long together.
    const options = { confidence: 0.9, minVariation: 0, maxSamples: 12, minSamples: 8 };
    const cycles = [100_000, 100_000, 130_000, 130_000, 100_000, 100_000, 130_000, 130_000];
    const test = createEarlyVerdictTest(30, 2, { ...options, indifference: 0.1 });
    const decision = cycles.map((c) => test.add(c))[7];
    expect(decision?.above).toBe(true);
    const withCovariance = referenceBounds(cycles, 2, options).lower;
    expect(decision?.info.boundProofsPerHour).toBeCloseTo(withCovariance, 6);
    // Without the covariance the bound would be tighter: the test would claim more than it knows.
    expect(withCovariance).toBeLessThan(referenceBounds(cycles, 1, { ...options, minSamples: 8 }).lower * 2);
  });

  it("stops BELOW only when both the estimate and the bound are under the zone", () => {
    const o = { minVariation: 0, indifference: 0.5, minSamples: 2, maxSamples: 4 };
    // 60/h against 100/h: the bound (60) is under 75, but the estimate is not under 50.
    const inZone = createEarlyVerdictTest(100, 1, o);
    inZone.add(60_000);
    expect(inZone.add(60_000)).toBeUndefined();
    // 50/h with a wide bound: the estimate is at 50 but the upper bound (about 100/h) is not under 75.
    const wide = createEarlyVerdictTest(100, 1, {
      indifference: 0.5,
      confidence: 0.99,
      minSamples: 10,
      maxSamples: 10,
      minVariation: 0.56,
    });
    const decisions = Array.from({ length: 10 }, () => wide.add(72_000));
    expect(decisions.every((d) => d === undefined)).toBe(true);
  });

  it("decides only once every slot has completed a proof", () => {
    const test = createEarlyVerdictTest(10, 2, { minVariation: 0, minSamples: 2 });
    for (let i = 0; i < 6; i++) expect(test.add(60_000, 1)).toBeUndefined();
    expect(test.add(60_000, 2)?.above).toBe(true);
  });

  it("splits the error over the looks the batch allows: a longer batch needs a wider bound", () => {
    const cycles = [60_000, 66_000, 54_000, 63_000, 57_000];
    const bound = (maxSamples: number) => {
      const test = createEarlyVerdictTest(30, 1, { maxSamples, confidence: 0.9 });
      return cycles.map((c) => test.add(c))[4]?.info.boundProofsPerHour as number;
    };
    const options = { confidence: 0.9, minVariation: 0.1, minSamples: 5 };
    expect(bound(5)).toBeCloseTo(referenceBounds(cycles, 1, { ...options, maxSamples: 5 }).lower, 6);
    expect(bound(40)).toBeCloseTo(referenceBounds(cycles, 1, { ...options, maxSamples: 40 }).lower, 6);
    expect(bound(40)).toBeLessThan(bound(5));
  });

  it.each([
    [{ confidence: 0.5 }, "confidence"],
    [{ confidence: 1 }, "confidence"],
    [{ indifference: -0.01 }, "indifference"],
    [{ indifference: 1 }, "indifference"],
    [{ minSamples: 1 }, "minSamples"],
    [{ minSamples: 2.5 }, "minSamples"],
    [{ minVariation: -0.1 }, "minVariation"],
    [{ minVariation: Number.POSITIVE_INFINITY }, "minVariation"],
    [{ maxSamples: 0 }, "maxSamples"],
    [{ maxSamples: 1.5 }, "maxSamples"],
  ])("refuses %o, naming %s, with a hint", (options, name) => {
    let caught: unknown;
    try {
      resolveEarlyVerdictOptions(options);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvalidInputError);
    expect((caught as InvalidInputError).message).toContain(name);
    expect((caught as InvalidInputError).hint).toBeTruthy();
  });

  it("takes the edges of each option's range, and the documented defaults", () => {
    expect(resolveEarlyVerdictOptions()).toEqual({
      confidence: 0.99,
      indifference: 0.1,
      minSamples: 5,
      minVariation: 0.1,
      maxSamples: 12,
    });
    expect(() =>
      resolveEarlyVerdictOptions({
        confidence: 0.51,
        indifference: 0,
        minSamples: 2,
        minVariation: 0,
        maxSamples: 1,
      }),
    ).not.toThrow();
  });

  it.each([
    [0, 1],
    [-5, 1],
    [Number.POSITIVE_INFINITY, 1],
    [Number.NaN, 1],
    [40, 0],
    [40, 1.5],
  ])("refuses threshold %s with concurrency %s, with a hint", (threshold, concurrency) => {
    let caught: unknown;
    try {
      createEarlyVerdictTest(threshold, concurrency);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvalidInputError);
    expect((caught as InvalidInputError).hint).toBeTruthy();
  });
});
