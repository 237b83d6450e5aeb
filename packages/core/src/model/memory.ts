import { GiB } from "../bytes.js";
import type { DaemonConfig } from "../daemon-config.js";
import type { HardwareSpec } from "../hardware.js";
import { circuitForKind, partitionsPerProof } from "../vocabulary.js";
import {
  budgetPartitionBytes,
  modelConstants as K,
  partitionScale,
  pceBytes,
  porepMeasuredPeakGiB,
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
  budgetBytes?: number | undefined;
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
  /** Their memory beyond the envelope (0: the envelope includes them, see estimateMemory). */
  gpuStageBytes: number;
  /** Per-proof state of the proofs in flight beyond the envelope's baseline of 5. */
  inFlightBytes: number;
  /** Peak resident memory of the daemon in this phase. */
  peakBytes: number;
  /** What decided the synthesis concurrency. */
  slots: SynthesisSlots;
  /** True when more partitions synthesize than the 16 the envelope was measured for. */
  extrapolated: boolean;
}

const measuredPoints = porepMeasuredPeakGiB;
const lastMeasured = measuredPoints[measuredPoints.length - 1] ?? [16, 510];
/** Most partitions at once whose peak memory was measured (16). */
export const maxMeasuredPartitions = lastMeasured[0];

/**
 * Peak RSS of a PoRep daemon with `partitions` synthesizing at once, from the measured
 * envelope: parameters and PCE resident, up to 5 proofs in flight, one GPU with up to 2
 * workers. Linear between the measured points; above 16 partitions, extrapolated at the
 * average measured slope above 7 (33.4 GiB per partition).
 */
export function porepEnvelopeBytes(partitions: number): number {
  const p = Math.max(1, partitions);
  const first = measuredPoints[0] ?? [1, 104];
  if (p <= first[0]) return first[1] * GiB;
  for (let i = 1; i < measuredPoints.length; i++) {
    const [p1, g1] = measuredPoints[i] as readonly [number, number];
    const [p0, g0] = measuredPoints[i - 1] as readonly [number, number];
    if (p <= p1) return Math.round((g0 + ((g1 - g0) * (p - p0)) / (p1 - p0)) * GiB);
  }
  return Math.round(
    lastMeasured[1] * GiB + (p - lastMeasured[0]) * K.porepEnvelopeSlopeAboveMeasuredBytes.value,
  );
}

/** PoRep parameters and PCE: the idle footprint the envelope includes (69 GiB). */
const porepIdleBytes = srsBytes["porep-32g"] + pceBytes["porep-32g"];

/** Working memory of `partitions` synthesizing at once for a kind: the envelope above the idle footprint, scaled by circuit size. */
export function workingSetBytes(partitions: number, kind: Workload["kind"]): number {
  if (partitions <= 0) return 0;
  return (porepEnvelopeBytes(partitions) - porepIdleBytes) * partitionScale[kind];
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
 * Peak daemon memory in one phase of its life, from the measured envelope: resident
 * parameters (and PCE once built) of every kind that runs + the envelope's working set for
 * the partitions synthesizing at once (scaled by circuit size for other kinds; partitions on
 * the GPUs included) + per-proof state beyond its 5 proofs in flight, plus
 * the 14 GiB PCE extraction transient in the cold start.
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
  const pceAll = residentBytes(workload, pceBytes);
  // In warmup the PCE is built after the only proof ends, so the peak is the larger of the
  // synthesis phase and the extraction phase; in cold-start the next proofs overlap it.
  const pce = phase === "warmup" ? 0 : pceAll;
  const transient = phase === "cold-start" ? K.pceExtractionTransientBytes.value : 0;
  const synthesisBytes = workingSetBytes(slots.partitions, workload.kind);
  const gpuStagePartitions = Math.min(
    gpuWorkerCount(hw, config),
    proofsInFlight * partitionsPerProof[workload.kind],
  );
  // Partitions on the GPUs are inside the envelope (porepPartitionGpuStageBytes is 0 beyond it).
  const gpuStageBytes = gpuStagePartitions * K.porepPartitionGpuStageBytes.value * scale;
  const extraProofs = Math.max(0, proofsInFlight - K.porepEnvelopeInFlightBaseline.value);
  const inFlightBytes = extraProofs * K.inFlightProofBytes.value * scale;
  let peakBytes = srs + pce + transient + synthesisBytes + gpuStageBytes + inFlightBytes;
  if (phase === "warmup") peakBytes = Math.max(peakBytes, srs + pceAll + K.pceExtractionTransientBytes.value);
  if (config.maxBatchSize > 1 && workload.kind === "porep") {
    peakBytes = Math.max(peakBytes, (K.batchPorepPeakBytes.value * config.maxBatchSize) / 2);
  }
  return {
    phase,
    srsBytes: srs,
    pceBytes: phase === "warmup" ? pceAll : pce,
    transientBytes: phase === "warmup" ? K.pceExtractionTransientBytes.value : transient,
    synthesizingPartitions: slots.partitions,
    synthesisBytes,
    gpuStagePartitions,
    gpuStageBytes,
    inFlightBytes,
    peakBytes,
    slots,
    extrapolated: slots.partitions > maxMeasuredPartitions,
  };
}

/** Smallest peak with which one proof of the workload can run at all: one partition, PCE resident (104 GiB for PoRep). */
export function minimumRamBytes(workload: Workload): number {
  return (
    residentBytes(workload, srsBytes) + residentBytes(workload, pceBytes) + workingSetBytes(1, workload.kind)
  );
}
