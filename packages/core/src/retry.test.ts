import { describe, expect, it, vi } from "vitest";
import { backoffDelayMs, defaultBackoff, retry } from "./retry.js";
import { createManualClock } from "./testing/manual-clock.js";

const policy = { minDelayMs: 1_000, maxDelayMs: 30_000, factor: 2, jitter: 0.2 };
const noJitter = () => 0.5;

/** An attempt that fails `failures` times with `error`, then resolves "ok"; counts its calls. */
function flaky(failures: number, error: unknown = new Error("flaky")) {
  const calls: number[] = [];
  const attempt = async (n: number) => {
    calls.push(n);
    if (calls.length <= failures) throw error;
    return "ok";
  };
  return { attempt, calls };
}

describe("backoffDelayMs", () => {
  it("doubles from minDelayMs and caps at maxDelayMs", () => {
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => backoffDelayMs(n, policy, noJitter))).toEqual([
      1000, 2000, 4000, 8000, 16000, 30000, 30000,
    ]);
  });

  it("applies jitter within ±jitter of the delay", () => {
    expect(backoffDelayMs(1, policy, () => 0)).toBe(800);
    expect(backoffDelayMs(1, policy, () => 0.999999)).toBe(1200);
    expect(backoffDelayMs(6, policy, () => 0.999999)).toBe(30000);
  });

  it("caps before the jitter too: a long run still waits 30 s ± 20%, never a flat 30 s", () => {
    // Capped first, 30 s x 0.8; an uncapped 512 s x 0.8 would hit the outer cap at 30 s.
    expect(backoffDelayMs(10, policy, () => 0)).toBe(24_000);
  });
});

describe("retry", () => {
  it("retries until it succeeds, waiting the backoff on the injected sleep", async () => {
    const clock = createManualClock();
    const { attempt, calls } = flaky(2);
    const events: number[] = [];
    const result = await retry(attempt, {
      ...policy,
      maxAttempts: 5,
      clock,
      sleep: clock.sleep,
      random: noJitter,
      onRetry: ({ attempt: n, delayMs }) => events.push(n, delayMs),
    });
    expect(result).toBe("ok");
    expect(calls).toEqual([1, 2, 3]);
    expect(clock.sleeps).toEqual([1000, 2000]);
    expect(events).toEqual([1, 1000, 2, 2000]);
  });

  it("stops at maxAttempts and rethrows the last error as it was", async () => {
    const clock = createManualClock();
    const error = new Error("down");
    const { attempt, calls } = flaky(10, error);
    await expect(retry(attempt, { maxAttempts: 3, clock, sleep: clock.sleep })).rejects.toBe(error);
    expect(calls).toHaveLength(3);
    expect(clock.sleeps).toHaveLength(2);
  });

  it("does not retry an error shouldRetry refuses", async () => {
    const clock = createManualClock();
    const { attempt, calls } = flaky(10);
    await expect(
      retry(attempt, { maxAttempts: 5, shouldRetry: () => false, sleep: clock.sleep }),
    ).rejects.toThrow("flaky");
    expect(calls).toHaveLength(1);
  });

  it("starts no retry past maxElapsedMs", async () => {
    const clock = createManualClock();
    const { attempt, calls } = flaky(10);
    // Waits 1 s, 2 s, 4 s: the third wait would end at 7 s, past the 5 s budget.
    await expect(
      retry(attempt, {
        ...policy,
        maxAttempts: 10,
        maxElapsedMs: 5_000,
        clock,
        sleep: clock.sleep,
        random: noJitter,
      }),
    ).rejects.toThrow("flaky");
    expect(calls).toHaveLength(3);
    expect(clock.sleeps).toEqual([1000, 2000]);
  });

  it("retries within maxElapsedMs up to the last millisecond, measured from the first attempt", async () => {
    // The clock does not start at 0: the budget counts from retry()'s start, not the epoch.
    const clock = createManualClock(50_000);
    const { attempt, calls } = flaky(10);
    // Waits 1 s and 2 s: the second wait ends at exactly 3 s, still inside the 3 s budget.
    await expect(
      retry(attempt, {
        ...policy,
        maxAttempts: 10,
        maxElapsedMs: 3_000,
        clock,
        sleep: clock.sleep,
        random: noJitter,
      }),
    ).rejects.toThrow("flaky");
    expect(clock.sleeps).toEqual([1000, 2000]);
    expect(calls).toHaveLength(3);
  });

  it("uses the documented defaults: 3 attempts, waiting 1 s then 2 s (±20%)", async () => {
    const clock = createManualClock();
    const { attempt, calls } = flaky(10);
    await expect(retry(attempt, { clock, sleep: clock.sleep, random: () => 0 })).rejects.toThrow("flaky");
    expect(calls).toEqual([1, 2, 3]);
    // Jitter at its low end: 0.8 x 1 s, 0.8 x 2 s.
    expect(clock.sleeps).toEqual([800, 1600]);
    expect(defaultBackoff).toEqual({ minDelayMs: 1_000, maxDelayMs: 30_000, factor: 2, jitter: 0.2 });
  });

  it("takes each backoff option on its own, the others staying at their defaults", async () => {
    const run = async (options: Parameters<typeof retry>[1]) => {
      const c = createManualClock();
      await retry(flaky(3).attempt, {
        maxAttempts: 4,
        clock: c,
        sleep: c.sleep,
        random: noJitter,
        ...options,
      });
      return c.sleeps;
    };
    expect(await run({ minDelayMs: 100 })).toEqual([100, 200, 400]);
    expect(await run({ maxDelayMs: 1_500 })).toEqual([1000, 1500, 1500]);
    expect(await run({ factor: 3 })).toEqual([1000, 3000, 9000]);
    // Jitter 0: the low end of the random range waits the plain delay.
    expect(await run({ jitter: 0, random: () => 0 })).toEqual([1000, 2000, 4000]);
  });

  it("waits what delayFor says (at least a server's interval)", async () => {
    const clock = createManualClock();
    const { attempt } = flaky(1);
    await retry(attempt, {
      ...policy,
      clock,
      sleep: clock.sleep,
      random: noJitter,
      delayFor: (_error, backoffMs) => Math.max(backoffMs, 4_500),
    });
    expect(clock.sleeps).toEqual([4500]);
  });

  it("an abort during a wait rejects with the signal's reason and starts no further attempt", async () => {
    const controller = new AbortController();
    const { attempt, calls } = flaky(10);
    const sleep = async (_ms: number, signal?: AbortSignal) => {
      controller.abort(new Error("cancelled"));
      if (signal?.aborted) throw signal.reason;
    };
    await expect(retry(attempt, { maxAttempts: 5, sleep, signal: controller.signal })).rejects.toThrow(
      "cancelled",
    );
    expect(calls).toHaveLength(1);
  });

  it("makes no attempt when the signal is already aborted", async () => {
    const { attempt, calls } = flaky(0);
    await expect(retry(attempt, { signal: AbortSignal.abort(new Error("gone")) })).rejects.toThrow("gone");
    expect(calls).toEqual([]);
  });

  it("hands the signal to the wait: an abort ends a real 60 s backoff at once, leaving no timer", async () => {
    vi.useFakeTimers();
    try {
      const controller = new AbortController();
      const { attempt, calls } = flaky(10);
      let outcome = "pending";
      const running = retry(attempt, {
        maxAttempts: 5,
        minDelayMs: 60_000,
        jitter: 0,
        signal: controller.signal,
        onRetry: () => queueMicrotask(() => controller.abort(new Error("cancelled"))),
      }).catch((error: Error) => {
        outcome = error.message;
      });
      await vi.advanceTimersByTimeAsync(0); // no time passes: only the abort can end the wait
      expect(outcome).toBe("cancelled");
      expect(vi.getTimerCount()).toBe(0);
      expect(calls).toEqual([1]);
      await running;
    } finally {
      vi.useRealTimers();
    }
  });
});
