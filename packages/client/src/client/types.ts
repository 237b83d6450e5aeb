import type { MessageInitShape } from "@bufbuild/protobuf";
import type {
  AwaitProofRequestSchema,
  AwaitProofResponse,
  CancelProofRequestSchema,
  CancelProofResponse,
  EvictSrsRequestSchema,
  EvictSrsResponse,
  PreloadSrsRequestSchema,
  PreloadSrsResponse,
  ProveResponse,
  SubmitProofRequest,
  SubmitProofRequestSchema,
  SubmitProofResponse,
} from "@cuzkit/proto";
import type { DaemonMetrics } from "../metrics.js";
import type { ResolvedClientOptions } from "../options.js";
import type { ProofResult, ProveOptions } from "../prove.js";
import type { porepRequest, snapRequest, windowPostRequest, winningPostRequest } from "../requests.js";
import type { DaemonStatus } from "../status.js";

// The client's public shapes: the CuzkClient interface and the options of its calls.

/** Options every RPC takes. */
export interface CallOptions {
  /** Aborts the call with AbortedError. */
  signal?: AbortSignal | undefined;
  /** Deadline of this call in ms; overrides the client's default for the RPC kind. */
  timeoutMs?: number | undefined;
}

/** Options of the proof-waiting RPCs (AwaitProof, Prove). */
export interface ProofCallOptions extends CallOptions {
  /** Use the warmup deadline (a first proof without caches). Default false. */
  warmup?: boolean | undefined;
}

/** Options of submitProof. */
export interface SubmitOptions extends CallOptions {
  /** Send a request id this client already sent (RequestIdReusedError otherwise). Only when you know the first never ran. Default false. */
  allowReusedId?: boolean | undefined;
}

/** Options of proveOnce. */
export interface ProveOnceOptions extends ProofCallOptions {
  /** Send a request id this client already sent (RequestIdReusedError otherwise). Only when you know the first never ran. Default false. */
  allowReusedId?: boolean | undefined;
}

/** Options of waitForReady. */
export interface WaitForReadyOptions {
  /** Give up after this long, in ms. Default 600000 (10 min: parameter loading before the daemon listens). */
  timeoutMs?: number | undefined;
  /** Aborts the wait with AbortedError. */
  signal?: AbortSignal | undefined;
}

/** A SubmitProofRequest, as a message or an init object. */
export type SubmitProofInput = SubmitProofRequest | MessageInitShape<typeof SubmitProofRequestSchema>;

/** A client of one cuzk daemon. Create with `createCuzkClient`; release with `close()`. */
export interface CuzkClient {
  /** The daemon address, normalised (`unix:///path` or `host:port`). */
  readonly address: string;
  /** The options in effect, defaults filled in. */
  readonly options: ResolvedClientOptions;
  /** SubmitProof: queues a job under request.requestId (required, never sent before by this client). Validated before sending. */
  submitProof(request: SubmitProofInput, options?: SubmitOptions): Promise<SubmitProofResponse>;
  /** AwaitProof: blocks until the job ends; the response's status says COMPLETED or FAILED. Deadline: proof (or warmup). */
  awaitProof(
    request: string | MessageInitShape<typeof AwaitProofRequestSchema>,
    options?: ProofCallOptions,
  ): Promise<AwaitProofResponse>;
  /** Submit, then await, with resume after a broken connection and resubmission after a restart. Throws ProofFailedError on FAILED. */
  prove(request: SubmitProofInput, options?: ProveOptions): Promise<ProofResult>;
  /** The daemon's single Prove RPC (as cuzk-bench and Curio use it): no resume. An empty request id is filled in; a reused one is refused. */
  proveOnce(request: SubmitProofInput, options?: ProveOnceOptions): Promise<ProveResponse>;
  /** CancelProof. A no-op in the daemon (always was_running=false): the job keeps running. */
  cancelProof(
    request: string | MessageInitShape<typeof CancelProofRequestSchema>,
    options?: CallOptions,
  ): Promise<CancelProofResponse>;
  /** GetStatus, with GPUs de-duplicated by ordinal and never-filled fields as undefined. */
  getStatus(options?: CallOptions): Promise<DaemonStatus>;
  /** GetMetrics, parsed from Prometheus text into typed values. */
  getMetrics(options?: CallOptions): Promise<DaemonMetrics>;
  /** PreloadSRS for a circuit id (porep-32g, wpost-32g, winning-32g, snap-32g, ...). Deadline: preload. */
  preloadSrs(
    request: string | MessageInitShape<typeof PreloadSrsRequestSchema>,
    options?: CallOptions,
  ): Promise<PreloadSrsResponse>;
  /** EvictSRS. A no-op in the daemon (always was_loaded=false). */
  evictSrs(
    request: string | MessageInitShape<typeof EvictSrsRequestSchema>,
    options?: CallOptions,
  ): Promise<EvictSrsResponse>;
  /** Polls GetStatus with backoff until the daemon answers; DaemonUnavailableError on timeout. */
  waitForReady(options?: WaitForReadyOptions): Promise<DaemonStatus>;
  /** Runs `task` inside one of the client's `maxInFlight` slots (FIFO), e.g. your own submit/await pair. */
  admit<T>(task: () => Promise<T>, options?: { signal?: AbortSignal | undefined }): Promise<T>;
  /** Proofs running and waiting for a slot. */
  inFlight(): { active: number; pending: number };
  /** Builds a PoRep request (reads the C1 file when given a path). */
  porepRequest: typeof porepRequest;
  /** Builds a SnapDeals request. */
  snapRequest: typeof snapRequest;
  /** Builds a WindowPoSt request. */
  windowPostRequest: typeof windowPostRequest;
  /** Builds a WinningPoSt request. */
  winningPostRequest: typeof winningPostRequest;
  /** Fails open calls with AbortedError and releases the HTTP/2 session. */
  close(): Promise<void>;
}
