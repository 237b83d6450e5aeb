import type { Clock, Sleep } from "@cuzkit/core";
import pLimit, { type LimitFunction } from "p-limit";
import type { EndpointLimit, VastEndpointName } from "./endpoints.js";

/** Runs calls under a per-endpoint concurrency limit and minimum start-to-start interval. */
export interface RateLimiter {
  /** Runs `task` when its endpoint has a free slot and its interval has passed. */
  schedule<T>(endpoint: VastEndpointName, task: () => Promise<T>, signal?: AbortSignal): Promise<T>;
}

/**
 * A limiter with one queue per endpoint. Each call reserves the next start time
 * (`previous start + minIntervalMs`) when it gets a slot, then sleeps until it: so spacing
 * holds with any concurrency, and the injected sleep makes it testable without waiting.
 * `limits === false` runs everything at once. `onWait` hears of each wait (for logs).
 */
export function createRateLimiter(
  limits: Record<VastEndpointName, EndpointLimit> | false,
  clock: Clock,
  sleep: Sleep,
  onWait: (endpoint: VastEndpointName, waitMs: number) => void = () => {},
): RateLimiter {
  const queues = new Map<VastEndpointName, { limit: LimitFunction; nextStartMs: number }>();
  return {
    schedule(endpoint, task, signal) {
      if (limits === false) return task();
      let queue = queues.get(endpoint);
      if (queue === undefined) {
        queue = { limit: pLimit(limits[endpoint].concurrency), nextStartMs: Number.NEGATIVE_INFINITY };
        queues.set(endpoint, queue);
      }
      const state = queue;
      const intervalMs = limits[endpoint].minIntervalMs;
      return state.limit(async () => {
        signal?.throwIfAborted();
        const now = clock.now();
        const startMs = Math.max(now, state.nextStartMs);
        state.nextStartMs = startMs + intervalMs;
        if (startMs > now) {
          onWait(endpoint, startMs - now);
          await sleep(startMs - now, signal);
        }
        return task();
      });
    },
  };
}
