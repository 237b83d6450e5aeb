import type { BenchmarkOptions, BenchmarkReport } from "@cuzkit/bench";
import { describe, expect, it } from "vitest";
import { runVetting, verdictOf } from "./vetting.js";

/** A report with only what the adapter reads; the rest of the shape is the harness's business. */
function report(overrides: Partial<BenchmarkReport>): BenchmarkReport {
  return {
    verdict: { status: "met", reason: "ok" },
    failed: 0,
    completed: 3,
    count: 3,
    concurrency: 2,
    daemonRestarts: 0,
    daemonExits: [],
    proofsPerHour: 48,
    timedWindowMs: 1000,
    wallTime: { count: 3, p50Ms: 1, p95Ms: 2, maxMs: 2, meanMs: 1 },
    warmup: { proofs: 1, completed: 1, durationMs: 10 },
    ...overrides,
  } as BenchmarkReport;
}

describe("verdictOf (today's bench report -> the fleet's four verdicts)", () => {
  it.each([
    [{}, "MET"],
    [{ verdict: { status: "below", reason: "" } }, "BELOW"],
    [{ verdict: { status: "failed", reason: "" } }, "FAILED"],
    [{ failed: 1 }, "UNSTABLE"], // fast enough, but a proof was lost
    [{ daemonRestarts: 1 }, "UNSTABLE"],
    [{ verdict: { status: "below", reason: "" }, daemonExits: [{}] }, "UNSTABLE"],
    [{ verdict: { status: "failed", reason: "" }, failed: 3 }, "FAILED"],
  ] as const)("%j -> %s", (overrides, verdict) => {
    expect(verdictOf(report(overrides as Partial<BenchmarkReport>))).toBe(verdict);
  });
});

describe("runVetting", () => {
  it("collects one record per proof and announces warmup and the timed part in order", async () => {
    const announced: string[] = [];
    const result = await runVetting({
      address: "unix:///nowhere",
      request: {} as BenchmarkOptions["request"],
      onPhase: async (phase) => {
        await new Promise((resolve) => setTimeout(resolve, 5));
        announced.push(phase);
      },
      run: async (options) => {
        const snapshot = { total: 2, done: 0, failed: 0, inFlight: 0, ratePerHour: 0, etaMs: undefined };
        options.onProgress?.({ type: "phase", phase: "warmup", message: "" }, snapshot);
        options.onProgress?.({ type: "proof-completed", index: 0, warmup: true, wallMs: 900 }, snapshot);
        options.onProgress?.({ type: "phase", phase: "timed", message: "" }, snapshot);
        options.onProgress?.({ type: "proof-completed", index: 1, warmup: false, wallMs: 300 }, snapshot);
        options.onProgress?.(
          { type: "proof-failed", index: 2, warmup: false, code: "CONNECTION_LOST", message: "broken pipe" },
          snapshot,
        );
        return report({ failed: 1, completed: 1, proofsPerHour: 12 });
      },
    });
    expect(announced).toEqual(["warmup", "benchmarking"]);
    expect(result).toMatchObject({ verdict: "UNSTABLE", proofsPerHour: 12, reachedTimed: true });
    expect(result.proofs).toEqual([
      { index: 0, warmup: true, ok: true, wallMs: 900 },
      { index: 1, warmup: false, ok: true, wallMs: 300 },
      { index: 2, warmup: false, ok: false, code: "CONNECTION_LOST", message: "broken pipe" },
    ]);
    expect(result.summary).toMatchObject({ completed: 1, failed: 1, daemonRestarts: 0 });
  });

  it("says when the run never reached the timed part", async () => {
    const result = await runVetting({
      address: "unix:///nowhere",
      request: {} as BenchmarkOptions["request"],
      run: async () =>
        report({ verdict: { status: "failed", reason: "the daemon did not start" }, completed: 0 }),
    });
    expect(result).toMatchObject({
      verdict: "FAILED",
      reachedTimed: false,
      reason: "the daemon did not start",
    });
  });
});
