// The one file that knows the bench harness's result shape. It maps today's runBenchmark
// report (verdict "met" | "below" | "failed", no per-proof records) to the fleet's four
// verdicts and per-proof records, collected from the progress events. When @cuzkit/bench
// reports MET/BELOW/UNSTABLE/FAILED with per-proof records itself, only this file changes.
import { type BenchmarkOptions, type BenchmarkReport, runBenchmark } from "@cuzkit/bench";
import type { BenchVerdict } from "../decision.js";
import type { ProofRecord } from "../manager/agent-schemas.js";

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

/** Maps a report to a verdict: a run that lost proofs or daemons is UNSTABLE even when fast enough. */
export function verdictOf(report: BenchmarkReport): BenchVerdict {
  if (report.verdict.status === "failed") return "FAILED";
  const troubled = report.failed > 0 || report.daemonRestarts > 0 || report.daemonExits.length > 0;
  if (troubled) return "UNSTABLE";
  return report.verdict.status === "met" ? "MET" : "BELOW";
}

/** Runs the benchmark and answers in the fleet's terms. Never throws for a run that went wrong: that is a FAILED verdict. */
export async function runVetting(options: VettingOptions): Promise<VettingResult> {
  const { onPhase, run = runBenchmark, ...benchmark } = options;
  const proofs: ProofRecord[] = [];
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
      } else if (event.type === "proof-completed") {
        proofs.push({ index: event.index, warmup: event.warmup, ok: true, wallMs: event.wallMs });
      } else if (event.type === "proof-failed") {
        proofs.push({
          index: event.index,
          warmup: event.warmup,
          ok: false,
          code: event.code.slice(0, 200),
          message: event.message.slice(0, 4000),
        });
      }
    },
  });
  await announced;
  return {
    verdict: verdictOf(report),
    proofsPerHour: report.proofsPerHour,
    proofs,
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
      daemonExits: report.daemonExits.length,
      warmupMs: report.warmup.durationMs,
      reason: report.verdict.reason,
    },
  };
}
