import { type CuzkitError, type ProofKind, proofKindLabel } from "@cuzkit/core";
import type { SubmitProofRequest } from "@cuzkit/proto";
import { checkDeadlineMs } from "../duration.js";
import { logProveEvent, type ProveEvent } from "../events.js";
import { toCuzkError } from "../map-error.js";
import type { ResolvedClientOptions } from "../options.js";
import { newUpload, uploadPhrase } from "../outcome.js";
import { type StatusSample, statusSample } from "../recovery.js";
import type { StuckSample, StuckWindow } from "../stuck.js";
import type { UploadProgress } from "../transport.js";
import { validateSubmitRequest } from "../validate.js";
import type { ProveDeps, ProveOptions } from "./types.js";

/** Progress evidence of the job awaited (stuck detection); a new attempt starts a new watch. */
export interface StuckWatch {
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

/** Everything one `prove` call knows: what it proves, its budget, its attempt, and the evidence about the daemon. */
export interface ProveCall {
  readonly deps: ProveDeps;
  readonly options: ResolvedClientOptions;
  readonly callOptions: ProveOptions;
  readonly input: SubmitProofRequest;
  readonly callerSignal: AbortSignal | undefined;
  readonly kind: ProofKind;
  /** The kind for messages. */
  readonly label: string;
  readonly sizeBytes: number;
  /** When the call started, clock ms. */
  readonly startMs: number;
  /** The whole call's deadline, in ms. */
  readonly budgetMs: number;
  readonly deadlineAt: number;
  readonly maxResubmits: number;
  /** The base of every attempt's request id. */
  readonly base: string;
  attempt: number;
  /** The current attempt's request id (fresh for every attempt). */
  requestId: string;
  resubmits: number;
  /** Re-sends of a submit the daemon never took. */
  resends: number;
  resumes: number;
  phase: "submit" | "await";
  /** The last status seen before a break: what a probe after it is compared with. */
  baseline: StatusSample | undefined;
  /** The daemon's uptime before the last break, for messages. */
  uptimeBeforeBreak: number | undefined;
  /** The upload of the current attempt. */
  upload: UploadProgress;
  watch: StuckWatch | undefined;
  /**
   * Where the last break happened since the last successful submit: after a break during the
   * submit, NOT_FOUND means the daemon never took the request.
   */
  lastBreak: "submit" | "await" | undefined;
  /** A NOT_FOUND after a broken submit was checked once more. */
  rechecked: boolean;
}

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

/** Validates the request and the call options (throwing before anything is sent) and starts the call's state. */
export function createProveCall(
  deps: ProveDeps,
  input: SubmitProofRequest,
  callOptions: ProveOptions,
): ProveCall {
  const { options } = deps;
  const startMs = options.clock.now();
  const { kind, sizeBytes } = validateSubmitRequest(input, {
    requireRequestId: false,
    maxRequestBytes: options.maxRequestBytes,
    rpc: "SubmitProof",
  });
  const budgetMs = checkDeadlineMs(
    "prove() option timeoutMs",
    callOptions.timeoutMs,
    callOptions.warmup ? options.deadlines.warmupProofMs : options.deadlines.proofMs,
  );
  return {
    deps,
    options,
    callOptions,
    input,
    callerSignal: callOptions.signal,
    kind,
    label: proofKindLabel[kind],
    sizeBytes,
    startMs,
    budgetMs,
    deadlineAt: startMs + budgetMs,
    maxResubmits: resubmitBudget(options, kind, callOptions.resubmit),
    base: input.requestId.trim() || defaultRequestIdBase(kind, input),
    attempt: 0,
    requestId: "",
    resubmits: 0,
    resends: 0,
    resumes: 0,
    phase: "submit",
    baseline: deps.lastStatus(),
    uptimeBeforeBreak: undefined,
    upload: newUpload(),
    watch: undefined,
    lastBreak: undefined,
    rechecked: false,
  };
}

/** Logs the event and tells the caller (an onEvent that throws is logged, never fatal). */
export function emit(call: ProveCall, event: ProveEvent): void {
  const { options } = call;
  logProveEvent(options.logger, event);
  try {
    call.callOptions.onEvent?.(event);
  } catch (error) {
    options.logger.warn("cuzk prove: onEvent threw", { error: String(error) });
  }
}

/** The fields every event carries. */
export function common(call: ProveCall) {
  return {
    kind: call.kind,
    requestId: call.requestId,
    attempt: call.attempt,
    elapsedMs: call.options.clock.now() - call.startMs,
  };
}

/** What is left of the call's budget, in ms (0 or less: spent). */
export function remainingMs(call: ProveCall): number {
  return call.deadlineAt - call.options.clock.now();
}

/** The typed error for anything a call threw (see map-error.ts). */
export function typed(call: ProveCall, error: unknown, rpc?: string): CuzkitError {
  return toCuzkError(error, {
    rpc,
    jobId: call.requestId || undefined,
    address: call.deps.address,
    callerSignal: call.callerSignal,
  });
}

/** Whether the current attempt may be running on the daemon (its request may have arrived). */
export function mayBeRunning(call: ProveCall): boolean {
  return call.phase === "await" || call.upload.complete;
}

/** What is known about the job, as a phrase for messages. */
export function jobPhrase(call: ProveCall): string {
  return call.phase === "await" ? "the job may still be running" : uploadPhrase(call.upload, call.sizeBytes);
}

/** One GetStatus, as evidence. */
export async function sample(call: ProveCall, timeoutMs: number): Promise<StatusSample> {
  const { clock } = call.options;
  const sentAtMs = clock.now();
  const status = await call.deps.status({ signal: call.callerSignal, timeoutMs });
  return statusSample(status, sentAtMs, clock.now());
}

/** Starts a new attempt under a fresh request id. */
export function nextAttempt(call: ProveCall): void {
  call.attempt += 1;
  call.requestId = `${call.base}-a${call.attempt}-${randomSuffix(call.options.random)}`;
  call.phase = "submit";
  call.upload = newUpload();
  emit(call, { type: "attempt", ...common(call), sizeBytes: call.sizeBytes });
}

/** Starts a new attempt under a fresh request id and says why the old one was given up. */
export function resubmitUnderNewId(call: ProveCall, reason: "daemon-restarted" | "not-accepted"): void {
  const previousRequestId = call.requestId;
  nextAttempt(call);
  emit(call, { type: "resubmitted", ...common(call), previousRequestId, reason, resubmits: call.resubmits });
}
