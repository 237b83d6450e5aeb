import { type CuzkitError, retry } from "@cuzkit/core";
import {
  type BreakKind,
  decideRecovery,
  type ProbeResult,
  probeOutcomeOf,
  type RecoveryDecision,
} from "../recovery.js";
import { frozenError, restartedError, unreachableError } from "./call-errors.js";
import { common, emit, type ProveCall, remainingMs, resubmitUnderNewId, sample, typed } from "./state.js";

// After a break: probe the daemon until decideRecovery (recovery.ts) settles, then resume the
// same job (same process) or give it up as lost (restarted: resubmit where allowed).

/**
 * A backstop on status probes after one break. The reconnect window ends probing long before
 * (250 ms doubling to 5 s is about 30 probes in 2 min); this stops a loop with zero delays on
 * a clock that does not move from probing forever.
 */
export const maxRecoveryProbes = 1_000;

/** How a break settled: the same daemon (resume) or a new one (the job is lost). */
export type Settled = Extract<RecoveryDecision, { kind: "resume" | "restarted" }>;

/** Not enough evidence yet: the one outcome retry() probes again for. */
class Undecided {
  constructor(readonly error: CuzkitError) {}
}

/** One recovery after a break: its window and the evidence gathered so far. */
interface Recovery {
  readonly breakError: CuzkitError;
  readonly breakKind: BreakKind;
  readonly breakAtMs: number;
  readonly windowMs: number;
  readonly probes: ProbeResult[];
  lastError: CuzkitError | undefined;
  /**
   * Announced once, at the first refusal: with nobody to restart the daemon the wait is dead
   * time, and the caller should know it is running and how long it lasts.
   */
  waitAnnounced: boolean;
}

/** One status probe, then decideRecovery's judgement: settled, or throws (frozen, lost, Undecided). */
async function probeOnce(call: ProveCall, rec: Recovery): Promise<Settled> {
  const { clock, reconnect: r } = call.options;
  try {
    rec.probes.push({
      outcome: "answered",
      status: await sample(call, Math.max(1, Math.min(r.probeTimeoutMs, remainingMs(call)))),
    });
  } catch (error) {
    const err = typed(call, error, "GetStatus");
    if (call.callerSignal?.aborted) throw err;
    rec.lastError = err;
    const outcome = probeOutcomeOf(err);
    rec.probes.push({ outcome, atMs: clock.now() });
    if (outcome === "refused" && !rec.waitAnnounced) {
      rec.waitAnnounced = true;
      emit(call, {
        type: "waiting-for-restart",
        ...common(call),
        unreachableSinceMs: rec.breakAtMs - call.startMs,
        waitMs: rec.windowMs,
        error: err,
      });
    }
  }
  const decision = decideRecovery({
    breakKind: rec.breakKind,
    breakAtMs: rec.breakAtMs,
    nowMs: clock.now(),
    before: call.baseline,
    probes: rec.probes,
    unreachableAfterMs: rec.windowMs,
    frozenAfterMs: Math.min(r.frozenAfterMs, rec.windowMs),
  });
  if (decision.kind === "frozen")
    throw frozenError(call, rec.breakError, rec.lastError, decision.silentForMs);
  if (decision.kind === "lost") throw unreachableError(call, rec.lastError, decision.unreachableForMs);
  if (decision.kind === "unknown") throw new Undecided(rec.lastError ?? rec.breakError);
  return decision;
}

/** Probes the daemon after a break until decideRecovery settles, on core's retry() with the reconnect backoff. */
export async function recover(
  call: ProveCall,
  breakError: CuzkitError,
  breakKind: BreakKind,
): Promise<Settled> {
  emit(call, { type: "connection-lost", ...common(call), phase: call.phase, error: breakError });
  const { clock, sleep, reconnect: r } = call.options;
  const breakAtMs = clock.now();
  const windowMs = Math.min(r.giveUpAfterMs, Math.max(0, call.deadlineAt - breakAtMs));
  const rec: Recovery = {
    breakError,
    breakKind,
    breakAtMs,
    windowMs,
    probes: [],
    lastError: undefined,
    waitAnnounced: false,
  };
  try {
    const decision = await retry(() => probeOnce(call, rec), {
      maxAttempts: maxRecoveryProbes,
      minDelayMs: r.initialDelayMs,
      maxDelayMs: r.maxDelayMs,
      factor: r.factor,
      jitter: 0,
      shouldRetry: (error) => error instanceof Undecided,
      // The last probe goes out when the window closes, not after it.
      delayFor: (_error, backoffMs) => Math.max(0, Math.min(backoffMs, breakAtMs + windowMs - clock.now())),
      onRetry: ({ error, attempt, delayMs }) =>
        emit(call, {
          type: "reconnecting",
          ...common(call),
          probe: attempt,
          delayMs,
          error: (error as Undecided).error,
        }),
      signal: call.callerSignal,
      clock,
      sleep,
    });
    call.uptimeBeforeBreak = call.baseline?.uptimeSeconds;
    call.baseline = decision.status;
    return decision;
  } catch (error) {
    if (error instanceof Undecided) throw unreachableError(call, rec.lastError, clock.now() - breakAtMs);
    throw error;
  }
}

/** The job is gone: resubmit under a new id if allowed, else fail with DaemonRestartedError. */
export function onJobLost(
  call: ProveCall,
  evidence: "uptime" | "counters" | "not-found",
  uptimeBefore: number | undefined,
  uptimeAfter: number | undefined,
  cause: unknown,
): void {
  emit(call, {
    type: "daemon-restarted",
    ...common(call),
    evidence,
    uptimeBeforeSeconds: uptimeBefore,
    uptimeAfterSeconds: uptimeAfter,
  });
  if (call.resubmits >= call.maxResubmits)
    throw restartedError(call, evidence, uptimeBefore, uptimeAfter, cause);
  call.resubmits += 1;
  resubmitUnderNewId(call, "daemon-restarted");
}

/** The same daemon still holds the job: counted and told. */
export function resumed(call: ProveCall, decision: Settled): void {
  call.resumes += 1;
  emit(call, { type: "resumed", ...common(call), uptimeSeconds: decision.status.uptimeSeconds });
}
