import { setMaxListeners } from "node:events";
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { createClient } from "@connectrpc/connect";
import { isCircuitId, linkSignals } from "@cuzkit/core";
import {
  type AwaitProofRequestSchema,
  type AwaitProofResponse,
  type CancelProofRequestSchema,
  type CancelProofResponse,
  type EvictSrsRequestSchema,
  type EvictSrsResponse,
  type PreloadSrsRequestSchema,
  type PreloadSrsResponse,
  type ProveResponse,
  ProvingEngine,
  type SubmitProofRequest,
  SubmitProofRequestSchema,
  type SubmitProofResponse,
} from "@cuzkit/proto";
import { formatDaemonAddress } from "./address.js";
import { createAdmission } from "./admission.js";
import { checkDeadlineMs, wholeMs } from "./duration.js";
import { encodeSubmitFrame, toSubmitRequest } from "./encode.js";
import {
  AbortedError,
  InvalidRequestError,
  LocalTransportError,
  RequestIdReusedError,
  requestIdReusedMessage,
} from "./errors.js";
import { toCuzkError } from "./map-error.js";
import { type DaemonMetrics, parseDaemonMetrics } from "./metrics.js";
import { type CuzkClientOptions, type ResolvedClientOptions, resolveClientOptions } from "./options.js";
import { newUpload, withUploadOutcome } from "./outcome.js";
import {
  defaultRequestIdBase,
  type InternalCallOptions,
  type ProofResult,
  type ProveDeps,
  type ProveOptions,
  proveWithResume,
  type SubmitCallOptions,
  submitTimeoutMs,
} from "./prove.js";
import { waitUntilReady } from "./ready.js";
import { type StatusSample, statusSample } from "./recovery.js";
import { porepRequest, snapRequest, windowPostRequest, winningPostRequest } from "./requests.js";
import { createSentIds } from "./sent-ids.js";
import { type DaemonStatus, normalizeStatus } from "./status.js";
import { createDaemonTransport } from "./transport.js";
import { validateSubmitRequest } from "./validate.js";

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

/** A call's signal and its checked deadline (the caller's, else `fallbackMs`). */
function callDeadline(
  rpcName: string,
  callOptions: { signal?: AbortSignal | undefined; timeoutMs?: number | undefined } | undefined,
  fallbackMs: number,
): { signal: AbortSignal | undefined; timeoutMs: number } {
  return {
    signal: callOptions?.signal,
    timeoutMs: checkTimeout(rpcName, callOptions?.timeoutMs, fallbackMs),
  };
}

/** The `timeoutMs` option of `method()`, checked (see checkDeadlineMs), else `fallback`. */
function checkTimeout(method: string, timeoutMs: number | undefined, fallback: number): number {
  return checkDeadlineMs(`${method}() option timeoutMs`, timeoutMs, fallback);
}

/**
 * Creates a client of one cuzk daemon over gRPC (HTTP/2, TCP or unix socket). Nothing is
 * dialled until the first call, but the options and address are checked here: a bad address
 * throws InvalidAddressError now.
 */
export function createCuzkClient(clientOptions: CuzkClientOptions): CuzkClient {
  const options = resolveClientOptions(clientOptions);
  const address = formatDaemonAddress(options.address);
  const daemonTransport = createDaemonTransport({
    address: options.address,
    pingIntervalMs: options.keepalive.pingIntervalMs,
    pingTimeoutMs: options.keepalive.pingTimeoutMs,
    idleConnectionTimeoutMs: options.keepalive.idleConnectionTimeoutMs,
    readMaxBytes: options.maxRequestBytes,
  });
  const rpc = createClient(ProvingEngine, daemonTransport.transport);
  const closing = new AbortController();
  // Every call in flight listens for close(): hundreds are normal, not a leak.
  setMaxListeners(0, closing.signal);
  const admission = createAdmission(options.maxInFlight);
  let lastStatus: StatusSample | undefined;
  const sentIds = createSentIds();

  /** Runs one RPC with the caller's signal, the close signal and a deadline; maps every failure. */
  async function invoke<T>(
    name: string,
    call: { signal?: AbortSignal | undefined; timeoutMs: number; jobId?: string | undefined },
    run: (o: { signal: AbortSignal; timeoutMs: number }) => Promise<T>,
  ): Promise<T> {
    if (closing.signal.aborted) throw new AbortedError("the client is closed", { rpc: name, address });
    const linked = linkSignals(call.signal, closing.signal);
    // Deadlines computed from a monotonic clock are fractional; the wire takes whole ms.
    const timeoutMs = wholeMs(call.timeoutMs);
    try {
      return await run({ signal: linked.signal, timeoutMs });
    } catch (error) {
      const typed = toCuzkError(error, {
        rpc: name,
        jobId: call.jobId,
        address,
        callerSignal: call.signal,
        clientClosed: closing.signal.aborted,
        timeoutMs,
      });
      // A fault of our own session: new calls must not land on it (the pre-encoded path
      // retires the session it used itself).
      if (typed instanceof LocalTransportError && name !== "SubmitProof" && name !== "Prove") {
        daemonTransport.retireCurrentSession();
      }
      throw typed;
    } finally {
      linked.dispose();
    }
  }

  /**
   * Sends SubmitProof (or Prove) from a frame encoded without copying the payload. The id
   * counts as sent from here on, unless the body provably never got out.
   */
  async function sendEncoded<T>(
    name: "SubmitProof" | "Prove",
    request: SubmitProofRequest,
    call: SubmitCallOptions,
  ): Promise<T> {
    const body = encodeSubmitFrame(request, name === "Prove");
    sentIds.add(request.requestId);
    try {
      return await invoke(name, { ...call, jobId: request.requestId }, (o): Promise<T> => {
        const pre = { ...o, upload: call.upload };
        return (
          name === "Prove"
            ? daemonTransport.unaryPreEncoded(ProvingEngine.method.prove, body, pre)
            : daemonTransport.unaryPreEncoded(ProvingEngine.method.submitProof, body, pre)
        ) as Promise<T>;
      });
    } catch (error) {
      if (!call.upload.complete) sentIds.forget(request.requestId);
      throw error;
    }
  }

  /** Refuses an id this client already sent, unless the caller says it may be reused. */
  function checkFreshId(rpc: string, requestId: string, allowReusedId: boolean | undefined) {
    if (allowReusedId !== true && sentIds.has(requestId)) {
      throw new RequestIdReusedError(requestIdReusedMessage(requestId), { requestId, rpc, address });
    }
  }

  async function status(call: InternalCallOptions): Promise<DaemonStatus> {
    const sentAtMs = options.clock.now();
    const raw = await invoke("GetStatus", call, (o) => rpc.getStatus({}, o));
    const normalized = normalizeStatus(raw);
    lastStatus = statusSample(normalized, sentAtMs, options.clock.now());
    latest = { status: normalized, atMs: lastStatus.atMs };
    return normalized;
  }

  /** The latest GetStatus answer and when it arrived (clock ms), and the one being fetched for recentStatus. */
  let latest: { status: DaemonStatus; atMs: number } | undefined;
  let fetching: Promise<DaemonStatus> | undefined;

  /** A GetStatus no older than `maxAgeMs`, or the one in flight, else a new one: the stuck watches of several proofs share them. */
  async function recentStatus(maxAgeMs: number, call: InternalCallOptions): Promise<DaemonStatus> {
    if (latest !== undefined && options.clock.now() - latest.atMs <= maxAgeMs) return latest.status;
    if (fetching === undefined) {
      // Not tied to one caller's signal: another proof may be waiting on the same answer.
      const request = status({ timeoutMs: call.timeoutMs });
      fetching = request;
      void request.then(
        () => {
          if (fetching === request) fetching = undefined;
        },
        () => {
          if (fetching === request) fetching = undefined;
        },
      );
    }
    const shared = fetching;
    if (call.signal === undefined) return shared;
    const signal = call.signal;
    if (signal.aborted) throw signal.reason;
    return new Promise<DaemonStatus>((resolve, reject) => {
      const onAbort = () => reject(signal.reason);
      signal.addEventListener("abort", onAbort, { once: true });
      shared.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
    });
  }

  async function awaitJob(jobId: string, call: InternalCallOptions): Promise<AwaitProofResponse> {
    // timeout_ms is ignored by the daemon; sent anyway for daemons that honour it.
    return invoke("AwaitProof", { ...call, jobId }, (o) =>
      rpc.awaitProof({ jobId, timeoutMs: BigInt(o.timeoutMs) }, o),
    );
  }

  const proveDeps: ProveDeps = {
    options,
    address,
    submit: (request, call) => sendEncoded<SubmitProofResponse>("SubmitProof", request, call),
    awaitJob,
    status,
    recentStatus,
    lastStatus: () => lastStatus,
  };

  const proofDeadline = (method: string, o: ProofCallOptions | undefined) =>
    checkTimeout(
      method,
      o?.timeoutMs,
      o?.warmup ? options.deadlines.warmupProofMs : options.deadlines.proofMs,
    );

  const circuit = (name: string, value: string | { circuitId?: string }) => {
    const circuitId = typeof value === "string" ? value : (value.circuitId ?? "");
    if (!isCircuitId(circuitId)) {
      throw new InvalidRequestError(`unknown circuit id ${JSON.stringify(circuitId)}`, {
        hint: "use one of porep-32g, porep-64g, wpost-32g, winning-32g, snap-32g, snap-64g",
        rpc: name,
        address,
      });
    }
    return circuitId;
  };

  return {
    address,
    options,
    async submitProof(request, callOptions) {
      const message = toSubmitRequest(request);
      const { sizeBytes } = validateSubmitRequest(message, {
        maxRequestBytes: options.maxRequestBytes,
        rpc: "SubmitProof",
      });
      checkFreshId("SubmitProof", message.requestId, callOptions?.allowReusedId);
      const upload = newUpload();
      try {
        return await sendEncoded<SubmitProofResponse>("SubmitProof", message, {
          signal: callOptions?.signal,
          timeoutMs: checkTimeout("submitProof", callOptions?.timeoutMs, submitTimeoutMs(options, sizeBytes)),
          upload,
        });
      } catch (error) {
        throw withUploadOutcome(toCuzkError(error), message.requestId, upload, sizeBytes);
      }
    },
    async awaitProof(request, callOptions) {
      const jobId = typeof request === "string" ? request : (request.jobId ?? "");
      if (jobId === "") {
        return Promise.reject(
          new InvalidRequestError("awaitProof needs a job id", {
            hint: "pass the request id the job was submitted with",
            rpc: "AwaitProof",
            address,
          }),
        );
      }
      return awaitJob(jobId, {
        signal: callOptions?.signal,
        timeoutMs: proofDeadline("awaitProof", callOptions),
      });
    },
    async prove(request, callOptions = {}) {
      const message = toSubmitRequest(request);
      // Checked before admission and before any byte is sent; the checked (whole ms) value is used.
      const checked =
        callOptions.timeoutMs === undefined
          ? callOptions
          : { ...callOptions, timeoutMs: checkTimeout("prove", callOptions.timeoutMs, 0) };
      return admission.run(() => {
        if (closing.signal.aborted)
          throw new AbortedError("the client is closed", { rpc: "SubmitProof", address });
        return proveWithResume(proveDeps, message, checked);
      }, callOptions.signal);
    },
    async proveOnce(request, callOptions) {
      let message = toSubmitRequest(request);
      const { kind, sizeBytes } = validateSubmitRequest(message, {
        requireRequestId: false,
        maxRequestBytes: options.maxRequestBytes,
        asProve: true,
        rpc: "Prove",
      });
      if (message.requestId.trim() !== "")
        checkFreshId("Prove", message.requestId, callOptions?.allowReusedId);
      if (message.requestId.trim() === "") {
        // The daemon answers job_id "" to a Prove without an id; give it a unique one.
        const suffix = Math.floor(options.random() * 36 ** 6).toString(36);
        message = create(SubmitProofRequestSchema, {
          ...message,
          requestId: `${defaultRequestIdBase(kind, message)}-p-${suffix}`,
        });
      }
      const timeoutMs = checkTimeout(
        "proveOnce",
        callOptions?.timeoutMs,
        proofDeadline("proveOnce", callOptions) + submitTimeoutMs(options, sizeBytes),
      );
      const upload = newUpload();
      return admission.run(async () => {
        try {
          return await sendEncoded<ProveResponse>("Prove", message, {
            signal: callOptions?.signal,
            timeoutMs,
            upload,
          });
        } catch (error) {
          throw withUploadOutcome(toCuzkError(error), message.requestId, upload, sizeBytes);
        }
      }, callOptions?.signal);
    },
    async cancelProof(request, callOptions) {
      const jobId = typeof request === "string" ? request : (request.jobId ?? "");
      return invoke(
        "CancelProof",
        { ...callDeadline("cancelProof", callOptions, options.deadlines.cancelMs), jobId },
        (o) => rpc.cancelProof({ jobId }, o),
      );
    },
    async getStatus(callOptions) {
      return status(callDeadline("getStatus", callOptions, options.deadlines.statusMs));
    },
    async getMetrics(callOptions) {
      const raw = await invoke(
        "GetMetrics",
        callDeadline("getMetrics", callOptions, options.deadlines.metricsMs),
        (o) => rpc.getMetrics({}, o),
      );
      return parseDaemonMetrics(raw.prometheusText);
    },
    async preloadSrs(request, callOptions) {
      const circuitId = circuit("PreloadSRS", request);
      return invoke("PreloadSRS", callDeadline("preloadSrs", callOptions, options.deadlines.preloadMs), (o) =>
        rpc.preloadSRS({ circuitId }, o),
      );
    },
    async evictSrs(request, callOptions) {
      const circuitId = circuit("EvictSRS", request);
      return invoke("EvictSRS", callDeadline("evictSrs", callOptions, options.deadlines.evictMs), (o) =>
        rpc.evictSRS({ circuitId }, o),
      );
    },
    async waitForReady(waitOptions = {}) {
      return waitUntilReady(
        { options, address, status },
        {
          timeoutMs: checkTimeout("waitForReady", waitOptions.timeoutMs, 10 * 60_000),
          signal: waitOptions.signal,
        },
      );
    },
    admit(task, admitOptions) {
      return admission.run(task, admitOptions?.signal);
    },
    inFlight() {
      return { active: admission.active, pending: admission.pending };
    },
    porepRequest,
    snapRequest,
    windowPostRequest,
    winningPostRequest,
    async close() {
      if (closing.signal.aborted) return;
      closing.abort(new AbortedError("the client was closed", { address }));
      daemonTransport.close();
    },
  };
}
