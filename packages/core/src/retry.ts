import { type Clock, monotonicClock, realSleep, type Sleep } from "./time.js";

// One retry loop for every package (the client's ready and prove loops, vast's transport).
// Written here rather than on p-retry: p-retry waits with its own setTimeout, and every
// caller here must wait on an injected sleep and read an injected clock so tests run in
// microseconds and deterministically.

/** The shape of the waits between attempts. */
export interface BackoffPolicy {
  /** The first wait, in ms. */
  minDelayMs: number;
  /** No wait is longer, in ms. */
  maxDelayMs: number;
  /** Each wait is this many times the one before. */
  factor: number;
  /** Each wait is scaled by a random factor in [1 - jitter, 1 + jitter] (0..1). */
  jitter: number;
}

/**
 * The wait before retry number `retry` (1 = the first retry), in ms: exponential from
 * `minDelayMs` by `factor`, capped at `maxDelayMs`, then scaled by the jitter (and capped
 * again) so clients that failed together do not retry together.
 */
export function backoffDelayMs(
  retry: number,
  policy: BackoffPolicy,
  random: () => number = Math.random,
): number {
  const base = Math.min(policy.maxDelayMs, policy.minDelayMs * policy.factor ** Math.max(0, retry - 1));
  const scale = 1 + policy.jitter * (2 * random() - 1);
  return Math.round(Math.min(policy.maxDelayMs, Math.max(0, base * scale)));
}

/** What `onRetry` is told before each wait. */
export interface RetryEvent {
  /** The error of the attempt that failed. */
  error: unknown;
  /** The attempt that failed (1 = the first). */
  attempt: number;
  /** The most attempts this loop makes. */
  maxAttempts: number;
  /** How long it waits before the next attempt, in ms. */
  delayMs: number;
}

/** Options of `retry`. */
export interface RetryOptions extends Partial<BackoffPolicy> {
  /** Attempts in all, the first included (1 = no retry). Default 3. */
  maxAttempts?: number | undefined;
  /** No retry starts after this much time since the first attempt, in ms. Default: no limit. */
  maxElapsedMs?: number | undefined;
  /** Whether an error is worth another attempt. Default: every error is. */
  shouldRetry?: ((error: unknown, attempt: number) => boolean) | undefined;
  /** The wait before the next attempt given the backoff's (e.g. at least what a 429 names). Default: the backoff's. */
  delayFor?: ((error: unknown, backoffMs: number) => number) | undefined;
  /** Called before each wait, for logging. Default: nothing. */
  onRetry?: ((event: RetryEvent) => void) | undefined;
  /** Stops the loop: a wait in progress rejects with the signal's reason, and no attempt starts. Default: none. */
  signal?: AbortSignal | undefined;
  /** Measures maxElapsedMs. Default: the monotonic clock (a wall-clock step must not end or stretch the budget). */
  clock?: Clock | undefined;
  /** Default: a real timer. */
  sleep?: Sleep | undefined;
  /** Default: Math.random. */
  random?: (() => number) | undefined;
}

/** The defaults of `retry`'s backoff: 1 s doubling to 30 s, ±20%. */
export const defaultBackoff: Readonly<BackoffPolicy> = {
  minDelayMs: 1_000,
  maxDelayMs: 30_000,
  factor: 2,
  jitter: 0.2,
};

/**
 * Runs `attempt` until it resolves, the error is not worth retrying, `maxAttempts` are spent
 * or `maxElapsedMs` has passed; then rethrows the last error as it was.
 */
export async function retry<T>(
  attempt: (attemptNumber: number) => Promise<T>,
  options: RetryOptions = {},
): Promise<T> {
  const policy: BackoffPolicy = {
    minDelayMs: options.minDelayMs ?? defaultBackoff.minDelayMs,
    maxDelayMs: options.maxDelayMs ?? defaultBackoff.maxDelayMs,
    factor: options.factor ?? defaultBackoff.factor,
    jitter: options.jitter ?? defaultBackoff.jitter,
  };
  const maxAttempts = options.maxAttempts ?? 3;
  const clock = options.clock ?? monotonicClock;
  const sleep = options.sleep ?? realSleep;
  const startMs = clock.now();
  for (let n = 1; ; n++) {
    if (options.signal?.aborted) throw options.signal.reason;
    try {
      return await attempt(n);
    } catch (error) {
      if (n >= maxAttempts || !(options.shouldRetry?.(error, n) ?? true)) throw error;
      const backoffMs = backoffDelayMs(n, policy, options.random);
      const delayMs = options.delayFor ? options.delayFor(error, backoffMs) : backoffMs;
      if (options.maxElapsedMs !== undefined && clock.now() + delayMs - startMs > options.maxElapsedMs)
        throw error;
      options.onRetry?.({ error, attempt: n, maxAttempts, delayMs });
      await sleep(delayMs, options.signal);
    }
  }
}
