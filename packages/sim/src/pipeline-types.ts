import type { CircuitId, ProofKind } from "@cuzkit/core";
import type { PipelineModel } from "./pipeline-model.js";
import type { SimScheduler } from "./scheduler.js";

// The pipeline's public shapes: what it is handed, what it reports and what it calls back.

/** Timing fields of a finished proof, in real milliseconds, as the daemon reports them. */
export interface ProofTimings {
  queueWaitMs: number;
  synthesisMs: number;
  gpuComputeMs: number;
  totalMs: number;
}

/** How a proof ended. */
export type ProofOutcome =
  | { status: "completed"; timings: ProofTimings }
  | { status: "failed"; errorMessage: string };

/** One proof handed to the pipeline. */
export interface PipelineJobSpec {
  jobId: string;
  kind: ProofKind;
  /** Proto priority (higher first at dispatch). */
  priority: number;
  /** Set when the input is bad: the proof fails at dispatch with this message. */
  inputFailure?: string | undefined;
  /** Set by the failNextProofs fault: the proof runs, then fails with this message. */
  injectedFailure?: string | undefined;
}

/** State of one partition, with the daemon's /status names. */
export type PartitionState = "pending" | "synthesizing" | "synth_done" | "gpu" | "done" | "failed";

/** A GPU worker as status reports show it. */
export interface GpuWorkerView {
  workerId: number;
  gpuOrdinal: number;
  jobId: string | undefined;
  kind: ProofKind | undefined;
  partition: number | undefined;
  busyMs: number | undefined;
}

/** A partitioned proof in flight (or finished less than 30 s ago), as /status shows it. */
export interface PipelineView {
  jobId: string;
  kind: ProofKind;
  startedMsAgo: number;
  totalPartitions: number;
  partitionsDone: number;
  partitions: { index: number; state: PartitionState; synthMs: number | null; gpuMs: number | null }[];
}

/** A resident allocation (parameters or PCE). */
export interface AllocationView {
  circuitId: CircuitId;
  bytes: number;
  lastUsedMsAgo: number;
  evictable: boolean;
}

/** What the pipeline looks like now. */
export interface PipelineSnapshot {
  memoryInUseBytes: number;
  synthesizing: number;
  waitingForGpu: number;
  onGpu: number;
  /** Proofs not yet dispatched, per kind. */
  queued: Partial<Record<ProofKind, number>>;
  queueDepth: number;
  gpuWorkers: GpuWorkerView[];
  pipelines: PipelineView[];
  srs: AllocationView[];
  pce: AllocationView[];
}

/** Why the pipeline killed the daemon. */
export interface OomDetail {
  memoryInUseBytes: number;
  usableRamBytes: number;
}

/** What the pipeline needs around it. */
export interface PipelineDeps {
  model: PipelineModel;
  scheduler: SimScheduler;
  /** Real seconds per modelled second. */
  timeScale: number;
  /** Whether a PCE for `circuit` exists at start (loaded with the parameters). */
  pceCached(circuit: CircuitId): boolean;
  /** Called once a circuit's PCE extraction has finished and it is resident (the daemon then writes its file). */
  onPceExtracted?(circuit: CircuitId): void;
  /** RAM the daemon may use before it is OOM-killed, in bytes. */
  usableRamBytes: number;
  /** GPU ordinals, one per GPU. */
  gpuCount: number;
  /** pipeline.synthesis_concurrency: proofs dispatched at once. */
  dispatchConcurrency: number;
  /** Called once when memory in use exceeds usable RAM; the pipeline stops itself first. */
  onOom(detail: OomDetail): void;
  /** Called whenever memory in use changes. */
  onMemory?(bytes: number): void;
}

/** The simulated pipeline of one daemon run. */
export interface Pipeline {
  /** Queues a proof; `onDone` is called once when it ends (never after dispose). */
  submit(spec: PipelineJobSpec, onDone: (outcome: ProofOutcome) => void): void;
  /** Loads a circuit's parameters like PreloadSRS; calls back with whether they were loaded already. */
  preload(circuit: CircuitId, onDone: (alreadyLoaded: boolean) => void): void;
  /** Proofs not yet dispatched. */
  queueDepth(): number;
  snapshot(): PipelineSnapshot;
  memoryInUseBytes(): number;
  /** Stops every timer; nothing calls back afterwards. */
  dispose(): void;
}

/** How long /status keeps a finished pipeline entry (the daemon GCs it 30 s after completion). */
export const pipelineRetentionMs = 30_000;
