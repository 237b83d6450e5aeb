import { hardwareFrom, type TimingEstimate } from "@cuzkit/core";
import { describe, expect, it } from "vitest";
import { bruteForce } from "../bench/brute-force.js";
import { resolveTuneOptions } from "./options.js";
import {
  createEvaluator,
  isBetter,
  objectiveOf,
  searchDaemonConfig,
  type TimedEvaluation,
  throughputStep,
  usefulGpuWorkers,
} from "./search.js";

// The pruned search must find what a brute force over the whole grid finds.

const machines = [
  hardwareFrom({ ram: "256GiB", cores: 192, gpus: "1xRTX5070Ti" }),
  hardwareFrom({ ram: "512GiB", cores: 96, gpus: "2xRTX4090" }),
  hardwareFrom({ ram: "384GiB", memoryLimit: "300GiB", cores: 64, gpus: "1xH100" }),
  hardwareFrom({ ram: "160GiB", cores: 24, gpus: "1xA40" }),
];
const grid = { maxSynthesisParallelism: 30, maxGpuWorkersPerDevice: 4, maxConcurrency: 8 };

/**
 * What the search picks on each machine (parallelism, GPU workers, concurrency) and what it
 * evaluates (memory, timing) to get there: the brute force checks the throughput and memory,
 * these pin the tie-breaks among equals and the pruning's cost. A deliberate change to the
 * search or the model updates them.
 */
const picked: Record<string, [number, number, number, number, number]> = {
  "256|budget": [7, 2, 2, 76, 48],
  "256|partition-workers": [7, 2, 2, 88, 56],
  "512|budget": [13, 2, 2, 148, 90],
  "512|partition-workers": [14, 2, 3, 172, 104],
  "300|budget": [8, 2, 2, 88, 56],
  "300|partition-workers": [8, 2, 2, 100, 64],
  "160|budget": [3, 2, 2, 28, 14],
  "160|partition-workers": [3, 2, 2, 40, 24],
};

describe("searchDaemonConfig", () => {
  for (const hw of machines) {
    for (const dialect of ["budget", "partition-workers"] as const) {
      it(`matches the brute force on ${hw.usableRamBytes / 2 ** 30} GiB, ${hw.gpus.length}x ${hw.gpus[0]?.model} (${dialect})`, () => {
        const options = resolveTuneOptions({ dialect, maxSynthesisParallelism: 30, maxConcurrency: 8 });
        const found = searchDaemonConfig(hw, options);
        const reference = bruteForce(hw, dialect, {}, grid);
        expect(found.best === undefined).toBe(reference === undefined);
        if (!found.best || !reference) return;
        expect(throughputStep(found.best.timing.proofsPerHour)).toBe(throughputStep(reference.proofsPerHour));
        expect(found.best.peakBytes).toBe(reference.peakBytes);
        // ...with far fewer timing evaluations than the grid has points.
        expect(found.evaluated.timing).toBeLessThan(reference.evaluated / 4);
        const { synthesisParallelism, gpuWorkersPerDevice, concurrency } = found.best.knobs;
        expect([
          synthesisParallelism,
          gpuWorkersPerDevice,
          concurrency,
          found.evaluated.memory,
          found.evaluated.timing,
        ]).toEqual(picked[`${hw.usableRamBytes / 2 ** 30}|${dialect}`]);
      });
    }
  }

  it("tries more GPU workers only while they shorten the GPU stage", () => {
    const options = resolveTuneOptions({});
    expect(usefulGpuWorkers(hardwareFrom({ ram: "1TiB", cores: 8, gpus: "none" }), options)).toBe(1);
    // A second worker hides half the GPU stage's CPU part (measured gw1 vs gw2); more were never measured.
    for (const gpus of ["1xRTX3090", "1xRTX4090", "1xRTX5090"]) {
      expect(usefulGpuWorkers(hardwareFrom({ ram: "1TiB", cores: 8, gpus }), options)).toBe(2);
    }
    // The cap counts: 2 allowed, 2 useful.
    const capped = resolveTuneOptions({ maxGpuWorkersPerDevice: 2 });
    expect(usefulGpuWorkers(hardwareFrom({ ram: "1TiB", cores: 8, gpus: "1xRTX4090" }), capped)).toBe(2);
  });
});

// Which config is picked among those the model cannot tell apart: the tie-breaks decide what
// `cuzkit tune` writes into the daemon's config.
describe("isBetter", () => {
  const point = (
    objective: number,
    peakGiB: number,
    knobs: Partial<TimedEvaluation["knobs"]> = {},
  ): TimedEvaluation =>
    ({
      objective,
      peakBytes: peakGiB * 2 ** 30,
      knobs: { synthesisParallelism: 8, gpuWorkersPerDevice: 1, concurrency: 2, ...knobs },
    }) as TimedEvaluation;

  it("picks the higher throughput step even at more memory", () => {
    expect(isBetter(point(110, 200), point(100, 100))).toBe(true);
    expect(isBetter(point(100, 100), point(110, 200))).toBe(false);
  });

  it("counts throughputs within one 2% step as equal, and then picks the least memory", () => {
    expect(throughputStep(100)).toBe(throughputStep(100.5));
    expect(isBetter(point(100, 90), point(100.5, 100))).toBe(true);
    expect(isBetter(point(100.5, 100), point(100, 90))).toBe(false);
  });

  it("at equal memory picks fewer proofs in flight, then more GPU workers, then less parallelism", () => {
    expect(isBetter(point(100, 100, { concurrency: 1 }), point(100, 100, { concurrency: 2 }))).toBe(true);
    expect(isBetter(point(100, 100, { concurrency: 2 }), point(100, 100, { concurrency: 1 }))).toBe(false);
    expect(
      isBetter(point(100, 100, { gpuWorkersPerDevice: 2 }), point(100, 100, { gpuWorkersPerDevice: 1 })),
    ).toBe(true);
    expect(
      isBetter(point(100, 100, { gpuWorkersPerDevice: 1 }), point(100, 100, { gpuWorkersPerDevice: 2 })),
    ).toBe(false);
    expect(
      isBetter(point(100, 100, { synthesisParallelism: 6 }), point(100, 100, { synthesisParallelism: 8 })),
    ).toBe(true);
    expect(
      isBetter(point(100, 100, { synthesisParallelism: 8 }), point(100, 100, { synthesisParallelism: 6 })),
    ).toBe(false);
  });

  it("does not prefer a point to its equal: the first found is kept", () => {
    expect(isBetter(point(100, 100), point(100, 100))).toBe(false);
  });
});

describe("throughputStep and objectiveOf", () => {
  it("puts no throughput below every real one", () => {
    expect(throughputStep(0)).toBe(Number.NEGATIVE_INFINITY);
    expect(throughputStep(-1)).toBe(Number.NEGATIVE_INFINITY);
    expect(throughputStep(1)).toBe(0);
    expect(throughputStep(1.0201)).toBe(1);
  });

  it("maximises proofs/hour with a GPU, and the CPU side's proofs/hour without one", () => {
    const timing = { proofsPerHour: 30, cpuSideSecPerProof: 60 } as TimingEstimate;
    expect(objectiveOf(timing, true)).toBe(30);
    expect(objectiveOf(timing, false)).toBe(60);
    expect(objectiveOf({ ...timing, cpuSideSecPerProof: 0 }, false)).toBe(0);
    expect(objectiveOf({ ...timing, cpuSideSecPerProof: Number.POSITIVE_INFINITY }, false)).toBe(0);
  });
});

describe("searchDaemonConfig at the edges of its grid", () => {
  // Small grids put the best at a cap: the search must reach the cap and never pass it.
  const grids = [
    { maxSynthesisParallelism: 3, maxGpuWorkersPerDevice: 1, maxConcurrency: 2 },
    { maxSynthesisParallelism: 5, maxGpuWorkersPerDevice: 2, maxConcurrency: 1 },
  ];
  for (const g of grids) {
    for (const dialect of ["budget", "partition-workers"] as const) {
      it(`matches the brute force within ${JSON.stringify(g)} (${dialect})`, () => {
        for (const hw of machines) {
          const options = resolveTuneOptions({ dialect, ...g });
          const found = searchDaemonConfig(hw, options);
          const reference = bruteForce(hw, dialect, {}, g);
          expect(found.best === undefined).toBe(reference === undefined);
          if (!found.best || !reference) continue;
          expect(throughputStep(found.best.objective)).toBe(throughputStep(reference.proofsPerHour));
          expect(found.best.peakBytes).toBe(reference.peakBytes);
          expect(found.best.knobs.synthesisParallelism).toBeLessThanOrEqual(g.maxSynthesisParallelism);
          expect(found.best.knobs.gpuWorkersPerDevice).toBeLessThanOrEqual(g.maxGpuWorkersPerDevice);
          expect(found.best.knobs.concurrency).toBeLessThanOrEqual(g.maxConcurrency);
        }
      });
    }
  }

  it("searches only the given concurrency when one is fixed", () => {
    const hw = machines[1] as (typeof machines)[number];
    const found = searchDaemonConfig(hw, resolveTuneOptions({ concurrency: 3, maxSynthesisParallelism: 30 }));
    expect(found.best?.knobs.concurrency).toBe(3);
    expect(found.leastMemory.knobs).toEqual({
      synthesisParallelism: 2,
      gpuWorkersPerDevice: 1,
      concurrency: 3,
    });
  });

  it("finds nothing safe on a machine too small for any config, and still names the least-memory point", () => {
    const hw = hardwareFrom({ ram: "16GiB", cores: 8, gpus: "1xRTX4090" });
    const found = searchDaemonConfig(hw, resolveTuneOptions({}));
    expect(found.best).toBeUndefined();
    expect(found.leastMemory.knobs).toEqual({
      synthesisParallelism: 2,
      gpuWorkersPerDevice: 1,
      concurrency: 1,
    });
    expect(found.leastMemory.safe).toBe(false);
  });
});

describe("the evaluator", () => {
  const hw = hardwareFrom({ ram: "256GiB", cores: 64, gpus: "1xRTX4090" });
  const options = resolveTuneOptions({ dialect: "partition-workers" });

  it("calls a point safe only when its governing and warmup peaks fit and no phase stalls", () => {
    const evaluator = createEvaluator(hw, options);
    let safe = 0;
    let unsafe = 0;
    for (const s of [1, 4, 8, 16, 32, 64]) {
      for (const c of [1, 2, 4, 8]) {
        const e = evaluator.memory({ synthesisParallelism: s, gpuWorkersPerDevice: 1, concurrency: c });
        const stalled = e.memory[e.governingPhase].slots.stalled || e.memory.steady.slots.stalled;
        const fits =
          e.peakBytes === e.memory[e.governingPhase].peakBytes &&
          e.peakBytes <= evaluator.allowedPeakBytes &&
          e.memory.warmup.peakBytes <= evaluator.allowedPeakBytes;
        expect(e.safe, `s=${s} c=${c}`).toBe(!stalled && fits);
        if (e.safe) safe++;
        else unsafe++;
      }
    }
    // Both kinds occur on this machine: the rule was exercised either way.
    expect(safe).toBeGreaterThan(0);
    expect(unsafe).toBeGreaterThan(0);
    expect(evaluator.allowedPeakBytes).toBe(hw.usableRamBytes - evaluator.marginBytes);
  });

  it("evaluates each point once: a second look is the cached answer", () => {
    const evaluator = createEvaluator(hw, options);
    const knobs = { synthesisParallelism: 8, gpuWorkersPerDevice: 1, concurrency: 2 };
    const first = evaluator.timed(knobs);
    const second = evaluator.timed({ ...knobs });
    expect(evaluator.counts).toEqual({ memory: 1, timing: 1 });
    expect(second.timing).toBe(first.timing);
    expect(evaluator.memory(knobs)).toBe(evaluator.memory({ ...knobs }));
    expect(first.objective).toBe(first.timing.proofsPerHour);
    expect(first.workload.concurrency).toBe(2);
  });

  it("maximises the CPU side's proofs/hour on a machine without a GPU", () => {
    const cpuOnly = hardwareFrom({ ram: "256GiB", cores: 64, gpus: "none" });
    const evaluator = createEvaluator(cpuOnly, options);
    const point = evaluator.timed({ synthesisParallelism: 8, gpuWorkersPerDevice: 1, concurrency: 2 });
    expect(point.objective).toBeGreaterThan(0);
    expect(point.objective).toBeCloseTo(3600 / point.timing.cpuSideSecPerProof, 9);
  });
});
