import { setImmediate as nextTurn } from "node:timers/promises";
import { create } from "@bufbuild/protobuf";
import { type CuzkitError, linkSignals, type ProofKind, proofKindLabel, retry } from "@cuzkit/core";
import {
  type AwaitProofResponse,
  AwaitProofResponse_Status,
  type SubmitProofRequest,
  SubmitProofRequestSchema,
  type SubmitProofResponse,
} from "@cuzkit/proto";
import { checkDeadlineMs } from "./duration.js";
import {
  awaitJobHint,
  DaemonFrozenError,
  DaemonRestartedError,
  DaemonStuckError,
  DaemonUnavailableError,
  DeadlineExceededError,
  JobNotFoundError,
  oomHint,
  ProofFailedError,
  type StuckEvidence,
  stuckHint,
  unreachableHint,
} from "./errors.js";
import { logProveEvent, type ProveEvent } from "./events.js";
import { toCuzkError } from "./map-error.js";
import type { ResolvedClientOptions } from "./options.js";
import { newUpload, uploadPhrase, withJobRunning, withUploadOutcome } from "./outcome.js";
import {
  type BreakKind,
  breakKindOf,
  decideRecovery,
  type ProbeResult,
  probeOutcomeOf,
  type RecoveryDecision,
  type StatusSample,
  statusSample,
} from "./recovery.js";
import type { DaemonStatus } from "./status.js";
import {
  progressBetween,
  type StuckSample,
  type StuckWindow,
  stuckPollMs,
  stuckSample,
  stuckWindow,
} from "./stuck.js";
import type { UploadProgress } from "./transport.js";
import { validateSubmitRequest } from "./validate.js";

// prove(): submit, then await, with resume. The daemon keeps a job running when a call's
// connection breaks, but loses every job when it restarts, and never deduplicates request
// ids (a repeated id can mix two proofs' partitions). So every attempt gets a fresh id, and
// after a break the client probes the daemon and lets decideRecovery (recovery.ts) judge the
// evidence: same process -> AwaitProof the same id (never resubmit); restarted -> the job is
// gone (resubmit under a new id where allowed, else DaemonRestartedError); silent -> frozen
// (DaemonFrozenError after one short probe); refusing for the whole window -> unreachable
// (DaemonUnavailableError). A submit whose body was not completely written never reached the
// daemon: it is sent again under a new id, nothing having run. While a job is awaited, GetStatus
// is sampled for progress (stuck.ts): a job the daemon holds without progress for the model's
// ETA x a margin fails with DaemonStuckError, and is never resubmitted (it may still finish).

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

/** A submit that broke before the daemon took it is re-sent at most this many times. */
const maxNotAcceptedResends = 3;
/**
 * A backstop on status probes after one break. The reconnect window ends probing long before
 * (250 ms doubling to 5 s is about 30 probes in 2 min); this stops a loop with zero delays on
 * a clock that does not move from probing forever.
 */
export const maxRecoveryProbes = 1_000;
/** After a submit sent in full broke, a NOT_FOUND is checked once more after this long, ms (the daemon may still be registering it). */
const notFoundRecheckMs = 1_000;

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

type Settled = Extract<RecoveryDecision, { kind: "resume" | "restarted" }>;

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
  const label = proofKindLabel[kind];
  const budgetMs = checkDeadlineMs(
    "prove() option timeoutMs",
    callOptions.timeoutMs,
    callOptions.warmup ? options.deadlines.warmupProofMs : options.deadlines.proofMs,
  );
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
  /** The daemon's uptime before the last break, for messages. */
  let uptimeBeforeBreak: number | undefined;
  /** The upload of the current attempt. */
  let upload = newUpload();
  /** Progress evidence of the job awaited (stuck detection); a new attempt starts a new watch. */
  let watch:
    | {
        jobId: string;
        last: StuckSample;
        lastProgressAtMs: number;
        /** Seen on a GPU at least once: from then on only its own movement is progress. */
        started: boolean;
        samples: number;
        window: StuckWindow | undefined;
        gpuNames: string[];
        uptimeSeconds: number;
      }
    | undefined;

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
  /** Whether the current attempt may be running on the daemon (its request may have arrived). */
  const mayBeRunning = () => phase === "await" || upload.complete;
  const jobPhrase = () =>
    phase === "await" ? "the job may still be running" : uploadPhrase(upload, sizeBytes);
  const deadlineError = (cause?: unknown) =>
    new DeadlineExceededError(
      `${label} proof ${requestId} did not finish within ${budgetMs} ms` +
        (callOptions.warmup ? " (warmup deadline)" : ""),
      {
        rpc: "AwaitProof",
        jobId: requestId,
        address: deps.address,
        cause,
        timeoutMs: budgetMs,
        retryable: !mayBeRunning(),
        hint: mayBeRunning()
          ? `${awaitJobHint(requestId)}; or raise the deadline` +
            (callOptions.warmup
              ? ""
              : " (pass warmup: true for a first proof, which needs far longer without caches)")
          : "raise the deadline (timeoutMs); nothing is running on the daemon",
      },
    );

  /** One GetStatus, as evidence. */
  const sample = async (timeoutMs: number): Promise<StatusSample> => {
    const sentAtMs = clock.now();
    const status = await deps.status({ signal: callerSignal, timeoutMs });
    return statusSample(status, sentAtMs, clock.now());
  };

  const nextAttempt = () => {
    attempt += 1;
    requestId = `${base}-a${attempt}-${randomSuffix(options.random)}`;
    phase = "submit";
    upload = newUpload();
    emit({ type: "attempt", ...common(), sizeBytes });
  };

  /** Starts a new attempt under a fresh request id and says why the old one was given up. */
  const resubmitUnderNewId = (reason: "daemon-restarted" | "not-accepted") => {
    const previousRequestId = requestId;
    nextAttempt();
    emit({ type: "resubmitted", ...common(), previousRequestId, reason, resubmits });
  };

  /** The daemon stopped answering: DaemonFrozenError, with what is known about the job. */
  const frozenError = (breakError: CuzkitError, lastError: CuzkitError | undefined, silentForMs: number) =>
    new DaemonFrozenError(
      `the daemon stopped answering during ${label} proof ${requestId} (${breakError.message}; ` +
        `no answer to a status probe either, ${Math.round(silentForMs)} ms after the break); ${jobPhrase()}`,
      {
        rpc: "GetStatus",
        jobId: requestId,
        address: deps.address,
        cause: lastError ?? breakError,
        retryable: !mayBeRunning(),
        hint:
          "the daemon's port accepts connections but nothing answers: it is stopped (SIGSTOP), swapping, stuck in a " +
          "GPU driver call, or the network drops packets; check `top`/`vmstat`/`nvidia-smi` on the host and the " +
          `daemon's log` +
          (mayBeRunning()
            ? `; if it recovers, ${awaitJobHint(requestId)}`
            : "; nothing was accepted, so resubmitting is safe"),
      },
    );

  /** Refused or reset for the whole window: DaemonUnavailableError, claiming no more than that. */
  const unreachableError = (lastError: CuzkitError | undefined, forMs: number) =>
    new DaemonUnavailableError(
      `the daemon did not answer for ${Math.round(forMs)} ms after the connection broke during ${label} proof ` +
        `${requestId}${lastError ? ` (last: ${lastError.message})` : ""}; ` +
        (mayBeRunning() ? "whether the job still runs is unknown" : uploadPhrase(upload, sizeBytes)),
      {
        rpc: "GetStatus",
        jobId: requestId,
        address: deps.address,
        cause: lastError,
        retryable: !mayBeRunning(),
        hint:
          `${unreachableHint}` +
          (mayBeRunning()
            ? `; if it answers again, awaitProof("${requestId}") tells whether the job survived (NOT_FOUND: it did not)`
            : ""),
      },
    );

  /** The job made no progress for its window: DaemonStuckError with the evidence (never resubmitted). */
  const stuckError = (evidence: StuckEvidence) => {
    const seconds = (ms: number) => `${ms < 10_000 ? (ms / 1000).toFixed(1) : Math.round(ms / 1000)} s`;
    const st = evidence.lastStatus;
    const why =
      evidence.etaMs === undefined
        ? `the fixed window stuck.afterMs`
        : `the model's ETA ${seconds(evidence.etaMs)} x margin ${evidence.marginFactor}` +
          (evidence.windowMs > evidence.etaMs * (evidence.marginFactor ?? 1)
            ? ", raised to the floor stuck.minMs"
            : "");
    return new DaemonStuckError(
      `${label} proof ${requestId} made no progress for ${seconds(evidence.noProgressForMs)} ` +
        `(window ${seconds(evidence.windowMs)}: ${why}); the daemon still answers GetStatus (up ${st.uptimeSeconds} s, ` +
        `${st.completed} completed, ${st.failed} failed, ${label} queue ${st.queuePending} pending/${st.queueInProgress} ` +
        `in progress, GPU current jobs: ${st.gpuCurrentJobIds.length === 0 ? "none" : st.gpuCurrentJobIds.join(", ")}` +
        `${st.jobOnGpu ? ", this job among them" : ""}) but nothing moved`,
      {
        rpc: "AwaitProof",
        jobId: requestId,
        address: deps.address,
        evidence,
        hint: `${stuckHint}; ${awaitJobHint(requestId)}`,
      },
    );
  };

  /** Samples GetStatus until the job looks stuck (then throws DaemonStuckError) or `signal` ends the watch. */
  const watchForStuck = async (signal: AbortSignal): Promise<never> => {
    const stuck = options.stuck;
    if (watch?.jobId !== requestId) {
      watch = {
        jobId: requestId,
        // The counters before the submit: a proof that ended since then is progress.
        last: {
          atMs: clock.now(),
          completed: baseline?.completed ?? 0,
          failed: baseline?.failed ?? 0,
          queuePending: 0,
          queueInProgress: 0,
          gpuCurrentJobIds: [],
          jobOnGpu: false,
        },
        lastProgressAtMs: clock.now(),
        started: false,
        samples: 0,
        window: undefined,
        gpuNames: [],
        uptimeSeconds: baseline?.uptimeSeconds ?? 0,
      };
    }
    const w = watch;
    for (;;) {
      // An answer already on its way settles the await before a sample is taken.
      await nextTurn();
      if (signal.aborted) throw signal.reason;
      const pollMs = stuckPollMs(stuck, w.window?.windowMs ?? stuck.afterMs ?? stuck.minMs);
      await sleep(pollMs, signal);
      let status: DaemonStatus;
      try {
        const call = { signal, timeoutMs: Math.max(1, Math.min(options.deadlines.statusMs, remainingMs())) };
        // Proofs in flight together share answers (GetStatus forks nvidia-smi on the daemon).
        status = await (deps.recentStatus ? deps.recentStatus(pollMs / 2, call) : deps.status(call));
      } catch (error) {
        // A daemon that stops answering is the open AwaitProof's business (keepalive, recovery).
        if (signal.aborted) throw signal.reason;
        options.logger.debug("cuzk prove: progress sample failed", { requestId, error: String(error) });
        continue;
      }
      if (signal.aborted) throw signal.reason;
      const atMs = clock.now();
      const sampleNow = stuckSample(status, requestId, kind, atMs);
      w.samples += 1;
      w.gpuNames = status.gpus.map((gpu) => gpu.name);
      w.uptimeSeconds = status.uptimeSeconds;
      w.window ??= stuckWindow(stuck, kind, w.gpuNames, callOptions.warmup === true);
      if (progressBetween(w.last, sampleNow, w.started) !== undefined) w.lastProgressAtMs = atMs;
      if (sampleNow.jobOnGpu) w.started = true;
      w.last = sampleNow;
      const idleMs = atMs - w.lastProgressAtMs;
      if (idleMs >= w.window.windowMs) {
        const { atMs: _at, ...lastStatus } = sampleNow;
        const evidence: StuckEvidence = {
          noProgressForMs: idleMs,
          windowMs: w.window.windowMs,
          etaMs: w.window.etaMs,
          marginFactor: w.window.etaMs === undefined ? undefined : stuck.marginFactor,
          gpuNames: w.gpuNames,
          lastStatus: { ...lastStatus, uptimeSeconds: w.uptimeSeconds },
          samples: w.samples,
        };
        emit({ type: "stuck", ...common(), evidence });
        throw stuckError(evidence);
      }
    }
  };

  /** AwaitProof on the current job, with the stuck watch beside it (off: the bare call). */
  const awaitWatched = async (timeoutMs: number): Promise<AwaitProofResponse> => {
    if (!options.stuck.enabled) return deps.awaitJob(requestId, { signal: callerSignal, timeoutMs });
    const endWatch = new AbortController();
    const linked = linkSignals(callerSignal, endWatch.signal);
    const awaiting = deps.awaitJob(requestId, { signal: linked.signal, timeoutMs });
    const watching = watchForStuck(endWatch.signal);
    try {
      return await Promise.race([awaiting, watching]);
    } finally {
      // Whichever lost is ended and its outcome dropped: a stuck job's AwaitProof is let go.
      endWatch.abort();
      linked.dispose();
      awaiting.catch(() => {});
      watching.catch(() => {});
    }
  };

  /** Probes the daemon after a break until decideRecovery settles, on core's retry() with the reconnect backoff. */
  const recover = async (breakError: CuzkitError, breakKind: BreakKind): Promise<Settled> => {
    emit({ type: "connection-lost", ...common(), phase, error: breakError });
    const r = options.reconnect;
    const breakAtMs = clock.now();
    const windowMs = Math.min(r.giveUpAfterMs, Math.max(0, deadlineAt - breakAtMs));
    const probes: ProbeResult[] = [];
    let lastError: CuzkitError | undefined;
    // Announced once, at the first refusal: with nobody to restart the daemon the wait is dead
    // time, and the caller should know it is running and how long it lasts.
    let waitAnnounced = false;
    /** Not enough evidence yet: the one outcome retry() probes again for. */
    class Undecided {
      constructor(readonly error: CuzkitError) {}
    }
    const probe = async (): Promise<Settled> => {
      try {
        probes.push({
          outcome: "answered",
          status: await sample(Math.max(1, Math.min(r.probeTimeoutMs, remainingMs()))),
        });
      } catch (error) {
        const err = typed(error, "GetStatus");
        if (callerSignal?.aborted) throw err;
        lastError = err;
        const outcome = probeOutcomeOf(err);
        probes.push({ outcome, atMs: clock.now() });
        if (outcome === "refused" && !waitAnnounced) {
          waitAnnounced = true;
          emit({
            type: "waiting-for-restart",
            ...common(),
            unreachableSinceMs: breakAtMs - startMs,
            waitMs: windowMs,
            error: err,
          });
        }
      }
      const decision = decideRecovery({
        breakKind,
        breakAtMs,
        nowMs: clock.now(),
        before: baseline,
        probes,
        unreachableAfterMs: windowMs,
        frozenAfterMs: Math.min(r.frozenAfterMs, windowMs),
      });
      if (decision.kind === "frozen") throw frozenError(breakError, lastError, decision.silentForMs);
      if (decision.kind === "lost") throw unreachableError(lastError, decision.unreachableForMs);
      if (decision.kind === "unknown") throw new Undecided(lastError ?? breakError);
      return decision;
    };
    try {
      const decision = await retry(probe, {
        maxAttempts: maxRecoveryProbes,
        minDelayMs: r.initialDelayMs,
        maxDelayMs: r.maxDelayMs,
        factor: r.factor,
        jitter: 0,
        shouldRetry: (error) => error instanceof Undecided,
        // The last probe goes out when the window closes, not after it.
        delayFor: (_error, backoffMs) => Math.max(0, Math.min(backoffMs, breakAtMs + windowMs - clock.now())),
        onRetry: ({ error, attempt, delayMs }) =>
          emit({
            type: "reconnecting",
            ...common(),
            probe: attempt,
            delayMs,
            error: (error as Undecided).error,
          }),
        signal: callerSignal,
        clock,
        sleep,
      });
      uptimeBeforeBreak = baseline?.uptimeSeconds;
      baseline = decision.status;
      return decision;
    } catch (error) {
      if (error instanceof Undecided) throw unreachableError(lastError, clock.now() - breakAtMs);
      throw error;
    }
  };

  /** The job is gone: resubmit under a new id if allowed, else fail with DaemonRestartedError. */
  const onJobLost = (
    evidence: "uptime" | "counters" | "not-found",
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
          : evidence === "counters"
            ? "its completed/failed counters went back"
            : "it answers but no longer knows the job (NOT_FOUND)";
      const lostWhat = phase === "await" ? "the job is lost" : "the job, if it had been accepted, is lost";
      throw new DaemonRestartedError(
        `the daemon restarted during ${label} proof ${requestId} (${why}); ${lostWhat}` +
          (maxResubmits === 0 ? " and resubmitting is off for this call" : ` after ${resubmits} resubmit(s)`),
        {
          rpc: phase === "submit" ? "SubmitProof" : "AwaitProof",
          jobId: requestId,
          address: deps.address,
          cause,
          hint: `${oomHint}; resubmit the proof${maxResubmits === 0 ? " (prove(request, { resubmit: true }))" : ""}`,
        },
      );
    }
    resubmits += 1;
    resubmitUnderNewId("daemon-restarted");
  };

  const resumed = (decision: Settled) => {
    resumes += 1;
    emit({ type: "resumed", ...common(), uptimeSeconds: decision.status.uptimeSeconds });
  };

  try {
    if (callerSignal?.aborted) throw typed(callerSignal.reason);
    if (baseline === undefined || clock.now() - baseline.atMs > options.statusBaselineMaxAgeMs) {
      // One GetStatus: learns the uptime (to recognise a restart later) and fails in
      // milliseconds, before sending 51 MB, when no daemon is there.
      const timeoutMs = Math.max(1, Math.min(options.deadlines.statusMs, remainingMs()));
      try {
        baseline = await sample(timeoutMs);
      } catch (error) {
        const err = typed(error, "GetStatus");
        if (err instanceof DeadlineExceededError && !callerSignal?.aborted && remainingMs() > 0) {
          throw new DaemonFrozenError(
            `the daemon did not answer GetStatus within ${timeoutMs} ms, before ${label} proof ${base} was sent: ` +
              "nothing was submitted",
            { rpc: "GetStatus", address: deps.address, cause: err, retryable: true },
          );
        }
        throw err;
      }
    }
    nextAttempt();
    // Where the last break happened since the last successful submit: after a break during
    // the submit, NOT_FOUND means the daemon never took the request.
    let lastBreak: "submit" | "await" | undefined;
    let rechecked = false;
    for (;;) {
      if (remainingMs() <= 0) throw deadlineError();
      if (phase === "submit") {
        try {
          const request = create(SubmitProofRequestSchema, { ...input, requestId });
          const response = await deps.submit(request, {
            signal: callerSignal,
            timeoutMs: Math.max(1, Math.min(submitTimeoutMs(options, sizeBytes), remainingMs())),
            upload,
          });
          phase = "await";
          lastBreak = undefined;
          rechecked = false;
          emit({ type: "submitted", ...common(), queuePosition: response.queuePosition });
        } catch (error) {
          const err = typed(error, "SubmitProof");
          const breakKind = breakKindOf(err);
          if (breakKind === undefined || callerSignal?.aborted) {
            throw withUploadOutcome(err, requestId, upload, sizeBytes);
          }
          if (breakKind === "timeout" && remainingMs() <= 0) throw deadlineError(err);
          const decision = await recover(err, breakKind);
          if (decision.kind === "restarted") {
            // A new process, whether or not the body got out: report it and let the kind's
            // resubmit policy decide (an OOM during the upload of a 51 MB PoRep tends to repeat).
            onJobLost(decision.evidence, uptimeBeforeBreak, decision.status.uptimeSeconds, err);
            continue;
          }
          if (!upload.complete) {
            // The body never got out: the daemon cannot have the request, nothing runs.
            if (breakKind === "timeout" || resends >= maxNotAcceptedResends) {
              // A deadline with a daemon that answers is a slow link: sending again would
              // only repeat it.
              throw withUploadOutcome(err, requestId, upload, sizeBytes);
            }
            resends += 1;
            resubmitUnderNewId("not-accepted");
            continue;
          }
          // The body went out: AwaitProof tells whether the daemon took it.
          lastBreak = "submit";
          phase = "await";
          resumed(decision);
        }
        continue;
      }
      try {
        const response = await awaitWatched(Math.max(1, remainingMs()));
        return finish(response);
      } catch (error) {
        if (error instanceof DaemonStuckError) throw error;
        const err = typed(error, "AwaitProof");
        if (err instanceof JobNotFoundError) {
          if (lastBreak === "submit" && !rechecked && remainingMs() > notFoundRecheckMs) {
            // The request went out in full just before the break: give the daemon a moment
            // to register it before concluding that it never arrived.
            rechecked = true;
            await sleep(notFoundRecheckMs, callerSignal);
            continue;
          }
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
        // The caller gave up (abort, AbortSignal.timeout): the job itself runs on.
        if (callerSignal?.aborted) throw withJobRunning(err, requestId);
        const breakKind = breakKindOf(err);
        if (breakKind === undefined) throw err;
        // AwaitProof runs under the whole remaining budget: its deadline is the proof's.
        if (breakKind === "timeout") throw deadlineError(err);
        const decision = await recover(err, breakKind);
        if (decision.kind === "restarted") {
          onJobLost(decision.evidence, uptimeBeforeBreak, decision.status.uptimeSeconds, err);
          continue;
        }
        lastBreak = "await";
        resumed(decision);
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
      throw new ProofFailedError(`the daemon failed the proof ${requestId}: ${message || "(no message)"}`, {
        daemonMessage: message,
        rpc: "AwaitProof",
        jobId: requestId,
        address: deps.address,
      });
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
