/** A source of the current time in milliseconds; injectable so tests never wait. */
export interface Clock {
  now(): number;
}

/** Waits `ms` milliseconds, or rejects with the signal's reason when it aborts first. */
export type Sleep = (ms: number, signal?: AbortSignal) => Promise<void>;

/** The wall clock (`Date.now`): for timestamps people read, never for elapsed time (it steps with NTP or an operator). */
export const systemClock: Clock = { now: () => Date.now() };

/**
 * A monotonic clock (`performance.now()`): never steps when the system clock is set, so
 * elapsed times, deadlines and evidence compared across time (a daemon's uptime) stay true.
 * Its zero is the process start, so its readings are only good for differences.
 */
export const monotonicClock: Clock = { now: () => performance.now() };

/** A real timer-based sleep that honours an AbortSignal and never leaks its timer. */
export const realSleep: Sleep = (ms, signal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });

/**
 * Combines signals: the result aborts when any input aborts, with that input's reason.
 * Undefined entries are skipped. Returns a disposer that detaches the listeners.
 */
export function linkSignals(...signals: (AbortSignal | undefined)[]): {
  signal: AbortSignal;
  dispose(): void;
} {
  const controller = new AbortController();
  const present = signals.filter((s): s is AbortSignal => s !== undefined);
  const listeners: [AbortSignal, () => void][] = [];
  for (const s of present) {
    if (s.aborted) {
      controller.abort(s.reason);
      break;
    }
    const onAbort = () => controller.abort(s.reason);
    s.addEventListener("abort", onAbort, { once: true });
    listeners.push([s, onAbort]);
  }
  return {
    signal: controller.signal,
    dispose() {
      for (const [s, fn] of listeners) s.removeEventListener("abort", fn);
    },
  };
}
