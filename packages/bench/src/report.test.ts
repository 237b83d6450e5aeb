import { describe, expect, it } from "vitest";
import { type BenchmarkReport, formatReport, toMachineTime } from "./report.js";
import { summarizeDurations } from "./stats.js";
import { decideVerdict, verdictExitCode, verdictExitCodes } from "./verdict.js";

const stats = summarizeDurations([1000, 2000]);
const base: BenchmarkReport = {
  schema: "cuzkit.bench.report/v2",
  startedAt: "2026-11-30T00:00:00.000Z",
  finishedAt: "2026-11-30T00:10:00.000Z",
  address: "127.0.0.1:9820",
  kind: "porep",
  count: 4,
  concurrency: 2,
  warmup: { proofs: 1, completed: 1, durationMs: 3000 },
  completed: 2,
  failed: 2,
  abandoned: 0,
  notStarted: 0,
  proofsPerHour: 1800,
  rateBasis: { proofs: 2, slots: 2, slotTimeMs: 8000 },
  timedWindowMs: 4000,
  wallTime: stats,
  daemonTimings: { queueWait: stats, synthesisSum: stats, gpuComputeSum: stats, total: stats, note: "" },
  failures: [3, 4].map((index) => ({
    index,
    warmup: false,
    errorClass: "E",
    code: "DAEMON_UNAVAILABLE",
    message: "stopped before completing: the daemon died",
    hint: "check dmesg",
  })),
  records: [],
  daemonRestarts: 0,
  daemonCrashes: 1,
  daemonExits: [
    {
      atMs: 3000,
      exitCode: 137,
      signal: null,
      expected: false,
      likelyOom: true,
      frozen: false,
      explanation: "killed (exit 137): most likely the kernel's OOM killer",
      logTail: ["loading params", "synthesis started: 16 partitions", "oom-kill: modelled memory 270 GiB"],
    },
  ],
  phases: [],
  notes: [],
  inputBytes: 1024,
  verdict: {
    status: "UNSTABLE",
    reason: "the daemon died: killed (exit 137); 1800.0 proofs/hour is not a measure of this machine",
    incidents: ["the daemon died: killed (exit 137)"],
  },
};

describe("report", () => {
  it("prints failures with the same cause once, the exit with its last log lines, crashes apart from restarts", () => {
    const text = formatReport(base);
    expect(text).toContain("failure x2: DAEMON_UNAVAILABLE: stopped before completing: the daemon died");
    expect(text.match(/hint: check dmesg/g)).toHaveLength(1);
    expect(text).toContain("daemon:      1 crash(es), 0 restart(s) after a crash");
    expect(text).toContain("daemon exit: killed (exit 137): most likely the kernel's OOM killer");
    expect(text).toContain("| oom-kill: modelled memory 270 GiB");
    expect(text).toContain("wall time:   p50 1.0 s, p95 2.0 s, max 2.0 s (2 samples)");
    expect(text).toMatch(/verdict: UNSTABLE: the daemon died: killed \(exit 137\); 1800\.0 proofs\/hour/);
  });

  it("converts a simulated run to the machine's time, rejudging the threshold there", () => {
    const machine = toMachineTime(
      {
        ...base,
        records: [
          {
            index: 1,
            warmup: false,
            requestId: "a",
            attempts: 1,
            submitMs: 10,
            settleMs: 20,
            outcome: "completed",
          },
        ],
      },
      0.01,
    );
    expect(machine.proofsPerHour).toBe(18);
    expect(machine.timedWindowMs).toBe(400_000);
    expect(machine.wallTime.p50Ms).toBe(100_000);
    expect(machine.warmup.durationMs).toBe(300_000);
    expect(machine.daemonTimings.total.maxMs).toBe(200_000);
    expect(machine.records[0]).toMatchObject({ submitMs: 1000, settleMs: 2000 });
    expect(machine.verdict.reason).toContain("18.0 proofs/hour is not a measure");
    // A threshold of 40/h on the machine is 4000/h in the scaled run: 1800/h there is 18/h here, below 40.
    const below = {
      ...base,
      verdict: decideVerdict({ ...judged, proofsPerHour: 1800, minProofsPerHour: 4000 }),
    };
    expect(below.verdict.status).toBe("BELOW");
    expect(toMachineTime(below, 0.01).verdict).toMatchObject({
      status: "BELOW",
      minProofsPerHour: 40,
      reason: "18.0 proofs/hour < 40",
    });
  });
});

const judged = {
  completed: 3,
  proofsPerHour: 40,
  minProofsPerHour: 30 as number | undefined,
  incidents: [] as string[],
  couldNotBenchmark: undefined as string | undefined,
};

describe("verdicts", () => {
  it.each([
    ["at the threshold", judged, "MET", 0],
    ["below it", { ...judged, proofsPerHour: 20 }, "BELOW", 2],
    ["without a threshold", { ...judged, minProofsPerHour: undefined }, "MET", 0],
    [
      "a death, whatever the throughput",
      { ...judged, proofsPerHour: 400, incidents: ["the daemon died"] },
      "UNSTABLE",
      3,
    ],
    [
      "a death without a threshold",
      { ...judged, minProofsPerHour: undefined, incidents: ["x"] },
      "UNSTABLE",
      3,
    ],
    ["a run that could not benchmark", { ...judged, couldNotBenchmark: "never ready" }, "FAILED", 1],
    ["no completed proof", { ...judged, completed: 0 }, "FAILED", 1],
  ])("%s", (_name, input, status, code) => {
    const verdict = decideVerdict(input);
    expect(verdict.status).toBe(status);
    expect(verdictExitCode(verdict)).toBe(code);
  });

  it("maps every verdict to a distinct exit code", () => {
    expect(verdictExitCodes).toEqual({ MET: 0, FAILED: 1, BELOW: 2, UNSTABLE: 3 });
  });

  it("states an early verdict's rate, bound, confidence and sample count", () => {
    const verdict = decideVerdict({
      ...judged,
      early: {
        above: true,
        info: {
          test: "confidence-bound",
          confidence: 0.95,
          indifference: 0.1,
          samples: 4,
          slots: 2,
          proofsPerHour: 40,
          boundProofsPerHour: 33.25,
        },
      },
    });
    expect(verdict).toMatchObject({ status: "MET", early: { samples: 4 } });
    expect(verdict.reason).toBe(
      "early verdict after 4 proofs: 40.0 proofs/hour, at or above 30 with 95% confidence (lower bound 33.3)",
    );
  });

  it("converts an early verdict's rate and bound to machine time with the report's rate", () => {
    const info = {
      test: "confidence-bound" as const,
      confidence: 0.95,
      indifference: 0.1,
      samples: 2,
      slots: 2,
      proofsPerHour: 1800,
      boundProofsPerHour: 1500,
    };
    const report = {
      ...base,
      failed: 0,
      failures: [],
      verdict: decideVerdict({
        ...judged,
        proofsPerHour: 1800,
        minProofsPerHour: 1000,
        early: { above: true, info },
      }),
    };
    const machine = toMachineTime(report, 0.01);
    expect(machine.verdict.early).toMatchObject({ proofsPerHour: 18, boundProofsPerHour: 15 });
    expect(machine.verdict.early?.proofsPerHour).toBe(machine.proofsPerHour);
    expect(machine.rateBasis.slotTimeMs).toBe(800_000);
  });
});
