import { InvalidInputError } from "@cuzkit/core";

// Durations the caller gives (a call's timeoutMs) are checked before anything is sent: a
// NaN, Infinity or negative deadline used to reach the wire (a BigInt RangeError reported as
// DAEMON_INTERNAL after the job was submitted). Fractions are rounded UP to whole
// milliseconds (1.5 -> 2): gRPC deadlines and the daemon's timeout_ms are whole ms.

/** Longest timer Node can run (about 24.8 days); a longer deadline is capped to it. */
export const maxTimerMs = 2_147_483_647;

/** A deadline computed from clock readings (fractional on a monotonic clock) as whole ms, at least 1. */
export function wholeMs(ms: number): number {
  return Math.min(Math.max(1, Math.ceil(ms)), maxTimerMs);
}

/**
 * Checks a call's deadline option `name` (e.g. "prove() option timeoutMs"): undefined gives
 * `fallbackMs`; otherwise a finite number > 0, rounded up to whole ms and capped at
 * maxTimerMs. Infinity is refused: every call has a deadline. Throws InvalidInputError.
 */
export function checkDeadlineMs(name: string, value: number | undefined, fallbackMs: number): number {
  if (value === undefined) return wholeMs(fallbackMs);
  if (typeof value !== "number" || !Number.isFinite(value) || value <= 0) {
    throw new InvalidInputError(
      `invalid ${name}: ${String(value)} (a deadline is a finite number of ms > 0)`,
      {
        hint:
          `give ${name.split(" ").at(-1)} as a positive, finite number of milliseconds (fractions are rounded up); ` +
          "every call has a deadline, so Infinity is refused: for a long proof give e.g. 7200000 (2 h)",
      },
    );
  }
  return wholeMs(value);
}
