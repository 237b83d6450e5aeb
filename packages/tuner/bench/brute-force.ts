import { type DaemonDialect, type HardwareSpec, modelDaemon } from "@cuzkit/core";
import { buildDaemonConfig, type Knobs } from "../src/knobs.js";
import { resolveTuneOptions, safetyMarginBytes, type TuneOptions } from "../src/options.js";
import { throughputStep } from "../src/search.js";

// An independent brute force over the full grid, straight on core's modelDaemon: the
// reference the tuner's pruned search is measured against. No pruning, no caches.

/** The grid searched. */
export interface Grid {
  /** Largest partition_workers / max_parallel_synthesis. */
  maxSynthesisParallelism: number;
  /** Largest GPU workers per device. */
  maxGpuWorkersPerDevice: number;
  /** Largest concurrency. */
  maxConcurrency: number;
}

/** The best safe point of the grid: highest proofs/hour, then the least peak. */
export interface BruteForceResult {
  knobs: Knobs;
  proofsPerHour: number;
  peakBytes: number;
  evaluated: number;
}

/** Evaluates every point of the grid; returns undefined when none is safe. */
export function bruteForce(
  hw: HardwareSpec,
  dialect: DaemonDialect,
  options: TuneOptions,
  grid: Grid,
): BruteForceResult | undefined {
  const resolved = resolveTuneOptions({ ...options, dialect });
  const allowed = hw.usableRamBytes - safetyMarginBytes(hw.usableRamBytes, resolved);
  let best: BruteForceResult | undefined;
  let evaluated = 0;
  const sMin = dialect === "budget" ? 2 : 1;
  for (let s = sMin; s <= grid.maxSynthesisParallelism; s++) {
    for (let g = 1; g <= grid.maxGpuWorkersPerDevice; g++) {
      for (let c = 1; c <= grid.maxConcurrency; c++) {
        const knobs = { synthesisParallelism: s, gpuWorkersPerDevice: g, concurrency: c };
        const config = buildDaemonConfig(hw, dialect, knobs, resolved);
        // Memory with Curio's MaxPending in flight (c + the PoSt slots), throughput at c.
        const sized = modelDaemon(hw, config, { ...resolved.workload, concurrency: c + resolved.postSlots });
        const model = modelDaemon(hw, config, { ...resolved.workload, concurrency: c });
        evaluated++;
        const stalled = sized.memory[sized.governingPhase].slots.stalled || sized.memory.steady.slots.stalled;
        const peak = Math.max(sized.peakBytes, sized.memory.warmup.peakBytes);
        if (stalled || peak > allowed) continue;
        const pph = model.timing.proofsPerHour;
        const step = throughputStep(pph);
        const bestStep = best ? throughputStep(best.proofsPerHour) : -Infinity;
        const better = !best || step > bestStep || (step === bestStep && sized.peakBytes < best.peakBytes);
        if (better) best = { knobs, proofsPerHour: pph, peakBytes: sized.peakBytes, evaluated: 0 };
      }
    }
  }
  return best && { ...best, evaluated };
}
