import { create } from "@bufbuild/protobuf";
import { type CuzkitError, type ProofKind, proofKindLabel } from "@cuzkit/core";
import {
  type AwaitProofResponse,
  AwaitProofResponse_Status,
  type SubmitProofRequest,
  SubmitProofRequestSchema,
  type SubmitProofResponse,
} from "@cuzkit/proto";
import pRetry, { AbortError as RetryStop } from "p-retry";
import {
  AbortedError,
  ConnectionLostError,
  DaemonRestartedError,
  DaemonUnavailableError,
  DeadlineExceededError,
  JobNotFoundError,
  oomHint,
  ProofFailedError,
} from "./errors.js";
import { logProveEvent, type ProveEvent } from "./events.js";
import { toCuzkError } from "./map-error.js";
import type { ResolvedClientOptions } from "./options.js";
import type { DaemonStatus } from "./status.js";
import { validateSubmitRequest } from "./validate.js";

// prove(): submit, then await, with resume. The daemon keeps a job running when a call's
// connection breaks, but loses every job when it restarts, and never deduplicates request
// ids (a repeated id can mix two proofs' partitions). So: every attempt gets a fresh id; on
// a broken connection the client probes the daemon and decides from evidence:
// - it answers, same process (uptime did not go back): AwaitProof the same id (no work lost);
// - it answers but restarted (uptime went back, or NOT_FOUND for the id): the job is gone:
//   resubmit with a new id if allowed, else DaemonRestartedError;
// - it refuses connections: the process died; with no resubmit allowed that is final at once
//   (ConnectionLostError), otherwise wait for it to come back and resubmit;
// - it does not answer within the reconnect window: DaemonUnavailableError.

/** Per-call options of `prove`. */
export interface ProveOptions {
  /** Resubmit a job the daemon lost: false, true (the client's budget for the kind, at least 1) or a count. Default: the client's `resubmit` for the kind. */
  resubmit?: boolean | number;
  /** A first proof (no parameters in memory, no PCE cache): uses the warmup deadline. Default false. */
  warmup?: boolean;
  /** Aborts the call (AbortedError). The daemon cannot cancel a submitted job; it keeps running. */
  signal?: AbortSignal;
  /** Deadline of the whole call in ms, reconnects and resubmits included. Default: deadlines.proofMs or warmupProofMs. */
  timeoutMs?: number;
  /** Receives each step: attempt, submitted, connection-lost, reconnecting, resumed, daemon-restarted, resubmitted, completed, failed. */
  onEvent?: (event: ProveEvent) => void;
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

/** The operations prove needs; the client provides them over the wire, tests provide fakes. */
export interface ProveDeps {
  options: ResolvedClientOptions;
  /** SubmitProof with a validated request. */
  submit(request: SubmitProofRequest, call: InternalCallOptions): Promise<SubmitProofResponse>;
  /** AwaitProof on a job id. */
  awaitJob(jobId: string, call: InternalCallOptions): Promise<AwaitProofResponse>;
  /** GetStatus. */
  status(call: InternalCallOptions): Promise<DaemonStatus>;
  /** The most recent GetStatus seen by the client: uptime and when (clock ms). */
  lastStatus(): { uptimeSeconds: number; atMs: number } | undefined;
  /** The daemon address, for messages. */
  address: string;
}

/** Uptime may lag by this much (integer seconds, clock skew) before it counts as "went back". */
const uptimeSlackSeconds = 2;
/** A submit that broke before the daemon took it is re-sent at most this many times. */
const maxNotAcceptedResends = 3;

function randomSuffix(random: () => number): string {
  let out = "";
  for (let i = 0; i < 6; i++) out += Math.floor(random() * 36).toString(36);
  return out;
}

/** The base of request ids when the caller gives none: Curio's deterministic id shapes. */
export function defaultRequestIdBase(kind: ProofKind, request: SubmitProofRequest): string {
  switch (kind) {
    case "porep":
      return `porep-${request.minerId}-${request.sectorNumber}`;
    case "snap":
      return `snap-${request.minerId}-${request.sectorNumber}`;
    case "wpost":
      return `wdpost-${request.minerId}-${request.partitionIndex}`;
    case "winning":
      return `winpost-${request.minerId}`;
  }
}

/** The submit deadline for a request of `sizeBytes`: base + per-MiB allowance. */
export function submitTimeoutMs(options: ResolvedClientOptions, sizeBytes: number): number {
  return Math.ceil(
    options.deadlines.submitBaseMs + (sizeBytes / (1024 * 1024)) * options.deadlines.submitPerMiBMs,
  );
}

function resubmitBudget(
  options: ResolvedClientOptions,
  kind: ProofKind,
  resubmit: boolean | number | undefined,
): number {
  if (resubmit === undefined) return options.resubmit[kind];
  if (resubmit === false) return 0;
  if (resubmit === true) return Math.max(1, options.resubmit[kind]);
  return Math.max(0, Math.floor(resubmit));
}

/** A break: the connection to the daemon failed while a call was open (or the submit timed out). */
function isBreak(error: CuzkitError): boolean {
  return error instanceof ConnectionLostError;
}

type Recovery =
  | { kind: "resume"; status: DaemonStatus }
  | { kind: "lost"; evidence: "uptime" | "refused"; status: DaemonStatus; uptimeBefore: number | undefined };

/** Runs one `prove` call: validate, submit, await, and recover from breaks as described above. */
export async function proveWithResume(
  deps: ProveDeps,
  input: SubmitProofRequest,
  callOptions: ProveOptions = {},
): Promise<ProofResult> {
  const { options } = deps;
  const { clock, sleep } = options;
  const startMs = clock.now();
  const callerSignal = callOptions.signal;
  const { kind, sizeBytes } = validateSubmitRequest(input, {
    requireRequestId: false,
    maxRequestBytes: options.maxRequestBytes,
    rpc: "SubmitProof",
  });
  const budgetMs =
    callOptions.timeoutMs ??
    (callOptions.warmup ? options.deadlines.warmupProofMs : options.deadlines.proofMs);
  const deadlineAt = startMs + budgetMs;
  const maxResubmits = resubmitBudget(options, kind, callOptions.resubmit);
  const base = input.requestId.trim() || defaultRequestIdBase(kind, input);

  let attempt = 0;
  let requestId = "";
  let resubmits = 0;
  let resends = 0;
  let resumes = 0;
  let phase: "submit" | "await" = "submit";
  let baseline = deps.lastStatus();
  let uptimeBeforeBreak: number | undefined;

  const emit = (event: ProveEvent) => {
    logProveEvent(options.logger, event);
    try {
      callOptions.onEvent?.(event);
    } catch (error) {
      options.logger.warn("cuzk prove: onEvent threw", { error: String(error) });
    }
  };
  const common = () => ({ kind, requestId, attempt, elapsedMs: clock.now() - startMs });
  const remainingMs = () => deadlineAt - clock.now();
  const typed = (error: unknown, rpc?: string) =>
    toCuzkError(error, { rpc, jobId: requestId || undefined, address: deps.address, callerSignal });
  const deadlineError = (cause?: unknown) =>
    new DeadlineExceededError(
      `${proofKindLabel[kind]} proof ${requestId} did not finish within ${budgetMs} ms` +
        (callOptions.warmup ? " (warmup deadline)" : ""),
      { rpc: "AwaitProof", jobId: requestId, address: deps.address, cause, timeoutMs: budgetMs },
      `the job may still be running on the daemon: await it with awaitProof("${requestId}") or raise the deadline` +
        (callOptions.warmup
          ? ""
          : " (pass warmup: true for a first proof, which needs far longer without caches)"),
    );

  const nextAttempt = () => {
    attempt += 1;
    requestId = `${base}-a${attempt}-${randomSuffix(options.random)}`;
    phase = "submit";
    emit({ type: "attempt", ...common(), sizeBytes });
  };

  /** Starts a new attempt under a fresh request id and says why the old one was given up. */
  const resubmitUnderNewId = (reason: "daemon-restarted" | "not-accepted") => {
    const previousRequestId = requestId;
    nextAttempt();
    emit({ type: "resubmitted", ...common(), previousRequestId, reason, resubmits });
  };

  /** Probes the daemon until it answers, applying the backoff, and says what happened to the job. */
  const recover = async (): Promise<Recovery> => {
    const r = options.reconnect;
    const giveUpAt = Math.min(clock.now() + r.giveUpAfterMs, deadlineAt);
    const failFastOnRefused = resubmits >= maxResubmits;
    let sawRefused = false;
    let lastError: CuzkitError | undefined;
    const status = await pRetry(
      async () => {
        try {
          return await deps.status({
            signal: callerSignal,
            timeoutMs: Math.max(1, Math.min(r.probeTimeoutMs, giveUpAt - clock.now())),
          });
        } catch (error) {
          const err = typed(error, "GetStatus");
          lastError = err;
          if (err instanceof AbortedError) throw new RetryStop(err);
          if (err instanceof DaemonUnavailableError) {
            sawRefused = true;
            if (failFastOnRefused) {
              // The process is gone, so is the job, and we may not resubmit: say so now,
              // not at the proof deadline.
              throw new RetryStop(
                new ConnectionLostError(
                  `the connection to the daemon broke during ${proofKindLabel[kind]} proof ${requestId} and the daemon ` +
                    `then refused connections: the daemon process died and the job is lost`,
                  { rpc: "AwaitProof", jobId: requestId, address: deps.address, cause: err },
                  `${oomHint}; then resubmit the proof (prove with resubmit: true)`,
                ),
              );
            }
          }
          throw err;
        }
      },
      {
        retries: Number.POSITIVE_INFINITY,
        minTimeout: 0, // delays come from the injected sleep below
        maxTimeout: 0,
        onFailedAttempt: async ({ attemptNumber }) => {
          const delayMs = Math.min(r.maxDelayMs, r.initialDelayMs * r.factor ** (attemptNumber - 1));
          if (clock.now() + delayMs >= giveUpAt) {
            const why = giveUpAt >= deadlineAt ? "before the proof deadline" : `within ${r.giveUpAfterMs} ms`;
            throw new DaemonUnavailableError(
              `the daemon did not come back ${why} after the connection broke during ${proofKindLabel[kind]} proof ${requestId}` +
                (lastError ? ` (last: ${lastError.message})` : ""),
              { rpc: "GetStatus", jobId: requestId, address: deps.address, cause: lastError },
              sawRefused
                ? `${oomHint}; start the daemon again (or have systemd restart it) and resubmit`
                : "the daemon stopped answering (frozen, swapping, or the network is down); check the host, then restart the daemon",
            );
          }
          emit({ type: "reconnecting", ...common(), probe: attemptNumber, delayMs, error: lastError! });
          await sleep(delayMs, callerSignal);
        },
      },
    );
    const before = baseline;
    uptimeBeforeBreak = before?.uptimeSeconds;
    baseline = { uptimeSeconds: status.uptimeSeconds, atMs: clock.now() };
    if (sawRefused) return { kind: "lost", evidence: "refused", status, uptimeBefore: before?.uptimeSeconds };
    if (before !== undefined) {
      const expected = before.uptimeSeconds + (clock.now() - before.atMs) / 1000;
      if (
        status.uptimeSeconds + uptimeSlackSeconds < before.uptimeSeconds &&
        status.uptimeSeconds < expected
      ) {
        return { kind: "lost", evidence: "uptime", status, uptimeBefore: before.uptimeSeconds };
      }
    }
    return { kind: "resume", status };
  };

  /** The job is gone: resubmit under a new id if allowed, else fail with DaemonRestartedError. */
  const onJobLost = (
    evidence: "uptime" | "refused" | "not-found",
    uptimeBefore: number | undefined,
    uptimeAfter: number | undefined,
    cause: unknown,
  ) => {
    emit({
      type: "daemon-restarted",
      ...common(),
      evidence,
      uptimeBeforeSeconds: uptimeBefore,
      uptimeAfterSeconds: uptimeAfter,
    });
    if (resubmits >= maxResubmits) {
      const why =
        evidence === "uptime"
          ? `its uptime went back from ${uptimeBefore} s to ${uptimeAfter} s`
          : evidence === "refused"
            ? "it refused connections after the break"
            : "it no longer knows the job (NOT_FOUND)";
      throw new DaemonRestartedError(
        `the daemon restarted during ${proofKindLabel[kind]} proof ${requestId} (${why}); the job is lost` +
          (maxResubmits === 0 ? " and resubmitting is off for this call" : ` after ${resubmits} resubmit(s)`),
        { rpc: "AwaitProof", jobId: requestId, address: deps.address, cause },
        `${oomHint}; resubmit the proof${maxResubmits === 0 ? " (prove with resubmit: true)" : ""}`,
      );
    }
    resubmits += 1;
    resubmitUnderNewId("daemon-restarted");
  };

  const handleBreak = async (error: CuzkitError) => {
    emit({ type: "connection-lost", ...common(), phase, error });
    const recovery = await recover();
    if (recovery.kind === "lost") {
      onJobLost(recovery.evidence, recovery.uptimeBefore, recovery.status.uptimeSeconds, error);
      return;
    }
    resumes += 1;
    phase = "await"; // AwaitProof tells whether a broken submit had reached the daemon
    emit({ type: "resumed", ...common(), uptimeSeconds: recovery.status.uptimeSeconds });
  };

  try {
    if (callerSignal?.aborted)
      throw new AbortedError("aborted by the caller before the proof started", {
        cause: callerSignal.reason,
      });
    if (baseline === undefined || clock.now() - baseline.atMs > options.statusBaselineMaxAgeMs) {
      // One GetStatus: learns the uptime (to recognise a restart later) and fails in
      // milliseconds, before sending 51 MB, when no daemon is there.
      try {
        const status = await deps.status({
          signal: callerSignal,
          timeoutMs: Math.min(options.deadlines.statusMs, remainingMs()),
        });
        baseline = { uptimeSeconds: status.uptimeSeconds, atMs: clock.now() };
      } catch (error) {
        throw typed(error, "GetStatus");
      }
    }
    nextAttempt();
    // Where the last break happened since the last successful submit: after a break during
    // the submit, NOT_FOUND means the daemon never took the request.
    let lastBreak: "submit" | "await" | undefined;
    for (;;) {
      if (remainingMs() <= 0) throw deadlineError();
      if (phase === "submit") {
        try {
          const request = create(SubmitProofRequestSchema, { ...input, requestId });
          const response = await deps.submit(request, {
            signal: callerSignal,
            timeoutMs: Math.max(1, Math.min(submitTimeoutMs(options, sizeBytes), remainingMs())),
          });
          phase = "await";
          lastBreak = undefined;
          emit({ type: "submitted", ...common(), queuePosition: response.queuePosition });
        } catch (error) {
          const err = typed(error, "SubmitProof");
          if (err instanceof DeadlineExceededError && remainingMs() <= 0) throw deadlineError(err);
          // A submit whose deadline passed may or may not have reached the daemon: find out.
          const submitTimedOut = err instanceof DeadlineExceededError && remainingMs() > 0;
          if (!isBreak(err) && !submitTimedOut) throw err;
          lastBreak = "submit";
          await handleBreak(err);
        }
        continue;
      }
      try {
        const response = await deps.awaitJob(requestId, {
          signal: callerSignal,
          timeoutMs: Math.max(1, remainingMs()),
        });
        return finish(response);
      } catch (error) {
        const err = typed(error, "AwaitProof");
        if (err instanceof JobNotFoundError) {
          if (lastBreak === "submit" && resends < maxNotAcceptedResends) {
            // Same daemon, and it never took the broken submit: send it again under a new id.
            resends += 1;
            lastBreak = undefined;
            resubmitUnderNewId("not-accepted");
            continue;
          }
          onJobLost("not-found", uptimeBeforeBreak, baseline?.uptimeSeconds, err);
          continue;
        }
        if (err instanceof DeadlineExceededError) throw deadlineError(err);
        // A refused AwaitProof (the daemon died between two calls) is a break as well.
        if (!isBreak(err) && !(err instanceof DaemonUnavailableError)) throw err;
        lastBreak = "await";
        await handleBreak(err);
      }
    }
  } catch (error) {
    const err = typed(error);
    emit({ type: "failed", ...common(), error: err });
    throw err;
  }

  function finish(response: AwaitProofResponse): ProofResult {
    if (response.status !== AwaitProofResponse_Status.COMPLETED) {
      const message =
        response.status === AwaitProofResponse_Status.FAILED
          ? response.errorMessage
          : `the daemon returned status ${AwaitProofResponse_Status[response.status] ?? response.status}${
              response.errorMessage ? `: ${response.errorMessage}` : ""
            }`;
      throw new ProofFailedError(message, { rpc: "AwaitProof", jobId: requestId, address: deps.address });
    }
    const result: ProofResult = {
      kind,
      jobId: requestId,
      proof: response.proof,
      timings: {
        queueWaitMs: Number(response.queueWaitMs),
        synthesisMs: Number(response.synthesisMs),
        gpuComputeMs: Number(response.gpuComputeMs),
        totalMs: Number(response.totalMs),
      },
      attempts: attempt,
      resubmits,
      resumes,
      wallMs: clock.now() - startMs,
      response,
    };
    emit({
      type: "completed",
      ...common(),
      totalMs: result.timings.totalMs,
      proofBytes: response.proof.byteLength,
    });
    return result;
  }
}
