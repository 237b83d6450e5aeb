import { basisProofsPerHour, rateBasis } from "../proof-rate.js";
import type { BenchmarkReport } from "../report.js";
import { summarizeDurations } from "../stats.js";
import { decideVerdict } from "../verdict.js";
import { crashCount, type RunState } from "./state.js";
import { stopInfo } from "./stop.js";

/** The first timed submit to the last timed settle, in ms (abandoned proofs left out). */
function timedWindowMs(run: RunState): number {
  const timed = run.records.filter((r) => !r.warmup && r.outcome !== "abandoned");
  if (timed.length === 0) return 0;
  return Math.max(...timed.map((r) => r.settleMs)) - Math.min(...timed.map((r) => r.submitMs));
}

/** The verdict on what the run saw. */
export function runVerdict(run: RunState): BenchmarkReport["verdict"] {
  const stopped = stopInfo(run);
  const couldNotBenchmark =
    stopped && (stopped.kind === "failed" || stopped.kind === "interrupted") ? stopped.message : undefined;
  return decideVerdict({
    completed: run.counts.done,
    proofsPerHour: basisProofsPerHour(rateBasis(run.cycles)),
    minProofsPerHour: run.o.minProofsPerHour,
    incidents: run.incidents,
    couldNotBenchmark,
    early: run.early,
  });
}

/** The daemon's own timings over the completed timed proofs. */
function daemonTimings(run: RunState): BenchmarkReport["daemonTimings"] {
  const { results } = run;
  return {
    queueWait: summarizeDurations(results.map((r) => r.timings.queueWaitMs)),
    synthesisSum: summarizeDurations(results.map((r) => r.timings.synthesisMs)),
    gpuComputeSum: summarizeDurations(results.map((r) => r.timings.gpuComputeMs)),
    total: summarizeDurations(results.map((r) => r.timings.totalMs)),
    note: "synthesis and GPU times are the daemon's sums over a proof's partitions, which run in parallel: they can exceed wall time",
  };
}

/** The report of a finished run, with `verdict`. */
export function buildReport(run: RunState, verdict: BenchmarkReport["verdict"]): BenchmarkReport {
  const { o, sup, counts } = run;
  const stopped = stopInfo(run);
  const basis = rateBasis(run.cycles);
  return {
    schema: "cuzkit.bench.report/v2",
    startedAt: run.startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    address: run.client.address,
    kind: o.kind,
    count: o.count,
    concurrency: o.concurrency,
    warmup: {
      proofs: o.warmupProofs,
      completed: counts.warmupCompleted,
      durationMs: counts.warmupDurationMs,
    },
    completed: counts.done,
    failed: counts.failed,
    abandoned: run.records.filter((r) => !r.warmup && r.outcome === "abandoned").length,
    notStarted: o.count - counts.started,
    proofsPerHour: basisProofsPerHour(basis),
    rateBasis: basis,
    timedWindowMs: timedWindowMs(run),
    wallTime: summarizeDurations(run.results.map((r) => r.wallMs)),
    daemonTimings: daemonTimings(run),
    failures: run.failures,
    records: run.records,
    daemonRestarts: run.restarts.used + run.restarts.seenByClient,
    daemonCrashes: crashCount(run),
    daemonExits: [...(sup?.supervisor.crashes ?? [])],
    phases: run.phases,
    stopCause: stopped && stopped.kind !== "early" ? stopped.message : undefined,
    notes: run.notes,
    config: sup
      ? {
          path: sup.configPath,
          toml: sup.configToml,
          warmupToml: run.twoConfigs ? sup.warmupConfigToml : undefined,
        }
      : undefined,
    inputBytes: run.inputBytes,
    verdict,
  };
}
