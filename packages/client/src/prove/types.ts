import type { ProofKind } from "@cuzkit/core";
import type { AwaitProofResponse, SubmitProofRequest, SubmitProofResponse } from "@cuzkit/proto";
import type { ProveEvent } from "../events.js";
import type { ResolvedClientOptions } from "../options.js";
import type { StatusSample } from "../recovery.js";
import type { DaemonStatus } from "../status.js";
import type { UploadProgress } from "../transport.js";

// The public shapes of prove(): its options, its result, and the operations it needs.

/** Per-call options of `prove`. */
export interface ProveOptions {
  /** Resubmit a job the daemon lost: false, true (the client's budget for the kind, at least 1) or a count. Default: the client's `resubmit` for the kind. */
  resubmit?: boolean | number | undefined;
  /** A first proof (no parameters in memory, no PCE cache): uses the warmup deadline. Default false. */
  warmup?: boolean | undefined;
  /** Aborts the call (AbortedError). The daemon cannot cancel a submitted job; it keeps running. */
  signal?: AbortSignal | undefined;
  /**
   * Deadline of the whole call in ms, reconnects and resubmits included: a finite number > 0,
   * fractions rounded up to whole ms; NaN, Infinity, 0 or less throw InvalidInputError before
   * anything is sent. Default: deadlines.proofMs or warmupProofMs.
   */
  timeoutMs?: number | undefined;
  /** Receives each step: attempt, submitted, connection-lost, reconnecting, waiting-for-restart, resumed, daemon-restarted, resubmitted, stuck, completed, failed. */
  onEvent?: ((event: ProveEvent) => void) | undefined;
}

/** Timings the daemon reports for a completed proof (srs_load_ms is always 0 upstream, so left out). */
export interface ProofTimings {
  /** Time queued before work started, in ms. */
  queueWaitMs: number;
  /** Synthesis time, SUMMED over partitions (can exceed wall time), in ms. */
  synthesisMs: number;
  /** GPU time, SUMMED over partitions, in ms. */
  gpuComputeMs: number;
  /** Submit to completion on the daemon, in ms. */
  totalMs: number;
}

/** A completed proof. */
export interface ProofResult {
  /** The proof kind. */
  kind: ProofKind;
  /** Job id (= request id) of the attempt that produced the proof. */
  jobId: string;
  /** The proof bytes (192 per partition). */
  proof: Uint8Array;
  /** Timings from the daemon. */
  timings: ProofTimings;
  /** Attempts made (1 when nothing went wrong). */
  attempts: number;
  /** Resubmissions after the daemon lost the job. */
  resubmits: number;
  /** Times the client re-attached to a running job after a broken connection. */
  resumes: number;
  /** Wall time of the call, in ms (injected clock). */
  wallMs: number;
  /** The daemon's response as received. */
  response: AwaitProofResponse;
}

/** Call options the prove loop passes to the low-level operations. */
export interface InternalCallOptions {
  signal?: AbortSignal | undefined;
  timeoutMs: number;
}

/** Call options of a submit: the upload tracker tells how far the request body got. */
export interface SubmitCallOptions extends InternalCallOptions {
  upload: UploadProgress;
}

/** The operations prove needs; the client provides them over the wire, tests provide fakes. */
export interface ProveDeps {
  options: ResolvedClientOptions;
  /** SubmitProof with a validated request; fills `call.upload` as the body goes out. */
  submit(request: SubmitProofRequest, call: SubmitCallOptions): Promise<SubmitProofResponse>;
  /** AwaitProof on a job id. */
  awaitJob(jobId: string, call: InternalCallOptions): Promise<AwaitProofResponse>;
  /** GetStatus. */
  status(call: InternalCallOptions): Promise<DaemonStatus>;
  /** A GetStatus answer no older than `maxAgeMs` (clock ms), shared by the calls in flight; else a fresh GetStatus. Default: `status`. */
  recentStatus?(maxAgeMs: number, call: InternalCallOptions): Promise<DaemonStatus>;
  /** The most recent GetStatus seen by the client, as evidence for a later break. */
  lastStatus(): StatusSample | undefined;
  /** The daemon address, for messages. */
  address: string;
}
