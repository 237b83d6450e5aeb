import { describe, expect, it } from "vitest";
import { backoffDelayMs } from "./backoff.js";
import { defaultRetry } from "./options.js";

describe("backoffDelayMs", () => {
  it("doubles from minDelayMs and caps at maxDelayMs", () => {
    const mid = () => 0.5; // no jitter
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => backoffDelayMs(n, defaultRetry, mid))).toEqual([
      1000, 2000, 4000, 8000, 16000, 30000, 30000,
    ]);
  });

  it("applies jitter within ±jitter of the delay", () => {
    expect(backoffDelayMs(1, defaultRetry, () => 0)).toBe(800);
    expect(backoffDelayMs(1, defaultRetry, () => 0.999999)).toBe(1200);
    expect(backoffDelayMs(6, defaultRetry, () => 0.999999)).toBe(30000);
  });
});
