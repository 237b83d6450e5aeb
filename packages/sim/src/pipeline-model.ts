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
} from "@cuzkit/core";

// What the pipeline needs from the core model, computed once per daemon run: durations in
// modelled seconds and memory in bytes, per proof kind. The constants are core's
// (packages/core/src/model/constants.ts); nothing here invents a number.

/** Per-kind figures of the simulated pipeline. */
export interface KindFigures {
  /** Partitions per proof. */
  partitions: number;
  /** Modelled seconds to synthesize one partition with a PCE (warm). */
  synthesisSec: number;
  /** Modelled seconds one GPU worker spends on one partition. */
  gpuWorkerSec: number;
  /** Modelled seconds of C1 parse, assembly and self-check per proof. */
  overheadSec: number;
  /** Resident bytes of one synthesizing partition. */
  synthesisBytes: number;
  /** Resident bytes of one synthesized partition waiting for or held by a GPU worker. */
  gpuStageBytes: number;
  /** Bytes of per-proof state while the proof is in flight. */
  inFlightBytes: number;
}

/** Everything the pipeline takes from the model. */
export interface PipelineModel {
  kinds: Record<ProofKind, KindFigures>;
  /** Partitions that may synthesize at once when the head of the queue is of `kind`. */
  synthesisSlots(kind: ProofKind, pceResident: boolean): number;
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

// Enough proofs in flight that only the config and memory cap the synthesis pool.
const manyProofs = 1000;

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
  const figures = (kind: ProofKind): KindFigures => {
    const timing = estimateTiming(hw, config, { kind, concurrency: 1 }, Math.max(1, slots(kind, true)));
    const scale = partitionScale[kind];
    // The model's GPU time is per device (a second worker overlaps the CPU part); one worker
    // takes perDevice times as long per partition, so a device still finishes one per gpuSec.
    const gpuWorkerSec =
      kind === "winning" ? timing.gpuSecPerPartition : timing.gpuSecPerPartition * perDevice;
    return {
      partitions: partitionsPerProof[kind],
      synthesisSec: kind === "winning" ? winningPostSec.synthesis : timing.synthesisSecPerPartition,
      gpuWorkerSec,
      overheadSec: K.perProofOverheadSec.value * scale,
      synthesisBytes: K.porepPartitionSynthesisBytes.value * scale,
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
