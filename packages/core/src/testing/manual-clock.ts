import type { Clock, Sleep } from "../time.js";

/** A clock whose time moves only when a test moves it. */
export interface ManualClock extends Clock {
  /** Advances the clock by `ms` at once (records the request in `sleeps`); rejects if `signal` is already aborted. */
  sleep: Sleep;
  /** Moves the clock forward by `ms`. */
  advance(ms: number): void;
  /** Every sleep asked for, in order, in milliseconds. */
  sleeps: number[];
}

/**
 * A clock and sleep pair for tests: `sleep` advances the clock at once instead of waiting,
 * so backoff and timeout logic runs in microseconds and deterministically.
 */
export function createManualClock(startMs = 0): ManualClock {
  let nowMs = startMs;
  const sleeps: number[] = [];
  return {
    now: () => nowMs,
    advance(ms: number) {
      nowMs += ms;
    },
    sleeps,
    async sleep(ms, signal) {
      if (signal?.aborted) throw signal.reason;
      sleeps.push(ms);
      nowMs += ms;
    },
  };
}
