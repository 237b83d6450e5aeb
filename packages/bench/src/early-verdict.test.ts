import { describe, expect, it } from "vitest";
import { createEarlyVerdictTest } from "./early-verdict.js";
import { basisProofsPerHour, rateBasis } from "./proof-rate.js";
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
