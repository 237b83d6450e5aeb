import { describe, expect, it } from "vitest";
import { createEarlyVerdictTest } from "./early-verdict.js";

// Latencies at concurrency 2 against a 40 proofs/hour threshold: 2 x 3600 s / 40 = 180 s is the edge.
const edgeMs = 180_000;

function decide(latencies: number[]) {
  const test = createEarlyVerdictTest(40, 2);
  for (const latency of latencies) {
    const decision = test.add(latency);
    if (decision) return decision;
  }
  return undefined;
}

describe("early verdict (SPRT on latencies)", () => {
  it("decides 'above' quickly for a machine twice as fast as the threshold", () => {
    const decision = decide([90_000, 92_000, 88_000, 91_000, 90_500]);
    expect(decision?.above).toBe(true);
    expect(decision?.info).toMatchObject({ test: "sprt", confidence: 0.95, samples: 3 });
  });

  it("decides 'below' for a machine at half the threshold", () => {
    expect(decide([360_000, 350_000, 370_000, 365_000])?.above).toBe(false);
  });

  it("waits for the minimum samples", () => {
    const test = createEarlyVerdictTest(40, 2);
    expect(test.add(90_000)).toBeUndefined();
    expect(test.add(90_000)).toBeUndefined();
    expect(test.add(90_000)?.above).toBe(true);
  });

  it("needs more samples the noisier the latencies are", () => {
    // 15% above the threshold: clear with steady latencies, not yet with +-30% noise.
    const fast = (edgeMs / 1.15) | 0;
    expect(decide([fast, fast, fast])?.above).toBe(true);
    expect(decide([fast * 1.3, fast * 0.7, fast * 1.3, fast * 0.7])).toBeUndefined();
  });

  it("rejects a bad confidence", () => {
    expect(() => createEarlyVerdictTest(40, 2, { confidence: 1.5 })).toThrow(/confidence/);
  });
});
