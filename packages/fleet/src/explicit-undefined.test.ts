import { GiB } from "@cuzkit/core";
import { describe, expect, it } from "vitest";
import { type DeadlineInputs, defaultDeadlineFloorsMs, derivePhaseDeadlines } from "./deadlines.js";

// Options are typed `x?: T | undefined`: passing `x: undefined` must mean "not given".

const quickMachine: DeadlineInputs = {
  inetDownMbps: 10_000,
  imageBytes: 1 * GiB,
  paramsBytes: 1 * GiB,
  warmupProofSec: 10,
  secPerProof: 5,
  proofLatencySec: 10,
  benchmarkProofs: 2,
  restartAfterWarmup: false,
};

describe("a deadline policy field passed as undefined keeps its default", () => {
  it("floorsMs: { benchmarking: undefined } keeps the 35-minute floor (a spread merge made it NaN)", () => {
    const deadlines = derivePhaseDeadlines(quickMachine, {
      margin: undefined,
      floorsMs: { benchmarking: undefined, params: 20 * 60_000 },
      overridesMs: { warmup: undefined },
    });
    expect(deadlines.benchmarking).toBe(defaultDeadlineFloorsMs.benchmarking);
    expect(deadlines.params).toBe(20 * 60_000);
    expect(deadlines).toEqual({ ...derivePhaseDeadlines(quickMachine), params: 20 * 60_000 });
  });
});
