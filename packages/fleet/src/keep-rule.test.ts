import { describe, expect, it } from "vitest";
import { describeKeepMinimum, keepMinimumProofsPerHour, usdPer1000Proofs } from "./keep-rule.js";

// The keep rule decides which machines the fleet keeps paying for: a floor, a price ceiling, or both.

describe("keepMinimumProofsPerHour", () => {
  it("is the floor alone when no price ceiling is given", () => {
    expect(keepMinimumProofsPerHour({ minProofsPerHour: 40, maxUsdPer1000Proofs: undefined }, 1.2)).toBe(40);
  });

  it("turns a price ceiling into the rate at which the machine pays for itself", () => {
    // $1.20/h at most $30 per 1000 proofs: 40 proofs/hour.
    expect(keepMinimumProofsPerHour({ minProofsPerHour: 0, maxUsdPer1000Proofs: 30 }, 1.2)).toBeCloseTo(
      40,
      9,
    );
    // A dearer machine must prove more.
    expect(keepMinimumProofsPerHour({ minProofsPerHour: 0, maxUsdPer1000Proofs: 30 }, 2.4)).toBeCloseTo(
      80,
      9,
    );
  });

  it("needs both when both are given: the higher of the floor and the price's rate", () => {
    const rule = { minProofsPerHour: 50, maxUsdPer1000Proofs: 30 };
    expect(keepMinimumProofsPerHour(rule, 1.2)).toBe(50); // the floor is higher
    expect(keepMinimumProofsPerHour(rule, 3)).toBeCloseTo(100, 9); // the price is higher
  });

  it("asks nothing of the price for a machine with no (or an unknown) price", () => {
    const rule = { minProofsPerHour: 10, maxUsdPer1000Proofs: 30 };
    expect(keepMinimumProofsPerHour(rule, 0)).toBe(10);
    expect(keepMinimumProofsPerHour(rule, Number.NaN)).toBe(10);
    expect(keepMinimumProofsPerHour(rule, -1)).toBe(10);
  });
});

describe("usdPer1000Proofs", () => {
  it("is the hourly price over the hourly proofs, per 1000, and Infinity at no proofs", () => {
    expect(usdPer1000Proofs(1.2, 40)).toBeCloseTo(30, 9);
    expect(usdPer1000Proofs(1.2, 0)).toBe(Number.POSITIVE_INFINITY);
    expect(usdPer1000Proofs(1.2, -5)).toBe(Number.POSITIVE_INFINITY);
    expect(usdPer1000Proofs(0, 0)).toBe(Number.POSITIVE_INFINITY);
  });
});

describe("describeKeepMinimum", () => {
  it("names the floor, and the price ceiling only when the price sets the minimum", () => {
    expect(describeKeepMinimum({ minProofsPerHour: 40, maxUsdPer1000Proofs: undefined }, 1.2)).toBe(
      "the minimum 40.0/h",
    );
    expect(describeKeepMinimum({ minProofsPerHour: 0, maxUsdPer1000Proofs: 30 }, 1.2)).toBe(
      "the minimum 40.0/h ($1.200/h at most $30.00 per 1000 proofs)",
    );
    // The floor is higher than the price's rate: the ceiling is not why.
    expect(describeKeepMinimum({ minProofsPerHour: 50, maxUsdPer1000Proofs: 30 }, 1.2)).toBe(
      "the minimum 50.0/h",
    );
  });
});
