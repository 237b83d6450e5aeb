import type { ProofTimings } from "@cuzkit/client";

// Per-proof records: what happened to each proof the benchmark sent, so the figures can be audited.

/**
 * Why a proof did not complete, from the error's stable `code`: the daemon `died` (connection
 * refused, lost), `froze` (answered nothing; "DAEMON_FROZEN" from a client that detects it, or the
 * benchmark's own watchdog), `stuck` (the daemon answered but the job made no progress for its
 * window: DAEMON_STUCK), `restarted` (the job was lost), the proof `failed` on the daemon,
 * `deadline` exceeded, the benchmark `stopped` it, or `other`.
 */
export type FailureClass =
  | "died"
  | "froze"
  | "stuck"
  | "restarted"
  | "failed"
  | "deadline"
  | "stopped"
  | "other";

/** Error codes by failure class; codes are the client's stable strings. */
const classByCode: Readonly<Record<string, FailureClass>> = {
  DAEMON_UNAVAILABLE: "died",
  CONNECTION_LOST: "died",
  DAEMON_FROZEN: "froze",
  DAEMON_STUCK: "stuck",
  DAEMON_RESTARTED: "restarted",
  JOB_NOT_FOUND: "restarted",
  PROOF_FAILED: "failed",
  DEADLINE_EXCEEDED: "deadline",
  BENCHMARK_STOPPED: "stopped",
  ABORTED: "stopped",
};

/** The failure class of an error code (see FailureClass). */
export function classifyFailure(code: string): FailureClass {
  return classByCode[code] ?? "other";
}

/** How one proof ended. */
export type ProofOutcome = "completed" | "failed" | "abandoned";

/** One proof the benchmark sent. Times are ms on the run's clock since the run started. */
export interface ProofRecord {
  /** 1-based position in the timed batch, or 0 for a warmup proof. */
  index: number;
  warmup: boolean;
  /** Request id of the last attempt (the daemon's job id). */
  requestId: string | undefined;
  /** Attempts made (resubmissions after a lost job add one each). */
  attempts: number;
  /** When it was handed to the client. */
  submitMs: number;
  /** When it completed, failed, or was abandoned. */
  settleMs: number;
  /** `abandoned`: still in flight when the run ended early (an early verdict or a stop). */
  outcome: ProofOutcome;
  /** The error code when it failed, e.g. "PROOF_FAILED". */
  code?: string | undefined;
  /** The failure class when it failed. */
  failureClass?: FailureClass | undefined;
  /** The error message when it failed. */
  message?: string | undefined;
  /** The worker (1-based, up to the concurrency) that ran a timed proof. */
  slot?: number | undefined;
  /**
   * A completed timed proof's cycle: ms from its slot's previous completion (or the slot's first
   * timed submit) to its completion; the report's proofs/hour is slots x 1 h x completed / their sum.
   */
  cycleMs?: number | undefined;
  /** The daemon's own timings when it completed (synthesis and GPU are sums over partitions). */
  timings?: ProofTimings | undefined;
}
