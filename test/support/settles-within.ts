import { setTimeout as sleep } from "node:timers/promises";

/**
 * Whether `promise` settles within `ms` (a rejection counts as settled), for a test's clean-up
 * that must go on when a close or an exit hangs. The timer is cleared either way.
 */
export async function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  const timer = new AbortController();
  try {
    return await Promise.race([
      promise.then(
        () => true,
        () => true,
      ),
      sleep(ms, false, { signal: timer.signal }),
    ]);
  } finally {
    timer.abort();
  }
}
