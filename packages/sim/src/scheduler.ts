import { performance } from "node:perf_hooks";

/**
 * Time for the simulated daemon: a monotonic clock in milliseconds and one-shot timers.
 * The default uses real timers; tests of the pipeline pass a manual one.
 */
export interface SimScheduler {
  /** Monotonic milliseconds (fractional allowed). */
  now(): number;
  /** Calls `callback` after `delayMs`; returns a function that cancels it. */
  setTimer(callback: () => void, delayMs: number): () => void;
}

/** Real time: performance.now() and setTimeout. */
export const realScheduler: SimScheduler = {
  now: () => performance.now(),
  setTimer(callback, delayMs) {
    const timer = setTimeout(callback, Math.max(0, delayMs));
    return () => clearTimeout(timer);
  },
};

/** A scheduler whose time moves only when `advance` is called; timers fire in time order. */
export interface ManualScheduler extends SimScheduler {
  /** Moves time forward by `ms`, firing every timer that falls due on the way. */
  advance(ms: number): void;
  /** Fires timers until none is left (or `maxTimers` fired); returns the time reached. */
  runAll(maxTimers?: number): number;
  /** Timers not yet fired. */
  pendingTimers(): number;
}

/** Creates a ManualScheduler starting at `startMs`. */
export function createManualScheduler(startMs = 0): ManualScheduler {
  let nowMs = startMs;
  let seq = 0;
  const timers = new Map<number, { at: number; seq: number; callback: () => void }>();
  const nextDue = () => {
    let best: { at: number; seq: number; callback: () => void } | undefined;
    for (const timer of timers.values()) {
      if (!best || timer.at < best.at || (timer.at === best.at && timer.seq < best.seq)) best = timer;
    }
    return best;
  };
  const fire = (timer: { at: number; seq: number; callback: () => void }) => {
    timers.delete(timer.seq);
    nowMs = Math.max(nowMs, timer.at);
    timer.callback();
  };
  return {
    now: () => nowMs,
    setTimer(callback, delayMs) {
      const id = seq++;
      timers.set(id, { at: nowMs + Math.max(0, delayMs), seq: id, callback });
      return () => {
        timers.delete(id);
      };
    },
    advance(ms) {
      const target = nowMs + ms;
      for (let timer = nextDue(); timer && timer.at <= target; timer = nextDue()) fire(timer);
      nowMs = target;
    },
    runAll(maxTimers = 100_000) {
      for (let fired = 0, timer = nextDue(); timer && fired < maxTimers; fired++, timer = nextDue())
        fire(timer);
      return nowMs;
    },
    pendingTimers: () => timers.size,
  };
}
