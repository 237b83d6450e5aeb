import type { DaemonConfig } from "../daemon-config.js";
import type { HardwareSpec } from "../hardware.js";
import { circuitForKind, partitionsPerProof } from "../vocabulary.js";
import {
  budgetPartitionBytes,
  modelConstants as K,
  partitionScale,
  pceBytes,
  srsBytes,
} from "./constants.js";
import { type DaemonPhase, residentKinds, type Workload } from "./workload.js";

/** How many partitions synthesize at once, and what decided it. */
export interface SynthesisSlots {
  /** Partitions synthesizing concurrently at the peak. */
  partitions: number;
  /** The setting or condition that capped it. */
  limitedBy:
    | "partition_workers"
    | "memory budget"
    | "max_parallel_synthesis"
    | "proofs in flight"
    | "GPU count (monolithic)";
  /** The daemon's effective memory budget in bytes (budget dialect), else undefined. */
  budgetBytes?: number;
  /** True when the budget cannot fit even one partition: the daemon waits forever. */
  stalled: boolean;
}

/** Memory at the peak of one phase, broken down. */
export interface MemoryEstimate {
  phase: DaemonPhase;
  /** Parameter files resident for every kind that runs. */
  srsBytes: number;
  /** PCE caches resident (or being built) during this phase. */
  pceBytes: number;
  /** PCE extraction working memory during this phase. */
  transientBytes: number;
  /** Partitions synthesizing at once. */
  synthesizingPartitions: number;
  /** Their working sets. */
  synthesisBytes: number;
  /** Partitions held by GPU workers. */
  gpuStagePartitions: number;
  /** Their memory. */
  gpuStageBytes: number;
  /** Per-proof state of every proof in flight. */
  inFlightBytes: number;
  /** Peak resident memory of the daemon in this phase. */
  peakBytes: number;
  /** What decided the synthesis concurrency. */
  slots: SynthesisSlots;
}

/** GPU workers the daemon runs: gw per GPU in pipeline mode, one per GPU in monolithic mode. */
export function gpuWorkerCount(hw: HardwareSpec, config: DaemonConfig): number {
  const perDevice = config.pipelineEnabled ? Math.max(1, config.gpuWorkersPerDevice) : 1;
  return hw.gpus.length * perDevice;
}

/** The budget the current daemon works with: explicit, or host MemTotal minus the margin (it does not see cgroup limits). */
export function effectiveBudgetBytes(hw: HardwareSpec, config: DaemonConfig): number {
  return config.totalBudgetBytes === "auto"
    ? Math.max(0, hw.ramBytes - config.safetyMarginBytes)
    : config.totalBudgetBytes;
}

function residentBytes(workload: Workload, table: Record<string, number>): number {
  return residentKinds(workload).reduce((sum, kind) => sum + (table[circuitForKind[kind]] ?? 0), 0);
}

/** Partitions that can synthesize at once under `config`, given `proofsInFlight`. */
export function synthesisSlots(
  hw: HardwareSpec,
  config: DaemonConfig,
  workload: Workload,
  proofsInFlight: number,
  pceResident: boolean,
): SynthesisSlots {
  const partitionsAvailable = Math.max(1, proofsInFlight) * partitionsPerProof[workload.kind];
  if (!config.pipelineEnabled) {
    const partitions = Math.min(
      partitionsAvailable,
      Math.max(1, hw.gpus.length) * partitionsPerProof[workload.kind],
    );
    return { partitions, limitedBy: "GPU count (monolithic)", stalled: false };
  }
  if (config.dialect === "partition-workers") {
    const pw = Math.max(1, config.partitionWorkers);
    return pw <= partitionsAvailable
      ? { partitions: pw, limitedBy: "partition_workers", stalled: false }
      : { partitions: partitionsAvailable, limitedBy: "proofs in flight", stalled: false };
  }
  const budgetBytes = effectiveBudgetBytes(hw, config);
  const workers = Math.max(
    K.budgetMinimumWorkers.value,
    Math.min(Math.floor(budgetBytes / K.budgetDivisorBytes.value), config.maxParallelSynthesis || 18),
  );
  const reserved = residentBytes(workload, srsBytes) + (pceResident ? residentBytes(workload, pceBytes) : 0);
  const budgetSlots = Math.floor((budgetBytes - reserved) / budgetPartitionBytes[workload.kind]);
  if (budgetSlots < 1) return { partitions: 0, limitedBy: "memory budget", budgetBytes, stalled: true };
  const partitions = Math.min(workers, budgetSlots, partitionsAvailable);
  const limitedBy =
    partitions === partitionsAvailable && partitionsAvailable < Math.min(workers, budgetSlots)
      ? "proofs in flight"
      : budgetSlots <= workers
        ? "memory budget"
        : "max_parallel_synthesis";
  return { partitions, limitedBy, budgetBytes, stalled: false };
}

/**
 * Peak daemon memory in one phase of its life. The model: resident parameters (SRS, plus PCE
 * once built) + 20 GiB per synthesizing PoRep partition (scaled by circuit size for other
 * kinds) + 4 GiB per partition held by a GPU worker + per-proof state, plus the PCE
 * extraction transient while it runs. Calibrated to peak RSS = 69 GiB + 20 GiB x partitions.
 */
export function estimateMemory(
  hw: HardwareSpec,
  config: DaemonConfig,
  workload: Workload,
  phase: DaemonPhase,
): MemoryEstimate {
  const proofsInFlight = phase === "warmup" ? 1 : Math.max(1, workload.concurrency);
  const pceResident = phase === "steady";
  const slots = synthesisSlots(hw, config, workload, proofsInFlight, pceResident);
  const scale = partitionScale[workload.kind];
  const srs = residentBytes(workload, srsBytes);
  // In warmup the PCE is built after the only proof ends, so the peak is the larger of the
  // synthesis phase and the extraction phase; in cold-start the next proofs overlap it.
  const pce = phase === "warmup" ? 0 : residentBytes(workload, pceBytes);
  const transient = phase === "cold-start" ? K.pceExtractionTransientBytes.value : 0;
  const synthesisBytes = slots.partitions * K.porepPartitionSynthesisBytes.value * scale;
  const gpuStagePartitions = Math.min(
    gpuWorkerCount(hw, config),
    proofsInFlight * partitionsPerProof[workload.kind],
  );
  const gpuStageBytes = gpuStagePartitions * K.porepPartitionGpuStageBytes.value * scale;
  const inFlightBytes = proofsInFlight * K.inFlightProofBytes.value * scale;
  let peakBytes = srs + pce + transient + synthesisBytes + gpuStageBytes + inFlightBytes;
  if (phase === "warmup") {
    const extractionPeak = srs + residentBytes(workload, pceBytes) + K.pceExtractionTransientBytes.value;
    peakBytes = Math.max(peakBytes, extractionPeak);
  }
  if (config.maxBatchSize > 1 && workload.kind === "porep") {
    peakBytes = Math.max(peakBytes, (K.batchPorepPeakBytes.value * config.maxBatchSize) / 2);
  }
  return {
    phase,
    srsBytes: srs,
    pceBytes: phase === "warmup" ? residentBytes(workload, pceBytes) : pce,
    transientBytes: phase === "warmup" ? K.pceExtractionTransientBytes.value : transient,
    synthesizingPartitions: slots.partitions,
    synthesisBytes,
    gpuStagePartitions,
    gpuStageBytes,
    inFlightBytes,
    peakBytes,
    slots,
  };
}

/** Smallest RAM with which one proof of the workload can run at all (one partition, warm). */
export function minimumRamBytes(workload: Workload): number {
  const scale = partitionScale[workload.kind];
  return (
    residentBytes(workload, srsBytes) +
    residentBytes(workload, pceBytes) +
    (K.porepPartitionSynthesisBytes.value +
      K.porepPartitionGpuStageBytes.value +
      K.inFlightProofBytes.value) *
      scale
  );
}
