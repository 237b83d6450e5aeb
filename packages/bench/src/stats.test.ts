import { describe, expect, it } from "vitest";
import { percentile, proofsPerHour, summarizeDurations } from "./stats.js";

describe("stats", () => {
  it("uses nearest-rank percentiles", () => {
    const sorted = Array.from({ length: 20 }, (_, i) => (i + 1) * 10);
    expect(percentile(sorted, 0.5)).toBe(100);
    expect(percentile(sorted, 0.95)).toBe(190);
    expect(percentile([], 0.5)).toBe(0);
  });

  it("summarises unsorted samples", () => {
    expect(summarizeDurations([300, 100, 200])).toEqual({
      count: 3,
      p50Ms: 200,
      p95Ms: 300,
      maxMs: 300,
      meanMs: 200,
    });
    expect(summarizeDurations([])).toEqual({ count: 0, p50Ms: 0, p95Ms: 0, maxMs: 0, meanMs: 0 });
  });

  it("computes proofs per hour over the window", () => {
    expect(proofsPerHour(12, 600_000)).toBe(72);
    expect(proofsPerHour(3, 0)).toBe(0);
  });
});
