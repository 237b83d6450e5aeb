import { describe, expect, it } from "vitest";
import {
  type BenchmarkReport,
  decideVerdict,
  formatReport,
  toMachineTime,
  verdictExitCode,
} from "./report.js";
import { summarizeDurations } from "./stats.js";

const stats = summarizeDurations([1000, 2000]);
const base: BenchmarkReport = {
  schema: "cuzkit.bench.report/v1",
  startedAt: "2026-11-30T00:00:00.000Z",
  finishedAt: "2026-11-30T00:10:00.000Z",
  address: "127.0.0.1:9820",
  kind: "porep",
  count: 4,
  concurrency: 2,
  warmup: { proofs: 1, completed: 1, durationMs: 3000 },
  completed: 2,
  failed: 2,
  proofsPerHour: 1800,
  timedWindowMs: 4000,
  wallTime: stats,
  daemonTimings: { queueWait: stats, synthesisSum: stats, gpuComputeSum: stats, total: stats, note: "" },
  failures: [
    {
      index: 3,
      warmup: false,
      errorClass: "E",
      code: "BENCHMARK_STOPPED",
      message: "the daemon died",
      hint: "check dmesg",
    },
    {
      index: 4,
      warmup: false,
      errorClass: "E",
      code: "BENCHMARK_STOPPED",
      message: "the daemon died",
      hint: "check dmesg",
    },
  ],
  daemonRestarts: 0,
  daemonExits: [],
  inputBytes: 1024,
  verdict: { status: "failed", reason: "the daemon died" },
};

describe("report", () => {
  it("prints failures with the same cause once, with a count", () => {
    const text = formatReport(base);
    expect(text).toContain("failure x2: BENCHMARK_STOPPED: the daemon died");
    expect(text.match(/hint: check dmesg/g)).toHaveLength(1);
    expect(text).toMatch(/verdict: FAILED: the daemon died$/);
  });

  it("converts a simulated run to the machine's time", () => {
    const machine = toMachineTime(base, 0.01);
    expect(machine.proofsPerHour).toBe(18);
    expect(machine.timedWindowMs).toBe(400_000);
    expect(machine.wallTime.p50Ms).toBe(100_000);
    expect(machine.warmup.durationMs).toBe(300_000);
    expect(machine.daemonTimings.total.maxMs).toBe(200_000);
    const met = toMachineTime({ ...base, verdict: decideVerdict(2, 1800, undefined) }, 0.01);
    expect(met.verdict.reason).toBe("18.0 proofs/hour; no threshold given");
  });

  it("decides verdicts and exit codes", () => {
    expect(decideVerdict(3, 40, 30)).toMatchObject({ status: "met" });
    expect(decideVerdict(3, 20, 30)).toMatchObject({ status: "below" });
    expect(decideVerdict(0, 0, undefined)).toMatchObject({
      status: "failed",
      reason: "no timed proof completed",
    });
    expect(decideVerdict(3, 40, 30, "aborted")).toMatchObject({ status: "failed", reason: "aborted" });
    expect([
      verdictExitCode({ status: "met", reason: "" }),
      verdictExitCode({ status: "below", reason: "" }),
      verdictExitCode({ status: "failed", reason: "" }),
    ]).toEqual([0, 2, 1]);
  });
});
