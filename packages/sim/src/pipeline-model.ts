import {
  type CircuitId,
  type DaemonConfig,
  estimateTiming,
  gpuWorkerCount,
  type HardwareSpec,
  modelConstants as K,
  type ProofKind,
  partitionScale,
  partitionsPerProof,
  pceBytes,
  proofKinds,
  srsBytes,
  synthesisSlots,
  winningPostSec,
  workingSetBytes,
} from "@cuzkit/core";

// What the pipeline takes from core's daemon model (packages/core/src/model), the same law the
// tuner optimises: memory is the measured envelope (workingSetBytes for the partitions
// synthesizing at once, parameters and PCE resident, per-proof state beyond the envelope's
// baseline, the extraction transient), so the simulated daemon is OOM-killed exactly where the
// model's peak passes usable RAM; stage durations are chosen so that the pipeline's steady
// throughput is the model's seconds per proof. Nothing here invents a number.

/** Per-kind figures of the simulated pipeline. */
export interface KindFigures {
  /** Partitions per proof. */
  partitions: number;
  /** Modelled seconds one partition spends in a synthesis slot with a PCE (warm), at the steady slot count. */
  synthesisSec: number;
  /** Modelled seconds one GPU worker spends on one partition. */
  gpuWorkerSec: number;
  /** Modelled seconds of C1 parse, assembly and self-check per proof. */
  overheadSec: number;
  /** Resident bytes of one partition synthesizing alone: the envelope's first step (more at once follow workingSetBytes). */
  synthesisBytes: number;
  /** Resident bytes of one synthesized partition waiting for or held by a GPU worker (0: the envelope holds it). */
  gpuStageBytes: number;
  /** Bytes of per-proof state of each proof in flight beyond the envelope's baseline. */
  inFlightBytes: number;
}

/** Everything the pipeline takes from the model. */
export interface PipelineModel {
  kinds: Record<ProofKind, KindFigures>;
  /** Partitions that may synthesize at once when the head of the queue is of `kind`. */
  synthesisSlots(kind: ProofKind, pceResident: boolean): number;
  /**
   * Modelled seconds one partition of `kind` spends in a synthesis slot (warm) with
   * `proofsInFlight` proofs of it in flight: at the model's synthesizing partitions, the slots
   * of that PCE state capped by the partitions of the proofs in flight.
   */
  synthesisSecAt(kind: ProofKind, pceResident: boolean, proofsInFlight: number): number;
  /** Working memory of `partitions` of `kind` synthesizing at once: core's envelope above the idle footprint. */
  workingSetBytes(partitions: number, kind: ProofKind): number;
  /** Proofs in flight the envelope already includes (5): only those beyond add their per-proof state. */
  inFlightBaseline: number;
  /** Floor of the peak while PoRep runs with scheduler.max_batch_size > 1 (0 without batching). */
  porepBatchPeakBytes: number;
  /** GPU workers: GPUs x gpu_workers_per_device (pipeline mode) or GPUs (monolithic). */
  gpuWorkers: number;
  /** GPU workers per device (1 in monolithic mode). */
  gpuWorkersPerDevice: number;
  /** Slowdown of synthesis without a PCE cache. */
  coldSynthesisFactor: number;
  /** Modelled seconds to load a circuit's parameters. */
  srsLoadSec: number;
  /** Modelled seconds to extract a PCE after the first proof of a kind. */
  pceExtractionSec: number;
  /** Working memory of a PCE extraction. */
  pceExtractionBytes: number;
  srsBytes: Record<CircuitId, number>;
  pceBytes: Record<CircuitId, number>;
}

// Enough proofs in flight that only the config and memory cap the synthesis pool, and that the
// model's seconds per proof is its capacity, not one proof's latency.
const manyProofs = 1000;

interface Stages {
  /** Seconds per partition in a synthesis slot. */
  synthesisSec: number;
  /** Seconds per partition on one GPU worker. */
  gpuWorkerSec: number;
}

/**
 * Stage durations whose steady throughput is the model's: `p` slots each hold a partition
 * for (CPU-side seconds per proof x p / partitions), so the slots together deliver the model's
 * CPU-side rate (synthesis, cores and threads); a device finishes one partition per GPU second.
 * Both are stretched by the same factor so the slower stage runs at the model's seconds per
 * proof, which bends above the slowest bound (the bounds are combined, not maxed).
 */
function stagesFor(hw: HardwareSpec, config: DaemonConfig, kind: ProofKind, slots: number): Stages {
  const perDevice = config.pipelineEnabled ? Math.max(1, config.gpuWorkersPerDevice) : 1;
  const p = Math.max(1, slots);
  const timing = estimateTiming(hw, config, { kind, concurrency: manyProofs }, p);
  if (kind === "winning") {
    return { synthesisSec: winningPostSec.synthesis, gpuWorkerSec: timing.gpuSecPerPartition };
  }
  const slowest = Math.max(timing.cpuSideSecPerProof, timing.gpuSecPerProof);
  const stretch =
    Number.isFinite(timing.secPerProof) && slowest > 0 ? Math.max(1, timing.secPerProof / slowest) : 1;
  const partitions = partitionsPerProof[kind];
  return {
    synthesisSec: ((timing.cpuSideSecPerProof * p) / partitions) * stretch,
    // The model's GPU time is per device (a second worker overlaps the CPU part); one worker
    // takes perDevice times as long per partition, so a device still finishes one per gpuSec.
    gpuWorkerSec: timing.gpuSecPerPartition * perDevice * stretch,
  };
}

/** Derives the pipeline's figures for `config` on `hw` from the core model. */
export function createPipelineModel(hw: HardwareSpec, config: DaemonConfig): PipelineModel {
  const perDevice = config.pipelineEnabled ? Math.max(1, config.gpuWorkersPerDevice) : 1;
  const slotCache = new Map<string, number>();
  const slots = (kind: ProofKind, pceResident: boolean): number => {
    const key = `${kind}/${pceResident}`;
    let value = slotCache.get(key);
    if (value === undefined) {
      value = synthesisSlots(hw, config, { kind, concurrency: 1 }, manyProofs, pceResident).partitions;
      slotCache.set(key, value);
    }
    return value;
  };
  const stageCache = new Map<string, Stages>();
  const stages = (kind: ProofKind, pceResident: boolean, proofsInFlight = manyProofs): Stages => {
    const p = Math.min(slots(kind, pceResident), Math.max(1, proofsInFlight) * partitionsPerProof[kind]);
    const key = `${kind}/${p}`;
    let value = stageCache.get(key);
    if (value === undefined) {
      value = stagesFor(hw, config, kind, p);
      stageCache.set(key, value);
    }
    return value;
  };
  const figures = (kind: ProofKind): KindFigures => {
    const scale = partitionScale[kind];
    const warm = stages(kind, true);
    return {
      partitions: partitionsPerProof[kind],
      synthesisSec: warm.synthesisSec,
      gpuWorkerSec: warm.gpuWorkerSec,
      overheadSec: K.perProofOverheadSec.value * scale,
      synthesisBytes: workingSetBytes(1, kind),
      gpuStageBytes: K.porepPartitionGpuStageBytes.value * scale,
      inFlightBytes: K.inFlightProofBytes.value * scale,
    };
  };
  return {
    kinds: Object.fromEntries(proofKinds.map((kind) => [kind, figures(kind)])) as Record<
      ProofKind,
      KindFigures
    >,
    synthesisSlots: slots,
    synthesisSecAt: (kind, pceResident, proofsInFlight) =>
      stages(kind, pceResident, proofsInFlight).synthesisSec,
    workingSetBytes,
    inFlightBaseline: K.porepEnvelopeInFlightBaseline.value,
    porepBatchPeakBytes:
      config.maxBatchSize > 1 ? (K.batchPorepPeakBytes.value * config.maxBatchSize) / 2 : 0,
    gpuWorkers: gpuWorkerCount(hw, config),
    gpuWorkersPerDevice: perDevice,
    coldSynthesisFactor: K.coldSynthesisFactor.value,
    srsLoadSec: K.srsLoadSec.value,
    pceExtractionSec: K.pceExtractionSec.value,
    pceExtractionBytes: K.pceExtractionTransientBytes.value,
    srsBytes,
    pceBytes,
  };
}
