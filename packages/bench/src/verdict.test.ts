import { describe, expect, it } from "vitest";
import { decideVerdict, type EarlyVerdictInfo, type VerdictInput, verdictExitCode } from "./verdict.js";

// The verdict is what `cuzkit bench` exits with and what the fleet keeps or rejects a machine on:
// instability first, then whether the run could benchmark at all, then the threshold.

const input = (over: Partial<VerdictInput> = {}): VerdictInput => ({
  completed: 10,
  proofsPerHour: 48,
  minProofsPerHour: 40,
  incidents: [],
  couldNotBenchmark: undefined,
  ...over,
});

const info: EarlyVerdictInfo = {
  test: "confidence-bound",
  confidence: 0.95,
  indifference: 0.1,
  samples: 8,
  slots: 2,
  proofsPerHour: 48,
  boundProofsPerHour: 42.5,
};

describe("decideVerdict", () => {
  it("is MET at or above the threshold and BELOW under it, with the threshold in the verdict", () => {
    expect(decideVerdict(input())).toMatchObject({ status: "MET", minProofsPerHour: 40, incidents: [] });
    expect(decideVerdict(input({ proofsPerHour: 40 })).status).toBe("MET"); // at the threshold is enough
    const below = decideVerdict(input({ proofsPerHour: 39.9 }));
    expect(below).toMatchObject({ status: "BELOW", minProofsPerHour: 40 });
    expect(below.reason).toBe("39.9 proofs/hour < 40");
    expect(verdictExitCode(below)).toBe(2);
  });

  it("is MET with no threshold, whatever the rate", () => {
    const verdict = decideVerdict(input({ minProofsPerHour: undefined, proofsPerHour: 1 }));
    expect(verdict.status).toBe("MET");
    expect(verdict.reason).toBe("1.0 proofs/hour; no threshold given");
    expect(verdictExitCode(verdict)).toBe(0);
  });

  it("is UNSTABLE on any incident, however fast, naming the first and counting the rest", () => {
    const verdict = decideVerdict(
      input({ proofsPerHour: 90, incidents: ["daemon died at 12:00", "proof 3 failed", "froze 40 s"] }),
    );
    expect(verdict).toMatchObject({
      status: "UNSTABLE",
      minProofsPerHour: 40,
      incidents: ["daemon died at 12:00", "proof 3 failed", "froze 40 s"],
    });
    expect(verdict.reason).toBe(
      "daemon died at 12:00 (+2 more); 90.0 proofs/hour is not a measure of this machine",
    );
    expect(verdictExitCode(verdict)).toBe(3);
    // One incident: no "more".
    expect(decideVerdict(input({ incidents: ["proof 3 failed"] })).reason).toBe(
      "proof 3 failed; 48.0 proofs/hour is not a measure of this machine",
    );
  });

  it("puts instability before a failed setup, and a failed setup before the rate", () => {
    expect(decideVerdict(input({ incidents: ["froze"], couldNotBenchmark: "never ready" })).status).toBe(
      "UNSTABLE",
    );
    const failed = decideVerdict(input({ couldNotBenchmark: "the daemon never became ready" }));
    expect(failed).toMatchObject({
      status: "FAILED",
      reason: "the daemon never became ready",
      minProofsPerHour: 40,
    });
    expect(verdictExitCode(failed)).toBe(1);
  });

  it("is FAILED when no timed proof completed, even without a threshold", () => {
    expect(decideVerdict(input({ completed: 0, minProofsPerHour: undefined }))).toMatchObject({
      status: "FAILED",
      reason: "no timed proof completed",
    });
  });

  it("takes the early decision's side over the measured rate, and carries how it was reached", () => {
    const met = decideVerdict(input({ proofsPerHour: 39, early: { above: true, info } }));
    expect(met).toMatchObject({ status: "MET", early: info, minProofsPerHour: 40 });
    expect(met.reason).toBe(
      "early verdict after 8 proofs: 39.0 proofs/hour, at or above 40 with 95% confidence (lower bound 42.5)",
    );
    const below = decideVerdict(input({ proofsPerHour: 45, early: { above: false, info } }));
    expect(below).toMatchObject({ status: "BELOW", early: info });
    expect(below.reason).toBe(
      "early verdict after 8 proofs: 45.0 proofs/hour, below 40 with 95% confidence (upper bound 42.5)",
    );
  });

  it("does not let an early decision hide an incident or a run that completed nothing", () => {
    expect(decideVerdict(input({ incidents: ["proof 1 failed"], early: { above: true, info } })).status).toBe(
      "UNSTABLE",
    );
    expect(decideVerdict(input({ completed: 0, early: { above: true, info } })).status).toBe("FAILED");
  });

  it("shows a fractional threshold in at most six significant digits", () => {
    expect(decideVerdict(input({ minProofsPerHour: 100 / 3, proofsPerHour: 30 })).reason).toBe(
      "30.0 proofs/hour < 33.3333",
    );
  });
});
