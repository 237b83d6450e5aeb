import type { BenchmarkOptions, BenchmarkReport } from "@cuzkit/bench";
import { describe, expect, it } from "vitest";
import { runVetting, toFleetRecord, verdictOf } from "./vetting.js";

/** A report with only what the adapter reads; the rest of the shape is the harness's business. */
function report(overrides: Partial<BenchmarkReport>): BenchmarkReport {
  return {
    verdict: { status: "MET", reason: "ok", incidents: [] },
    failed: 0,
    completed: 3,
    count: 3,
    concurrency: 2,
    abandoned: 0,
    notStarted: 0,
    daemonRestarts: 0,
    daemonCrashes: 0,
    daemonExits: [],
    records: [],
    proofsPerHour: 48,
    timedWindowMs: 1000,
    wallTime: { count: 3, p50Ms: 1, p95Ms: 2, maxMs: 2, meanMs: 1 },
    warmup: { proofs: 1, completed: 1, durationMs: 10 },
    ...overrides,
  } as unknown as BenchmarkReport;
}

const snapshot = {
  total: 2,
  done: 0,
  failed: 0,
  inFlight: 0,
  ratePerHour: 0,
  etaMs: undefined,
  concurrency: 1,
  phase: "warmup",
  phaseElapsedMs: 0,
} as const;

describe("verdictOf: the harness's own verdict is the fleet's", () => {
  it.each(["MET", "BELOW", "UNSTABLE", "FAILED"] as const)("%s", (status) => {
    expect(verdictOf(report({ verdict: { status, reason: "", incidents: [] } }))).toBe(status);
  });
});

describe("toFleetRecord", () => {
  it("keeps the wall time, the failure class and code; an abandoned proof is not ok", () => {
    const base = { index: 1, warmup: false, requestId: "r-1", attempts: 1, submitMs: 1000, settleMs: 4000 };
    expect(toFleetRecord({ ...base, outcome: "completed" })).toEqual({
      index: 1,
      warmup: false,
      ok: true,
      wallMs: 3000,
      submitMs: 1000,
      settleMs: 4000,
    });
    expect(
      toFleetRecord({
        ...base,
        outcome: "failed",
        code: "DAEMON_FROZEN",
        failureClass: "froze",
        message: "stopped answering",
      }),
    ).toEqual({
      index: 1,
      warmup: false,
      ok: false,
      wallMs: 3000,
      submitMs: 1000,
      settleMs: 4000,
      errorClass: "froze",
      code: "DAEMON_FROZEN",
      message: "stopped answering",
    });
    expect(toFleetRecord({ ...base, outcome: "abandoned" })).toMatchObject({ ok: false, code: "ABANDONED" });
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
        options.onProgress?.({ type: "phase", phase: "warmup", message: "" }, snapshot);
        options.onProgress?.({ type: "phase", phase: "timed", message: "" }, { ...snapshot, phase: "timed" });
        const r = { requestId: "r", attempts: 1 };
        return report({
          verdict: { status: "UNSTABLE", reason: "a proof failed", incidents: ["proof 2 failed"] },
          failed: 1,
          completed: 1,
          proofsPerHour: 12,
          records: [
            { ...r, index: 0, warmup: true, submitMs: 0, settleMs: 900, outcome: "completed" },
            { ...r, index: 1, warmup: false, submitMs: 1000, settleMs: 1300, outcome: "completed" },
            {
              ...r,
              index: 2,
              warmup: false,
              submitMs: 1000,
              settleMs: 1500,
              outcome: "failed",
              code: "CONNECTION_LOST",
              failureClass: "died",
              message: "broken pipe",
            },
          ],
        });
      },
    });
    expect(announced).toEqual(["warmup", "benchmarking"]);
    expect(result).toMatchObject({ verdict: "UNSTABLE", proofsPerHour: 12, reachedTimed: true });
    // Times aside (the manager's recount reads them; see the toFleetRecord test).
    expect(result.proofs.map(({ submitMs: _s, settleMs: _e, ...rest }) => rest)).toEqual([
      { index: 0, warmup: true, ok: true, wallMs: 900 },
      { index: 1, warmup: false, ok: true, wallMs: 300 },
      {
        index: 2,
        warmup: false,
        ok: false,
        wallMs: 500,
        errorClass: "died",
        code: "CONNECTION_LOST",
        message: "broken pipe",
      },
    ]);
    expect(result.summary).toMatchObject({ completed: 1, failed: 1, daemonRestarts: 0 });
  });

  it("says when the run never reached the timed part", async () => {
    const result = await runVetting({
      address: "unix:///nowhere",
      request: {} as BenchmarkOptions["request"],
      run: async () =>
        report({
          verdict: { status: "FAILED", reason: "the daemon did not start", incidents: [] },
          completed: 0,
        }),
    });
    expect(result).toMatchObject({
      verdict: "FAILED",
      reachedTimed: false,
      reason: "the daemon did not start",
    });
  });
});
