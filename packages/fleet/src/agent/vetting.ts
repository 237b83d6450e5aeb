// The one file that knows the bench harness's result shape: @cuzkit/bench decides the verdict
// (MET / BELOW / UNSTABLE / FAILED) and keeps a record of every proof; this file turns them into
// the fleet's report body and announces the phases as the harness enters them.
import {
  type BenchmarkOptions,
  type BenchmarkReport,
  type ProofRecord as BenchProofRecord,
  runBenchmark,
} from "@cuzkit/bench";
import type { BenchVerdict } from "../decision.js";
import type { ProofRecord } from "../protocol/requests.js";

/** The fleet's view of one benchmark run. */
export interface VettingResult {
  verdict: BenchVerdict;
  /** Completed timed proofs per hour. */
  proofsPerHour: number;
  /** Every proof, warmup included, in the order they ended. */
  proofs: ProofRecord[];
  /** Figures for the manager's record. */
  summary: Record<string, number | string | boolean | null>;
  /** True once the timed part began (so the manager is in `benchmarking`). */
  reachedTimed: boolean;
  /** Why, in one sentence. */
  reason: string;
}

/** Options of runVetting: runBenchmark's, plus where phases are announced. */
export interface VettingOptions extends BenchmarkOptions {
  /** Called when the warmup and the timed part begin. */
  onPhase?: ((phase: "warmup" | "benchmarking") => void | Promise<void>) | undefined;
  /** The harness; injectable for tests. Default runBenchmark of @cuzkit/bench. */
  run?: ((options: BenchmarkOptions) => Promise<BenchmarkReport>) | undefined;
}

/** The harness's own verdict: it already counts deaths, freezes and failed proofs as UNSTABLE. */
export function verdictOf(report: BenchmarkReport): BenchVerdict {
  return report.verdict.status;
}

/** One bench record in the fleet's report shape (an abandoned proof is not ok and says so). */
export function toFleetRecord(record: BenchProofRecord): ProofRecord {
  const ok = record.outcome === "completed";
  return {
    index: record.index,
    warmup: record.warmup,
    ok,
    wallMs: Math.max(0, record.settleMs - record.submitMs),
    submitMs: Math.max(0, record.submitMs),
    settleMs: Math.max(0, record.settleMs),
    errorClass: record.failureClass,
    code: ok ? undefined : (record.code ?? record.outcome.toUpperCase()).slice(0, 200),
    message: record.message?.slice(0, 4000),
  };
}

/** Runs the benchmark and answers in the fleet's terms. Never throws for a run that went wrong: that is a FAILED verdict. */
export async function runVetting(options: VettingOptions): Promise<VettingResult> {
  const { onPhase, run = runBenchmark, ...benchmark } = options;
  let reachedTimed = false;
  let announced: Promise<void> = Promise.resolve();
  const report = await run({
    ...benchmark,
    onProgress: (event, snapshot) => {
      benchmark.onProgress?.(event, snapshot);
      if (event.type === "phase" && event.phase === "warmup") {
        announced = announced.then(() => onPhase?.("warmup"));
      } else if (event.type === "phase" && event.phase === "timed") {
        reachedTimed = true;
        announced = announced.then(() => onPhase?.("benchmarking"));
      }
    },
  });
  await announced;
  return {
    verdict: verdictOf(report),
    proofsPerHour: report.proofsPerHour,
    proofs: report.records.map(toFleetRecord),
    reachedTimed,
    reason: report.verdict.reason,
    summary: {
      completed: report.completed,
      failed: report.failed,
      count: report.count,
      concurrency: report.concurrency,
      timedWindowMs: report.timedWindowMs,
      wallP50Ms: report.wallTime.p50Ms,
      wallP95Ms: report.wallTime.p95Ms,
      daemonRestarts: report.daemonRestarts,
      daemonCrashes: report.daemonCrashes,
      daemonExits: report.daemonExits.length,
      abandoned: report.abandoned,
      notStarted: report.notStarted,
      stopCause: report.stopCause ?? null,
      warmupMs: report.warmup.durationMs,
      reason: report.verdict.reason,
    },
  };
}
