import type { Sleep } from "@cuzkit/core";

/**
 * Runs `pass` now, then again `intervalMs` after each pass ends, until the returned stop is
 * called. A stop does not wait out the interval; it resolves once the running pass has ended.
 * `pass` must not throw (the loops that use this catch and report their own errors).
 */
export function repeatUntilStopped(
  pass: () => Promise<void>,
  intervalMs: number,
  sleep: Sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
): () => Promise<void> {
  let stopped = false;
  let wake: () => void = () => {};
  const woken = new Promise<void>((resolve) => {
    wake = resolve;
  });
  const loop = (async () => {
    while (!stopped) {
      await pass();
      if (stopped) break;
      await Promise.race([sleep(intervalMs), woken]);
    }
  })();
  return async () => {
    stopped = true;
    wake();
    await loop;
  };
}
