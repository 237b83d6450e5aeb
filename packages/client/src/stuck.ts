import {
  findGpuModel,
  gpuCatalog,
  gpuSecPerPartition,
  modelConstants,
  type ProofKind,
  partitionScale,
  partitionsPerProof,
  proofKindStatusName,
  synthesisSecPerPartition,
  winningPostSec,
} from "@cuzkit/core";
import type { DaemonStatus } from "./status.js";

// Stuck-job detection, pure (no I/O, no clock): a daemon can answer GetStatus while a job it
// holds never finishes (a GPU call that never returns, a deadlocked synthesis). While prove()
// awaits a job it samples GetStatus and asks whether anything moved; a job with no progress for
// longer than the model's expected duration x a margin is stuck. Before the job is first seen on
// a GPU, progress is any of: the daemon's completed/failed counters grow (a proof ahead of it
// ended), the job appears on a GPU (current_job_id), or the kind's queue shrinks. After, only
// the job itself moving counts (back onto a GPU for its next partition).

/** The least window when it comes from the model, ms: short synthetic proofs are never called stuck. */
export const defaultStuckMinMs = 120_000;
/** How often prove() samples GetStatus while it awaits a job, ms (capped at a quarter of the window). */
export const defaultStuckPollIntervalMs = 15_000;
/** The model's expected duration is multiplied by this. */
export const defaultStuckMarginFactor = 3;

/** What one GetStatus says about a job, as evidence. */
export interface StuckSample {
  /** When the answer arrived, clock ms. */
  atMs: number;
  /** The daemon's total completed proofs. */
  completed: number;
  /** The daemon's total failed proofs. */
  failed: number;
  /** Jobs of the kind waiting for dispatch (the daemon lists a queue only while it has pending jobs: 0 otherwise). */
  queuePending: number;
  /** Workers busy with the kind, per the queue row (0 when not listed). */
  queueInProgress: number;
  /** GPU current_job_id values, de-duplicated. */
  gpuCurrentJobIds: string[];
  /** Whether the job is on a GPU now. */
  jobOnGpu: boolean;
}

/** The sample of `status` for job `jobId` of `kind`, answered at `atMs`. */
export function stuckSample(status: DaemonStatus, jobId: string, kind: ProofKind, atMs: number): StuckSample {
  const queue = status.queues.find((q) => q.proofKind === proofKindStatusName[kind]);
  const ids = [...new Set(status.gpus.flatMap((gpu) => gpu.currentJobs.map((job) => job.jobId)))];
  return {
    atMs,
    completed: status.totalProofsCompleted,
    failed: status.totalProofsFailed,
    queuePending: queue?.pending ?? 0,
    queueInProgress: queue?.inProgress ?? 0,
    gpuCurrentJobIds: ids,
    jobOnGpu: ids.includes(jobId),
  };
}

/**
 * What moved between two samples for the job, or undefined when nothing did. Until the job has
 * been seen on a GPU (`started` false) it waits its turn, so any proof ending or the queue
 * shrinking is progress. Once started, only the job's own movement counts (it comes back onto a
 * GPU for its next partition): other jobs completing beside a wedged one must not hide it.
 */
export function progressBetween(
  before: StuckSample,
  after: StuckSample,
  started = false,
): string | undefined {
  if (after.jobOnGpu && !before.jobOnGpu) return "job-on-gpu";
  if (started) return undefined;
  if (after.completed > before.completed || after.failed > before.failed) return "counters";
  if (after.queuePending < before.queuePending) return "queue";
  return undefined;
}

/** The speed factor the estimate uses: the slowest GPU the catalog knows, else the slowest in the catalog (conservative). */
function speedFactorOf(gpuNames: readonly string[]): { factor: number; known: boolean } {
  const known = gpuNames.map((name) => findGpuModel(name)?.speedFactor).filter((f) => f !== undefined);
  if (known.length > 0) return { factor: Math.min(...known), known: true };
  return { factor: Math.min(...gpuCatalog.map((gpu) => gpu.speedFactor)), known: false };
}

/**
 * Expected duration of one proof of `kind` alone on the daemon, in ms, from core's daemon model:
 * partitions synthesizing two at a time (the daemon never runs fewer synthesis workers), the GPU
 * stage on the slowest GPU named (the catalog's slowest when none is known), the per-proof
 * overhead; a warmup adds the parameter load and cold synthesis.
 */
export function expectedProofMs(kind: ProofKind, gpuNames: readonly string[], warmup = false): number {
  const { factor } = speedFactorOf(gpuNames);
  const K = modelConstants;
  const scale = partitionScale[kind];
  let seconds: number;
  if (kind === "winning") {
    seconds = winningPostSec.synthesis + winningPostSec.gpu / factor + K.perProofOverheadSec.value * scale;
  } else {
    const partitions = partitionsPerProof[kind];
    const atOnce = Math.min(2, partitions);
    const synth = synthesisSecPerPartition(atOnce, 2 * atOnce * K.smtThreadsPerCore.value, scale);
    const gpu = gpuSecPerPartition(factor, 1, scale);
    seconds =
      Math.ceil(partitions / atOnce) * synth +
      Math.max(gpu, partitions * gpu - synth) +
      K.perProofOverheadSec.value * scale;
  }
  if (warmup) seconds = seconds * K.coldSynthesisFactor.value + K.srsLoadSec.value;
  return Math.round(seconds * 1000);
}

/** Stuck detection settings, resolved (see StuckOptions in options.ts). */
export interface ResolvedStuckOptions {
  /** Off: prove() never polls for progress. */
  enabled: boolean;
  /** Multiplies the model's expected duration. */
  marginFactor: number;
  /** A fixed window in ms instead of the model's; undefined: from the model. */
  afterMs: number | undefined;
  /** Least window from the model, ms. */
  minMs: number;
  /** GetStatus interval while awaiting, ms. */
  pollIntervalMs: number;
}

/** The window without progress after which a job is stuck, and the ETA it came from. */
export interface StuckWindow {
  /** Window in ms. */
  windowMs: number;
  /** The model's expected duration in ms; undefined when a fixed window (afterMs) was given. */
  etaMs: number | undefined;
  /** Whether the GPU named by GetStatus is in the catalog (else a conservative speed was assumed). */
  gpuKnown: boolean;
}

/** The stuck window for a job of `kind` on a daemon whose GPUs are `gpuNames`. */
export function stuckWindow(
  options: ResolvedStuckOptions,
  kind: ProofKind,
  gpuNames: readonly string[],
  warmup: boolean,
): StuckWindow {
  const gpuKnown = speedFactorOf(gpuNames).known;
  if (options.afterMs !== undefined) return { windowMs: options.afterMs, etaMs: undefined, gpuKnown };
  const etaMs = expectedProofMs(kind, gpuNames, warmup);
  return { windowMs: Math.max(options.minMs, etaMs * options.marginFactor), etaMs, gpuKnown };
}

/** How long to wait between samples for a window of `windowMs`. */
export function stuckPollMs(options: ResolvedStuckOptions, windowMs: number): number {
  return Math.max(1, Math.min(options.pollIntervalMs, windowMs / 4));
}
