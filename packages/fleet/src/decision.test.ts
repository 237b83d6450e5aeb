import { describe, expect, it } from "vitest";
import { decideBenchmark, isVastFailureStatus } from "./decision.js";

describe("decideBenchmark", () => {
  it.each([
    // verdict, measured/h, minimum/h, state, destroy, exclude
    ["MET", 48.2, 40, "active", false, false],
    ["MET", 40, 40, "active", false, false], // at the minimum is enough
    ["MET", 35.9, 40, "rejected", true, false], // the 2x A40 of the incidents, whatever the agent said
    ["BELOW", 35.9, 40, "rejected", true, false],
    ["UNSTABLE", 44, 40, "rejected", true, true],
    ["FAILED", 0, 40, "failed", true, false],
    ["MET", Number.NaN, 40, "rejected", true, false],
    ["MET", Number.POSITIVE_INFINITY, 40, "rejected", true, false], // no real rate is infinite
  ] as const)("%s at %s/h against %s/h -> %s", (verdict, measured, minimum, to, destroy, exclude) => {
    const decision = decideBenchmark(verdict, measured, minimum);
    expect(decision).toMatchObject({ to, destroy, excludeMachine: exclude });
    expect(decision.reason.length).toBeGreaterThan(10);
  });
});

describe("decideBenchmark's reasons", () => {
  it("name the measured rate and the minimum (or the words given for it)", () => {
    expect(decideBenchmark("MET", 48.25, 40).reason).toBe("kept: 48.3/h >= the minimum 40.0/h");
    expect(decideBenchmark("BELOW", 35.9, 40, "the minimum 40.0/h ($1.200/h)").reason).toBe(
      "rejected: 35.9/h < the minimum 40.0/h ($1.200/h)",
    );
  });
});

describe("isVastFailureStatus", () => {
  it.each([
    ["exited", true],
    ["offline", true],
    ["unknown", true],
    ["running", false],
    ["loading", false],
    [null, false],
  ])("%s -> %s", (status, failed) => {
    expect(isVastFailureStatus(status)).toBe(failed);
  });
});
