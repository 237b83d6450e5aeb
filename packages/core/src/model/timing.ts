import type { DaemonConfig } from "../daemon-config.js";
import type { HardwareSpec } from "../hardware.js";
import { partitionsPerProof } from "../vocabulary.js";
import { modelConstants as K, partitionScale, winningPostSec } from "./constants.js";
import { findGpuModel, unknownGpuSpeedFactor } from "./gpu-catalog.js";
import { gpuWorkerCount } from "./memory.js";
import type { Workload } from "./workload.js";

/** The GPU stage of one partition, in s: infinite without a GPU. */
function gpuStageSec(
  gpus: number,
  factor: number,
  winning: boolean,
  config: DaemonConfig,
  scale: number,
): number {
  if (gpus === 0) return Number.POSITIVE_INFINITY;
  if (winning) return winningPostSec.gpu / factor;
  return gpuSecPerPartition(factor, config.pipelineEnabled ? config.gpuWorkersPerDevice : 1, scale);
}

/** What limits throughput: `synthesis` = how many partitions synthesize at once (each on about one thread). */
export type Bottleneck = "synthesis" | "cpu" | "gpu" | "concurrency" | "no-gpu" | "stalled";

/** Modelled speed of the daemon for a workload. */
export interface TimingEstimate {
  /** Seconds to synthesize one partition with `synthesizingPartitions` running at once. */
  synthesisSecPerPartition: number;
  /** Seconds of GPU stage per partition on the slowest GPU (kernels plus their unhidden CPU part). */
  gpuSecPerPartition: number;
  /** Partitions that really synthesize at once: the slots, capped at one per physical core. */
  effectivePartitions: number;
  /** Seconds per proof if only the partitions synthesizing at once limited throughput. */
  synthesisSecPerProof: number;
  /** Seconds per proof if only the CPU threads limited throughput (all CPU work of a proof over the threads). */
  cpuSecPerProof: number;
  /** Seconds per proof if only the GPUs limited throughput. */
  gpuSecPerProof: number;
  /** Seconds per proof of the CPU side alone (synthesis and CPU threads combined, no GPU bound). */
  cpuSideSecPerProof: number;
  /** Wall time of one proof alone on a warm daemon. */
  singleProofSec: number;
  /** Steady-state seconds between completed proofs. */
  secPerProof: number;
  /** Steady-state proofs per hour. */
  proofsPerHour: number;
  /** What limits throughput. */
  bottleneck: Bottleneck;
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

/** Physical cores behind `threads` hardware threads (two per core): the most partitions that synthesize at full speed. */
export function physicalCores(threads: number): number {
  return Math.max(1, Math.floor(threads / K.smtThreadsPerCore.value));
}

/** Rounds seconds to whole milliseconds: the model's resolution, so durations add up exactly in a simulated clock. */
function wholeMs(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}

/** Speed factor of the slowest GPU of the machine (RTX 3090 = 1). */
export function slowestGpuFactor(hw: HardwareSpec): number {
  if (hw.gpus.length === 0) return 0;
  return Math.min(...hw.gpus.map((gpu) => findGpuModel(gpu.model)?.speedFactor ?? unknownGpuSpeedFactor));
}

/**
 * Seconds to synthesize one partition with `partitions` running at once, each on about one
 * thread: 29 s alone, +3.8% per extra concurrent partition (memory bandwidth). Partitions
 * beyond one per physical core of `threads` wait, so they do not slow the others.
 */
export function synthesisSecPerPartition(partitions: number, threads: number, scale = 1): number {
  const p = Math.min(Math.max(1, partitions), physicalCores(threads));
  return wholeMs(
    K.porepSynthesisAloneSec.value * (1 + K.synthesisContentionPerPartition.value * (p - 1)) * scale,
  );
}

/**
 * Seconds of GPU stage per partition on a GPU of `speedFactor`: the RTX 5070 Ti's measured
 * 3.7 s scaled by its speed factor over this one's, plus the CPU part a single worker cannot
 * hide (0.7 s; half with two workers; more workers were not measured and gain nothing here).
 */
export function gpuSecPerPartition(speedFactor: number, workersPerDevice: number, scale = 1): number {
  const kernel = (K.gpuKernelSecAtAnchor.value * K.gpuAnchorSpeedFactor.value) / speedFactor;
  const hidden = Math.min(2, Math.max(1, workersPerDevice));
  return wholeMs((kernel + K.gpuHostSecPerPartition.value / hidden) * scale);
}

/** Combines independent bounds on seconds per proof: close to the largest, bending into it (n = 8). */
function combineBounds(bounds: number[]): number {
  const finite = bounds.filter((b) => Number.isFinite(b) && b > 0);
  if (finite.length < bounds.filter((b) => b > 0).length) return Number.POSITIVE_INFINITY;
  const n = K.boundSharpness.value;
  const top = Math.max(...finite);
  // Scaled by the largest bound so the powers never overflow.
  return top * finite.reduce((sum, b) => sum + (b / top) ** n, 0) ** (1 / n);
}

/** What starvedPoolSecPerProof needs. */
interface StarvedPoolInput {
  partitions: number;
  slots: number;
  concurrency: number;
  cpuSideSecPerProof: number;
  gpuSec: number;
  gpus: number;
  scale: number;
}

/**
 * Seconds per proof when the proofs in flight cannot keep the synthesis slots fed: more slots
 * than the partitions of the other proofs while one is on the GPU (slots > (concurrency - 1) x
 * partitions). The partitions then synthesize together in waves (each slot holding one for the
 * CPU side's time per proof x slots / partitions), reach the GPUs in one burst and queue there:
 * on average a proof waits for half the burst of the proofs in flight. 0 when the pool is fed.
 */
function starvedPoolSecPerProof(input: StarvedPoolInput): number {
  const { partitions, slots, concurrency, cpuSideSecPerProof, gpuSec, gpus, scale } = input;
  if (slots <= 0 || slots <= (concurrency - 1) * partitions) return 0;
  if (!Number.isFinite(cpuSideSecPerProof) || !Number.isFinite(gpuSec) || gpus === 0) return 0;
  const perWave = Math.min(slots, partitions);
  const waves = Math.ceil(partitions / perWave);
  const lastWave = partitions - (waves - 1) * perWave;
  const slotSec = (cpuSideSecPerProof * slots) / partitions;
  const gpuBurstSec = (((concurrency + 1) / 2) * lastWave * gpuSec) / gpus;
  return (waves * slotSec + gpuBurstSec + K.perProofOverheadSec.value * scale) / concurrency;
}

/** What limits throughput: no GPU, no synthesis slot, too few proofs in flight, or the largest bound. */
function bottleneckOf(x: {
  gpus: number;
  slots: number;
  effectivePartitions: number;
  latencyBound: boolean;
  synthesisSecPerProof: number;
  gpuSecPerProof: number;
  cpuSecPerProof: number;
}): Bottleneck {
  const largest = Math.max(x.synthesisSecPerProof, x.gpuSecPerProof, x.cpuSecPerProof);
  if (x.gpus === 0) return "no-gpu";
  if (x.slots === 0) return "stalled";
  if (x.latencyBound) return "concurrency";
  if (largest === x.gpuSecPerProof) return "gpu";
  if (largest === x.cpuSecPerProof || x.effectivePartitions < x.slots) return "cpu";
  return "synthesis";
}

/** The first proof after a start (SRS load, cold synthesis) and the worst case with `concurrency` cold proofs queued, in s. */
function coldStartSec(x: {
  partitions: number;
  aloneP: number;
  aloneSynth: number;
  gpuSec: number;
  secPerProof: number;
  concurrency: number;
}): { firstProofSec: number; worstCaseProofSec: number } {
  const coldSynth = x.aloneSynth * K.coldSynthesisFactor.value;
  const firstProofSec =
    K.srsLoadSec.value +
    Math.ceil(x.partitions / x.aloneP) * coldSynth +
    (Number.isFinite(x.gpuSec) ? x.gpuSec : 0) +
    K.perProofOverheadSec.value;
  const coldSecPerProof = Number.isFinite(x.secPerProof)
    ? x.secPerProof * K.coldSynthesisFactor.value
    : Number.POSITIVE_INFINITY;
  const worstCaseProofSec = Math.max(
    firstProofSec,
    K.srsLoadSec.value + x.concurrency * coldSecPerProof + K.pceExtractionSec.value,
  );
  return { firstProofSec, worstCaseProofSec };
}

/**
 * Throughput and latency of the daemon. Steady state: seconds per proof combine three
 * bounds: the partitions synthesizing at once (partitions x synthesis time / partitions at
 * once), the GPUs (partitions x GPU stage / GPUs) and the CPU threads (all CPU work of a
 * proof / threads); with few proofs in flight, a proof's own latency limits it instead.
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
  const effectivePartitions = p === 0 ? 0 : Math.min(p, physicalCores(threads));
  const winning = workload.kind === "winning";

  const synthSec = winning ? winningPostSec.synthesis : synthesisSecPerPartition(p, threads, scale);
  const gpuSec = gpuStageSec(gpus, factor, winning, config, scale);
  const synthesisSecPerProof =
    effectivePartitions === 0 ? Number.POSITIVE_INFINITY : (partitions * synthSec) / effectivePartitions;
  const cpuSecPerProof = (partitions * K.porepCpuSecPerPartition.value * scale) / Math.max(1, hw.cpuThreads);
  const gpuSecPerProof =
    gpus === 0
      ? Number.POSITIVE_INFINITY
      : (partitions * gpuSec) / Math.min(gpus, gpuWorkerCount(hw, config));
  // One proof alone: its partitions go through in waves of at most p, then the last GPU stage.
  const aloneP = Math.min(Math.max(effectivePartitions, 1), partitions);
  const aloneSynth = winning ? winningPostSec.synthesis : synthesisSecPerPartition(aloneP, threads, scale);
  const singleProofSec =
    Math.ceil(partitions / aloneP) * aloneSynth +
    Math.max(gpuSec, (partitions * gpuSec) / Math.max(1, gpus) - aloneSynth) +
    K.perProofOverheadSec.value * scale;

  const capacitySec = combineBounds([synthesisSecPerProof, gpuSecPerProof, cpuSecPerProof]);
  const cpuSideSecPerProof = combineBounds([synthesisSecPerProof, cpuSecPerProof]);
  const starved = { partitions, slots: p, concurrency, cpuSideSecPerProof, gpuSec, gpus, scale };
  const latencyBoundSec = Math.max(
    singleProofSec / concurrency,
    winning ? 0 : starvedPoolSecPerProof(starved),
  );
  const secPerProof = Math.max(capacitySec, latencyBoundSec);
  const bottleneck = bottleneckOf({
    gpus,
    slots: p,
    effectivePartitions,
    latencyBound: latencyBoundSec > capacitySec,
    synthesisSecPerProof,
    gpuSecPerProof,
    cpuSecPerProof,
  });
  const proofLatencySec = Math.max(singleProofSec, concurrency * secPerProof);
  const { firstProofSec, worstCaseProofSec } = coldStartSec({
    partitions,
    aloneP,
    aloneSynth,
    gpuSec,
    secPerProof,
    concurrency,
  });
  return {
    synthesisSecPerPartition: synthSec,
    gpuSecPerPartition: gpuSec,
    effectivePartitions,
    synthesisSecPerProof,
    cpuSecPerProof,
    gpuSecPerProof,
    cpuSideSecPerProof,
    singleProofSec,
    secPerProof,
    proofsPerHour: Number.isFinite(secPerProof) && secPerProof > 0 ? 3600 / secPerProof : 0,
    bottleneck,
    proofLatencySec,
    firstProofSec,
    worstCaseProofSec,
  };
}
