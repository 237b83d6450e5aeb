import { createManualClock } from "@cuzkit/core/testing";
import { describe, expect, it } from "vitest";
import { defaultEndpointLimits } from "./endpoints.js";
import { createRateLimiter } from "./rate-limit.js";

const limits = (minIntervalMs: number, concurrency: number) => ({
  ...defaultEndpointLimits,
  showInstance: { minIntervalMs, concurrency },
});

describe("createRateLimiter", () => {
  it("spaces the starts of calls to one endpoint by minIntervalMs", async () => {
    const clock = createManualClock(0);
    const limiter = createRateLimiter(limits(500, 1), clock, clock.sleep);
    const starts: number[] = [];
    await Promise.all(
      [1, 2, 3].map(() => limiter.schedule("showInstance", async () => starts.push(clock.now()))),
    );
    expect(starts).toEqual([0, 500, 1000]);
    expect(clock.sleeps).toEqual([500, 500]);
  });

  it("does not wait when calls are already far enough apart", async () => {
    const clock = createManualClock(0);
    const limiter = createRateLimiter(limits(500, 1), clock, clock.sleep);
    await limiter.schedule("showInstance", async () => {});
    clock.advance(800);
    await limiter.schedule("showInstance", async () => {});
    expect(clock.sleeps).toEqual([]);
  });

  it("keeps endpoints independent", async () => {
    const clock = createManualClock(0);
    const limiter = createRateLimiter(limits(500, 1), clock, clock.sleep);
    await limiter.schedule("showInstance", async () => {});
    await limiter.schedule("listInstances", async () => {});
    expect(clock.sleeps).toEqual([]);
  });

  it("caps calls in flight at the concurrency", async () => {
    const clock = createManualClock(0);
    const limiter = createRateLimiter(limits(0, 2), clock, clock.sleep);
    let inFlight = 0;
    let peak = 0;
    const release: (() => void)[] = [];
    const task = () =>
      new Promise<void>((resolve) => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        release.push(() => {
          inFlight--;
          resolve();
        });
      });
    const all = Promise.all([1, 2, 3, 4].map(() => limiter.schedule("showInstance", task)));
    for (let i = 0; i < 4; i++) {
      await new Promise((r) => setImmediate(r));
      release.shift()?.();
    }
    await all;
    expect(peak).toBe(2);
  });

  it("runs everything at once when disabled", async () => {
    const clock = createManualClock(0);
    const limiter = createRateLimiter(false, clock, clock.sleep);
    await Promise.all([1, 2, 3].map(() => limiter.schedule("showInstance", async () => {})));
    expect(clock.sleeps).toEqual([]);
  });
});
