import type { DaemonConfig } from "../daemon-config.js";
import type { HardwareSpec } from "../hardware.js";
import { partitionsPerProof } from "../vocabulary.js";
import { modelConstants as K, partitionScale, winningPostSec } from "./constants.js";
import { findGpuModel, unknownGpuSpeedFactor } from "./gpu-catalog.js";
import { gpuWorkerCount } from "./memory.js";
import type { Workload } from "./workload.js";

/** Modelled speed of the daemon for a workload. */
export interface TimingEstimate {
  /** Seconds to synthesize one partition with `synthesizingPartitions` running at once. */
  synthesisSecPerPartition: number;
  /** Seconds of GPU stage per partition on the slowest GPU (kernels plus their CPU part). */
  gpuSecPerPartition: number;
  /** Seconds per proof if only the CPU synthesis limited throughput. */
  cpuSecPerProof: number;
  /** Seconds per proof if only the GPUs limited throughput. */
  gpuSecPerProof: number;
  /** Wall time of one proof alone on a warm daemon. */
  singleProofSec: number;
  /** Steady-state seconds between completed proofs. */
  secPerProof: number;
  /** Steady-state proofs per hour. */
  proofsPerHour: number;
  /** What limits throughput. */
  bottleneck: "cpu" | "gpu" | "concurrency" | "no-gpu" | "stalled";
  /** Wall time of each proof at the workload's concurrency (queueing included). */
  proofLatencySec: number;
  /** Wall time of the first proof after a start with no PCE cache, parameter load included. */
  firstProofSec: number;
  /** Worst wall time any proof sees: the last of the first `concurrency` proofs after a cold start. */
  worstCaseProofSec: number;
}

/** Threads the synthesis pool really gets: synthesis.threads, capped by the CPUs this process may use. */
export function synthesisThreads(hw: HardwareSpec, config: DaemonConfig): number {
  const configured =
    config.synthesisThreads > 0 ? config.synthesisThreads : (hw.hostCpuThreads ?? hw.cpuThreads);
  return Math.max(1, Math.min(configured, hw.cpuThreads));
}

/** Speed factor of the slowest GPU of the machine (RTX 3090 = 1). */
export function slowestGpuFactor(hw: HardwareSpec): number {
  if (hw.gpus.length === 0) return 0;
  return Math.min(...hw.gpus.map((gpu) => findGpuModel(gpu.model)?.speedFactor ?? unknownGpuSpeedFactor));
}

/**
 * Seconds to synthesize one partition with `partitions` running at once on `threads` CPU
 * threads: the slower of the memory-bandwidth-bound time (29 s alone, +4.8% per extra
 * partition) and the CPU-bound time (750 vCPU-s per partition shared by the threads).
 */
export function synthesisSecPerPartition(partitions: number, threads: number, scale = 1): number {
  const p = Math.max(1, partitions);
  const bandwidthBound =
    K.porepSynthesisAloneSec.value * (1 + K.synthesisContentionPerPartition.value * (p - 1));
  const cpuBound = (K.porepSynthesisCpuCost.value * p) / Math.max(1, threads);
  return Math.max(bandwidthBound, cpuBound) * scale;
}

/** Seconds of GPU stage per partition: CUDA kernels (by GPU speed) and their CPU part, overlapped by a second worker. */
export function gpuSecPerPartition(speedFactor: number, workersPerDevice: number, scale = 1): number {
  const kernel = (K.gpuKernelSecAt3090.value * K.gpuLoadInflation.value) / speedFactor;
  const host = K.gpuHostSecPerPartition.value;
  const perPartition =
    workersPerDevice >= 2 ? Math.max(kernel, (kernel + host) / workersPerDevice) : kernel + host;
  return perPartition * scale;
}

/**
 * Throughput and latency of the daemon. Steady state: seconds per proof = the larger of
 * partitions x synthesis time / concurrent partitions (CPU) and partitions x GPU time / GPUs
 * (GPU); with few proofs in flight, a proof's own latency limits it instead.
 */
export function estimateTiming(
  hw: HardwareSpec,
  config: DaemonConfig,
  workload: Workload,
  synthesizingPartitions: number,
): TimingEstimate {
  const partitions = partitionsPerProof[workload.kind];
  const scale = partitionScale[workload.kind];
  const threads = synthesisThreads(hw, config);
  const gpus = hw.gpus.length;
  const factor = slowestGpuFactor(hw);
  const concurrency = Math.max(1, workload.concurrency);
  const p = Math.max(0, synthesizingPartitions);

  const synthSec =
    workload.kind === "winning" ? winningPostSec.synthesis : synthesisSecPerPartition(p, threads, scale);
  const gpuSec =
    gpus === 0
      ? Number.POSITIVE_INFINITY
      : workload.kind === "winning"
        ? winningPostSec.gpu / factor
        : gpuSecPerPartition(factor, config.pipelineEnabled ? config.gpuWorkersPerDevice : 1, scale);
  const cpuSecPerProof = p === 0 ? Number.POSITIVE_INFINITY : (partitions * synthSec) / p;
  const gpuSecPerProof =
    gpus === 0
      ? Number.POSITIVE_INFINITY
      : (partitions * gpuSec) / Math.min(gpus, gpuWorkerCount(hw, config));
  // One proof alone: its partitions go through in waves of at most p, then the last GPU stage.
  const aloneP = Math.min(Math.max(p, 1), partitions);
  const aloneSynth =
    workload.kind === "winning" ? winningPostSec.synthesis : synthesisSecPerPartition(aloneP, threads, scale);
  const singleProofSec =
    Math.ceil(partitions / aloneP) * aloneSynth +
    Math.max(gpuSec, (partitions * gpuSec) / Math.max(1, gpus) - aloneSynth) +
    K.perProofOverheadSec.value * scale;

  const capacitySec = Math.max(cpuSecPerProof, gpuSecPerProof);
  const latencyBoundSec = singleProofSec / concurrency;
  const secPerProof = Math.max(capacitySec, latencyBoundSec);
  const bottleneck: TimingEstimate["bottleneck"] =
    gpus === 0
      ? "no-gpu"
      : p === 0
        ? "stalled"
        : latencyBoundSec > capacitySec
          ? "concurrency"
          : cpuSecPerProof >= gpuSecPerProof
            ? "cpu"
            : "gpu";
  const proofLatencySec = Math.max(singleProofSec, concurrency * secPerProof);
  const coldSynth = aloneSynth * K.coldSynthesisFactor.value;
  const firstProofSec =
    K.srsLoadSec.value +
    Math.ceil(partitions / aloneP) * coldSynth +
    (Number.isFinite(gpuSec) ? gpuSec : 0) +
    K.perProofOverheadSec.value;
  const coldSecPerProof = Number.isFinite(secPerProof)
    ? secPerProof * K.coldSynthesisFactor.value
    : Number.POSITIVE_INFINITY;
  const worstCaseProofSec = Math.max(
    firstProofSec,
    K.srsLoadSec.value + concurrency * coldSecPerProof + K.pceExtractionSec.value,
  );
  return {
    synthesisSecPerPartition: synthSec,
    gpuSecPerPartition: gpuSec,
    cpuSecPerProof,
    gpuSecPerProof,
    singleProofSec,
    secPerProof,
    proofsPerHour: Number.isFinite(secPerProof) && secPerProof > 0 ? 3600 / secPerProof : 0,
    bottleneck,
    proofLatencySec,
    firstProofSec,
    worstCaseProofSec,
  };
}
