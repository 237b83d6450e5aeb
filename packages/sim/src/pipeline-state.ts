import { type CircuitId, circuitForKind, type ProofKind } from "@cuzkit/core";
import type { PartitionState, PipelineDeps, PipelineJobSpec, ProofOutcome } from "./pipeline-types.js";

// The state of one run's pipeline, shared by its stages (pipeline-stages.ts), its parameter and
// PCE residency (pipeline-resources.ts) and its snapshot (pipeline-snapshot.ts), with the helpers
// every stage uses: timers that stop on dispose, and memory in use recomputed by the model's law.

/** One partition of a proof, with its stage and modelled durations. */
export interface Partition {
  job: Job;
  index: number;
  state: PartitionState;
  synthMs: number | null;
  gpuMs: number | null;
}

/** One proof handed to the pipeline. */
export interface Job {
  seq: number;
  spec: PipelineJobSpec;
  submittedAt: number;
  registeredAt: number | undefined;
  finishedAt: number | undefined;
  partitions: Partition[];
  partitionsDone: number;
  onDone: (outcome: ProofOutcome) => void;
}

/** A GPU worker and the partition it holds. */
export interface GpuWorker {
  workerId: number;
  gpuOrdinal: number;
  partition: Partition | undefined;
  busySince: number;
}

/** A circuit's parameters: loading (with who waits) or loaded. */
export type SrsState =
  | { state: "loading"; waiters: (() => void)[] }
  | { state: "loaded"; lastUsedAt: number };
/** A circuit's PCE: being extracted or resident. */
export type PceState = "extracting" | "resident";

/** Everything one run's pipeline holds. */
export interface PipelineState {
  deps: PipelineDeps;
  timers: Set<() => void>;
  disposed: boolean;
  /** Memory in use as last computed, in bytes. */
  memory: number;
  /** The next job's sequence number (partitions reach the GPUs in job order). */
  seq: number;
  /** Proofs dispatched whose parameters are still loading. */
  activeDispatch: number;
  /** Partitions synthesizing now. */
  synthesizing: number;
  // What memory in use is made of; memory is recomputed from these at every change.
  residentBytes: number;
  transientBytes: number;
  synthesizingByKind: Map<ProofKind, number>;
  gpuStageBytes: number;
  inFlight: Set<Job>;
  dispatchQueue: Job[];
  synthQueue: Partition[];
  gpuQueue: Partition[];
  /** Partitioned proofs as /status shows them (finished ones until retention ends). */
  jobs: Set<Job>;
  srs: Map<CircuitId, SrsState>;
  pce: Map<CircuitId, PceState>;
  workers: GpuWorker[];
}

/** The empty state of a new pipeline: no jobs, nothing resident, every GPU worker idle. */
export function createPipelineState(deps: PipelineDeps): PipelineState {
  const { model } = deps;
  return {
    deps,
    timers: new Set(),
    disposed: false,
    memory: 0,
    seq: 0,
    activeDispatch: 0,
    synthesizing: 0,
    residentBytes: 0,
    transientBytes: 0,
    synthesizingByKind: new Map(),
    gpuStageBytes: 0,
    inFlight: new Set(),
    dispatchQueue: [],
    synthQueue: [],
    gpuQueue: [],
    jobs: new Set(),
    srs: new Map(),
    pce: new Map(),
    workers: Array.from({ length: model.gpuWorkers }, (_, workerId) => ({
      workerId,
      gpuOrdinal: Math.min(deps.gpuCount - 1, Math.floor(workerId / model.gpuWorkersPerDevice)),
      partition: undefined,
      busySince: 0,
    })),
  };
}

/** Real milliseconds of `modelSec` modelled seconds. */
export function realMs(s: PipelineState, modelSec: number): number {
  return modelSec * 1000 * s.deps.timeScale;
}

/** Calls `callback` after `modelSec` modelled seconds, unless the pipeline is disposed first. */
export function after(s: PipelineState, modelSec: number, callback: () => void): void {
  const cancel = s.deps.scheduler.setTimer(
    () => {
      s.timers.delete(cancel);
      if (!s.disposed) callback();
    },
    realMs(s, modelSec),
  );
  s.timers.add(cancel);
}

/** Stops every timer; nothing calls back afterwards. */
export function disposePipeline(s: PipelineState): void {
  s.disposed = true;
  for (const cancel of s.timers) cancel();
  s.timers.clear();
}

/** Memory in use from the pipeline's state, by the model's law. */
function memoryNow(s: PipelineState): number {
  const { model } = s.deps;
  let bytes = s.residentBytes + s.transientBytes + s.gpuStageBytes;
  for (const [kind, count] of s.synthesizingByKind) bytes += model.workingSetBytes(count, kind);
  let rank = 0;
  let porepInFlight = false;
  for (const job of s.inFlight) {
    if (rank++ >= model.inFlightBaseline) bytes += model.kinds[job.spec.kind].inFlightBytes;
    if (job.spec.kind === "porep") porepInFlight = true;
  }
  return porepInFlight ? Math.max(bytes, model.porepBatchPeakBytes) : bytes;
}

/** Recomputes memory in use after a change; returns false when that OOM-killed the daemon. */
export function updateMemory(s: PipelineState): boolean {
  s.memory = memoryNow(s);
  s.deps.onMemory?.(s.memory);
  if (s.memory > s.deps.usableRamBytes) {
    const detail = { memoryInUseBytes: s.memory, usableRamBytes: s.deps.usableRamBytes };
    disposePipeline(s);
    s.deps.onOom(detail);
    return false;
  }
  return true;
}

/** Counts `delta` partitions of `kind` into (or out of) synthesis. */
export function setSynthesizing(s: PipelineState, kind: ProofKind, delta: number): void {
  s.synthesizing += delta;
  s.synthesizingByKind.set(kind, (s.synthesizingByKind.get(kind) ?? 0) + delta);
}

/** Whether the PCE of `kind`'s circuit is resident (its synthesis is warm). */
export function pceResident(s: PipelineState, kind: ProofKind): boolean {
  return s.pce.get(circuitForKind[kind]) === "resident";
}
