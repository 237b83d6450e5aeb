import type { CuzkitError } from "@cuzkit/core";
import {
  ConnectionLostError,
  DaemonFrozenError,
  DaemonUnavailableError,
  DeadlineExceededError,
  LocalTransportError,
} from "./errors.js";
import type { DaemonStatus } from "./status.js";

// What happened to a job after the connection to its daemon broke, decided from evidence
// alone (no I/O, no clock): the prove loop gathers the evidence and acts on the verdict.
// Facts it rests on (cuzk-daemon.md): the daemon keeps a job running when a call's connection
// breaks, loses every job when its process restarts, keeps finished results for its whole
// life, and reports its uptime and completed/failed counters in GetStatus. A refused
// connection proves nothing by itself: a forwarded port (SSH tunnel, container mapping) can
// refuse for a moment while the daemon behind it keeps running.

/** How the open call failed. */
export type BreakKind =
  /** The connection was closed or reset (by the daemon exiting, or by something in between). */
  | "reset"
  /** A call was refused: nothing accepted the connection at that moment. */
  | "refused"
  /** HTTP/2 PINGs went unanswered: the peer is silent while the connection stays up. */
  | "ping-timeout"
  /** The call's own deadline passed (a submit that may or may not have arrived). */
  | "timeout"
  /** This client's own HTTP/2 session failed: no evidence about the daemon. */
  | "local";

/** A GetStatus answer, with when it arrived (injected clock) and how long the call took. */
export interface StatusSample {
  /** Seconds the daemon process has been up (whole seconds). */
  uptimeSeconds: number;
  /** Proofs completed since the process started. */
  completed: number;
  /** Proofs failed since the process started. */
  failed: number;
  /** When the answer arrived, clock ms. */
  atMs: number;
  /** Round trip of the GetStatus call in ms (the uptime was read somewhere inside it). */
  rttMs: number;
}

/** A GetStatus answer as evidence: sent at `sentAtMs`, received at `atMs` (clock ms). */
export function statusSample(status: DaemonStatus, sentAtMs: number, atMs: number): StatusSample {
  return {
    uptimeSeconds: status.uptimeSeconds,
    completed: status.totalProofsCompleted,
    failed: status.totalProofsFailed,
    atMs,
    rttMs: Math.max(0, atMs - sentAtMs),
  };
}

/** One probe of the daemon after the break. */
export type ProbeResult =
  | { outcome: "answered"; status: StatusSample }
  | { outcome: "refused" | "reset" | "timeout" | "local"; atMs: number };

/** Everything known about a break, for decideRecovery. */
export interface RecoveryEvidence {
  /** How the open call failed. */
  breakKind: BreakKind;
  /** When it failed, clock ms. */
  breakAtMs: number;
  /** Now, clock ms. */
  nowMs: number;
  /** The last status seen before the break (the baseline), if any. */
  before: StatusSample | undefined;
  /** Probes since the break, oldest first. */
  probes: readonly ProbeResult[];
  /** Give up on a daemon that refuses or resets for this long after the break, ms. */
  unreachableAfterMs: number;
  /** Call a daemon that stays silent (accepts, never answers) frozen after this long, ms. */
  frozenAfterMs: number;
}

/** The verdict. */
export type RecoveryDecision =
  /** Same process (uptime continued): await the same job again; never resubmit. */
  | { kind: "resume"; status: StatusSample }
  /** A new process: the job is gone (resubmit under a fresh id only where allowed). */
  | { kind: "restarted"; status: StatusSample; evidence: "uptime" | "counters" }
  /** The daemon stopped answering while accepting connections: report it, do not wait longer. */
  | { kind: "frozen"; silentForMs: number }
  /** Refused or reset until the window closed: unreachable, the job's fate is unknown. */
  | { kind: "lost"; unreachableForMs: number }
  /** Not enough evidence yet: probe again. */
  | { kind: "unknown" };

/** Uptime is whole seconds, read somewhere inside the round trip: this much lag still counts as "continued". */
export const uptimeSlackSeconds = 2;

/** True when `after` comes from a different process than `before` (uptime or counters went back). */
function restartEvidence(before: StatusSample, after: StatusSample): "uptime" | "counters" | undefined {
  if (after.completed < before.completed || after.failed < before.failed) return "counters";
  // Same process: uptime grew by the time between the two answers, give or take the slack
  // and the second call's round trip. Erring towards "same process" is the safe side: a
  // resumed AwaitProof of a job the daemon no longer knows answers NOT_FOUND at once, while
  // a wrong "restarted" would run the work twice.
  const expected = before.uptimeSeconds + (after.atMs - before.atMs) / 1000;
  if (after.uptimeSeconds + uptimeSlackSeconds + after.rttMs / 1000 < expected) return "uptime";
  return undefined;
}

/** Decides what happened to a job after a break, from the evidence gathered so far. Pure. */
export function decideRecovery(evidence: RecoveryEvidence): RecoveryDecision {
  const last = evidence.probes.at(-1);
  if (last === undefined) return { kind: "unknown" };
  if (last.outcome === "answered") {
    const { before } = evidence;
    const restarted = before === undefined ? undefined : restartEvidence(before, last.status);
    return restarted === undefined
      ? { kind: "resume", status: last.status }
      : { kind: "restarted", status: last.status, evidence: restarted };
  }
  const sinceBreakMs = evidence.nowMs - evidence.breakAtMs;
  const windowOver = sinceBreakMs >= evidence.unreachableAfterMs;
  if (last.outcome === "timeout") {
    // Silence counts from the last sign of life or refusal: a daemon that refused while its
    // supervisor restarted it, then is slow to answer its first call, is not frozen yet.
    const loud = evidence.probes.findLast((probe) => probe.outcome !== "timeout");
    const silentSinceMs =
      loud === undefined ? evidence.breakAtMs : loud.outcome === "answered" ? loud.status.atMs : loud.atMs;
    const silentForMs = evidence.nowMs - silentSinceMs;
    // A PING timeout or a call deadline already waited; one silent probe right after it
    // confirms it. Silence after a reset or a refusal needs the frozen window.
    const waited = evidence.breakKind === "ping-timeout" || evidence.breakKind === "timeout";
    if ((waited && loud === undefined) || windowOver || silentForMs >= evidence.frozenAfterMs) {
      return { kind: "frozen", silentForMs };
    }
    return { kind: "unknown" };
  }
  if (windowOver) return { kind: "lost", unreachableForMs: sinceBreakMs };
  return { kind: "unknown" };
}

/** The typed errors of a broken call, each with the break it is evidence of. */
const breakErrors: readonly [abstract new (...args: never[]) => CuzkitError, BreakKind][] = [
  [LocalTransportError, "local"],
  [DaemonFrozenError, "ping-timeout"],
  [DaemonUnavailableError, "refused"],
  [ConnectionLostError, "reset"],
  [DeadlineExceededError, "timeout"],
];

/** Classifies a typed call error as a break (and which kind), or undefined when it is not one. */
export function breakKindOf(error: CuzkitError): BreakKind | undefined {
  return breakErrors.find(([kind]) => error instanceof kind)?.[1];
}

/** What a failed probe (GetStatus) says. */
export function probeOutcomeOf(error: CuzkitError): Exclude<ProbeResult["outcome"], "answered"> {
  const kind = breakKindOf(error);
  if (kind === "local") return "local";
  if (kind === "refused") return "refused";
  if (kind === "reset") return "reset";
  return "timeout";
}
