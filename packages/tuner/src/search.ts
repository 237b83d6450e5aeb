import {
  type DaemonConfig,
  type DaemonPhase,
  estimateMemory,
  estimateTiming,
  gpuSecPerPartition,
  type HardwareSpec,
  loadsPceFromDisk,
  type MemoryEstimate,
  partitionScale,
  slowestGpuFactor,
  synthesisSlots,
  type TimingEstimate,
  type Workload,
} from "@cuzkit/core";
import { buildDaemonConfig, type Knobs, minSynthesisParallelism } from "./knobs.js";
import { type ResolvedTuneOptions, safetyMarginBytes } from "./options.js";

// The search: every combination of synthesis parallelism, GPU workers per device and
// concurrency that the model can tell apart, without evaluating the ones it provably cannot.
// Memory is non-decreasing in each knob and, for fixed parallelism and GPU workers,
// throughput is non-decreasing in concurrency, so the search walks parallelism upwards
// until the smallest concurrency no longer fits (or one more no longer changes anything),
// and bisects concurrency for the smallest value that reaches the best throughput that
// fits. Every skip is exact under those monotonic properties of the model; the benchmark
// checks the result against a brute force over the full grid.

/** One evaluated point of the search space. */
export interface Evaluation {
  knobs: Knobs;
  config: DaemonConfig;
  workload: Workload;
  memory: Record<DaemonPhase, MemoryEstimate>;
  /** Partitions synthesizing at steady state with the tuned concurrency (what the timing uses). */
  timingPartitions: number;
  /** The phase whose peak bounds this config (model: steady for partition-workers, cold-start for budget). */
  governingPhase: DaemonPhase;
  /** Peak of the governing phase, in bytes. */
  peakBytes: number;
  /** True when the governing and warmup peaks both stay under usable RAM minus the margin. */
  safe: boolean;
}

/** An evaluation with its timing. */
export interface TimedEvaluation extends Evaluation {
  timing: TimingEstimate;
  /** What the search maximises: proofs/hour, or CPU-side proofs/hour on a machine without GPU. */
  objective: number;
}

/** What the search found. */
export interface SearchOutcome {
  /** The fastest safe point (least memory among equals), or undefined when nothing fits. */
  best: TimedEvaluation | undefined;
  /** The point with the least memory, for explaining (and forcing) when nothing fits. */
  leastMemory: TimedEvaluation;
  /** Bytes the peak may reach: usable RAM minus the safety margin. */
  allowedPeakBytes: number;
  /** The safety margin in bytes. */
  marginBytes: number;
  /** Model evaluations (memory) and timing evaluations done. */
  evaluated: { memory: number; timing: number };
  /** The evaluator used, for looking at neighbours of the result. */
  evaluator: Evaluator;
}

/** Evaluates points of the search space for one machine, dialect and workload, with caches. */
export interface Evaluator {
  readonly allowedPeakBytes: number;
  readonly marginBytes: number;
  memory(knobs: Knobs): Evaluation;
  timed(knobs: Knobs): TimedEvaluation;
  readonly counts: { memory: number; timing: number };
}

/** Creates an Evaluator. */
export function createEvaluator(hw: HardwareSpec, options: ResolvedTuneOptions): Evaluator {
  const marginBytes = safetyMarginBytes(hw.usableRamBytes, options);
  const allowedPeakBytes = hw.usableRamBytes - marginBytes;
  const memoryCache = new Map<string, Evaluation>();
  const timingCache = new Map<string, TimingEstimate>();
  const counts = { memory: 0, timing: 0 };
  const hasGpu = hw.gpus.length > 0;

  const memory = (knobs: Knobs): Evaluation => {
    const key = `${knobs.synthesisParallelism}|${knobs.gpuWorkersPerDevice}|${knobs.concurrency}`;
    const cached = memoryCache.get(key);
    if (cached) return cached;
    counts.memory++;
    const config = buildDaemonConfig(hw, options.dialect, knobs, options);
    const workload: Workload = { ...options.workload, concurrency: knobs.concurrency };
    // Memory is sized for Curio's MaxPending: the concurrency plus the PoSt slots, which PoRep
    // work may take too when no PoSt is waiting.
    const sizedFor: Workload = { ...workload, concurrency: knobs.concurrency + options.postSlots };
    const phases = {
      warmup: estimateMemory(hw, config, sizedFor, "warmup"),
      "cold-start": estimateMemory(hw, config, sizedFor, "cold-start"),
      steady: estimateMemory(hw, config, sizedFor, "steady"),
    };
    const timingPartitions = synthesisSlots(hw, config, workload, knobs.concurrency, true).partitions;
    const governingPhase: DaemonPhase = loadsPceFromDisk(config) ? "steady" : "cold-start";
    const peakBytes = phases[governingPhase].peakBytes;
    const stalled = phases[governingPhase].slots.stalled || phases.steady.slots.stalled;
    const safe = !stalled && peakBytes <= allowedPeakBytes && phases.warmup.peakBytes <= allowedPeakBytes;
    const evaluation: Evaluation = {
      knobs,
      config,
      workload,
      memory: phases,
      timingPartitions,
      governingPhase,
      peakBytes,
      safe,
    };
    memoryCache.set(key, evaluation);
    return evaluation;
  };

  const timed = (knobs: Knobs): TimedEvaluation => {
    const evaluation = memory(knobs);
    const partitions = evaluation.timingPartitions;
    const key = `${partitions}|${knobs.gpuWorkersPerDevice}|${knobs.concurrency}`;
    let timing = timingCache.get(key);
    if (!timing) {
      counts.timing++;
      timing = estimateTiming(hw, evaluation.config, evaluation.workload, partitions);
      timingCache.set(key, timing);
    }
    return { ...evaluation, timing, objective: objectiveOf(timing, hasGpu) };
  };

  return { allowedPeakBytes, marginBytes, memory, timed, counts };
}

/** Proofs/hour; without a GPU (where the model gives 0), the CPU side's proofs/hour instead. */
export function objectiveOf(timing: TimingEstimate, hasGpu: boolean): number {
  if (hasGpu) return timing.proofsPerHour;
  return Number.isFinite(timing.cpuSideSecPerProof) && timing.cpuSideSecPerProof > 0
    ? 3600 / timing.cpuSideSecPerProof
    : 0;
}

/** Throughput steps the search tells apart: 2%, about the model's error at the measured points. */
export const throughputStepRatio = 1.02;

/**
 * The 2% step of proofs/hour a value falls in. Throughputs in the same step count as equal,
 * and then the least memory wins: the model cannot tell them apart, and the extra partitions
 * would cost memory (often beyond what was measured) for nothing a benchmark would see.
 */
export function throughputStep(objective: number): number {
  return objective > 0 ? Math.floor(Math.log(objective) / Math.log(throughputStepRatio) + 1e-9) : -Infinity;
}

function sameObjective(a: number, b: number): boolean {
  return throughputStep(a) === throughputStep(b);
}

/** True when `a` is preferred to `b`: a higher throughput step, then less memory, fewer proofs in flight, more GPU workers, less parallelism. */
export function isBetter(a: TimedEvaluation, b: TimedEvaluation): boolean {
  if (!sameObjective(a.objective, b.objective))
    return throughputStep(a.objective) > throughputStep(b.objective);
  if (a.peakBytes !== b.peakBytes) return a.peakBytes < b.peakBytes;
  if (a.knobs.concurrency !== b.knobs.concurrency) return a.knobs.concurrency < b.knobs.concurrency;
  // More GPU workers (at most the useful 2) cost no memory and were measured no slower.
  if (a.knobs.gpuWorkersPerDevice !== b.knobs.gpuWorkersPerDevice)
    return a.knobs.gpuWorkersPerDevice > b.knobs.gpuWorkersPerDevice;
  return a.knobs.synthesisParallelism < b.knobs.synthesisParallelism;
}

/**
 * GPU workers per device worth trying: beyond the first count that reaches the shortest GPU
 * stage per partition, more workers only add memory (the model's timing depends on the
 * count through that time alone).
 */
export function usefulGpuWorkers(hw: HardwareSpec, options: ResolvedTuneOptions): number {
  if (hw.gpus.length === 0) return 1;
  const factor = slowestGpuFactor(hw);
  const scale = partitionScale[options.workload.kind];
  let best = 1;
  let bestSec = gpuSecPerPartition(factor, 1, scale);
  for (let workers = 2; workers <= options.maxGpuWorkersPerDevice; workers++) {
    const sec = gpuSecPerPartition(factor, workers, scale);
    if (sec < bestSec - 1e-12) {
      best = workers;
      bestSec = sec;
    }
  }
  return best;
}

function sameOrAbove(value: number, reference: number): boolean {
  return throughputStep(value) >= throughputStep(reference);
}

/**
 * The highest objective any parallelism can reach with these GPU workers: the model's
 * throughput is at most 3600 / max(CPU seconds per proof, GPU seconds per proof), the GPU
 * part does not depend on parallelism or concurrency, and the CPU part only falls as more
 * partitions synthesize at once, so the largest parallelism searched gives the bound.
 */
function objectiveCeiling(hw: HardwareSpec, evaluator: Evaluator, widest: Knobs): number {
  const evaluation = evaluator.memory(widest);
  const timing = estimateTiming(hw, evaluation.config, evaluation.workload, widest.synthesisParallelism);
  const secPerProof = Math.max(
    timing.synthesisSecPerProof,
    timing.cpuSecPerProof,
    hw.gpus.length > 0 ? timing.gpuSecPerProof : 0,
  );
  return Number.isFinite(secPerProof) && secPerProof > 0 ? 3600 / secPerProof : 0;
}

/** Largest value in [lo, hi] for which `ok` holds, given `ok(lo)` and `ok` monotone (true then false). */
function lastTrue(lo: number, hi: number, ok: (value: number) => boolean): number {
  let good = lo;
  let bad = hi + 1;
  while (bad - good > 1) {
    const mid = Math.floor((good + bad) / 2);
    if (ok(mid)) good = mid;
    else bad = mid;
  }
  return good;
}

/** Smallest value in [lo, hi] for which `ok` holds, given `ok(hi)` and `ok` monotone (false then true). */
function firstTrue(lo: number, hi: number, ok: (value: number) => boolean): number {
  let bad = lo - 1;
  let good = hi;
  while (good - bad > 1) {
    const mid = Math.floor((good + bad) / 2);
    if (ok(mid)) good = mid;
    else bad = mid;
  }
  return good;
}

function signature(evaluation: Evaluation): string {
  const m = evaluation.memory;
  return `${m.warmup.synthesizingPartitions}|${m["cold-start"].synthesizingPartitions}|${m.steady.synthesizingPartitions}|${evaluation.timingPartitions}`;
}

/** Searches the discrete space for the fastest safe config (least memory among equals). */
export function searchDaemonConfig(hw: HardwareSpec, options: ResolvedTuneOptions): SearchOutcome {
  const evaluator = createEvaluator(hw, options);
  const cLo = options.concurrency ?? 1;
  const cHi = options.concurrency ?? options.maxConcurrency;
  const sMin = minSynthesisParallelism(options.dialect);
  const sMax = Math.max(sMin, options.maxSynthesisParallelism);
  const gMax = Math.min(usefulGpuWorkers(hw, options), options.maxGpuWorkersPerDevice);
  let best: TimedEvaluation | undefined;

  for (let g = 1; g <= gMax; g++) {
    const ceiling = objectiveCeiling(hw, evaluator, {
      synthesisParallelism: sMax,
      gpuWorkersPerDevice: g,
      concurrency: cLo,
    });
    for (let s = sMin; s <= sMax; s++) {
      const knobsAt = (c: number): Knobs => ({
        synthesisParallelism: s,
        gpuWorkersPerDevice: g,
        concurrency: c,
      });
      // Once the best is at the ceiling, only a point with no more memory could still win (a tie).
      const bound =
        best && sameOrAbove(best.objective, ceiling)
          ? Math.min(evaluator.allowedPeakBytes, best.peakBytes)
          : evaluator.allowedPeakBytes;
      const fits = (c: number) => {
        const evaluation = evaluator.memory(knobsAt(c));
        return evaluation.safe && evaluation.peakBytes <= bound;
      };
      if (!fits(cLo)) break;
      const cTop = lastTrue(cLo, cHi, fits);
      // One more parallelism no longer changes how many partitions run at any concurrency that fits.
      if (s > sMin) {
        const same = signature(evaluator.memory({ ...knobsAt(cTop), synthesisParallelism: s - 1 }));
        if (signature(evaluator.memory(knobsAt(cTop))) === same) break;
      }
      const top = evaluator.timed(knobsAt(cTop)).objective;
      const cBest = firstTrue(cLo, cTop, (c) => sameOrAbove(evaluator.timed(knobsAt(c)).objective, top));
      const candidate = evaluator.timed(knobsAt(cBest));
      if (!best || isBetter(candidate, best)) best = candidate;
    }
  }
  const leastMemory = evaluator.timed({
    synthesisParallelism: sMin,
    gpuWorkersPerDevice: 1,
    concurrency: cLo,
  });
  return {
    best,
    leastMemory,
    allowedPeakBytes: evaluator.allowedPeakBytes,
    marginBytes: evaluator.marginBytes,
    evaluated: { ...evaluator.counts },
    evaluator,
  };
}
