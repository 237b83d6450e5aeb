import { formatBytes, type ProofKind, proofKindLabel } from "@cuzkit/core";
import type { DurationStats } from "./stats.js";
import type { DaemonExit } from "./supervisor.js";

/** One proof that did not complete. */
export interface ProofFailure {
  /** 1-based position in the timed batch, or 0 for a warmup proof. */
  index: number;
  /** True for a warmup proof. */
  warmup: boolean;
  /** The error class name, e.g. "ConnectionLostError". */
  errorClass: string;
  /** The stable error code, e.g. "CONNECTION_LOST". */
  code: string;
  /** What went wrong. */
  message: string;
  /** What an operator should do. */
  hint: string;
}

/** Sums of the daemon's own per-proof timings (each is a sum over partitions, not wall time). */
export interface DaemonTimings {
  /** Queue wait per proof. */
  queueWait: DurationStats;
  /** Synthesis time per proof, summed over its partitions (can exceed wall time). */
  synthesisSum: DurationStats;
  /** GPU time per proof, summed over its partitions (can exceed wall time). */
  gpuComputeSum: DurationStats;
  /** The daemon's own total (submit to done) per proof. */
  total: DurationStats;
  /** Why these differ from wall time. */
  note: string;
}

/** Whether the machine met the threshold. */
export interface Verdict {
  /** `met`: at or above the threshold (or no threshold and proofs completed); `below`: below it; `failed`: could not benchmark. */
  status: "met" | "below" | "failed";
  /** The threshold in proofs/hour, when given. */
  minProofsPerHour?: number;
  /** One sentence explaining the verdict. */
  reason: string;
}

/** Everything a benchmark run found. `schema` changes only with a new version number. */
export interface BenchmarkReport {
  schema: "cuzkit.bench.report/v1";
  startedAt: string;
  finishedAt: string;
  address: string;
  kind: ProofKind;
  /** Timed proofs asked for. */
  count: number;
  concurrency: number;
  warmup: { proofs: number; completed: number; durationMs: number };
  completed: number;
  failed: number;
  /** Completed timed proofs per hour over the timed window (warmup excluded). */
  proofsPerHour: number;
  /** From the first timed submission to the last timed completion, in ms. */
  timedWindowMs: number;
  /** Client wall time per completed timed proof. */
  wallTime: DurationStats;
  daemonTimings: DaemonTimings;
  failures: ProofFailure[];
  /** Times the daemon was seen to restart (uptime reset, NOT_FOUND after a break, or a supervised crash). */
  daemonRestarts: number;
  /** Unexpected exits of a supervised daemon. */
  daemonExits: DaemonExit[];
  /** Input size in bytes. */
  inputBytes: number;
  verdict: Verdict;
}

/** Decides the verdict from the counts and the threshold. */
export function decideVerdict(
  completed: number,
  proofsPerHour: number,
  minProofsPerHour: number | undefined,
  stopReason?: string,
): Verdict {
  const threshold = minProofsPerHour === undefined ? {} : { minProofsPerHour };
  if (stopReason !== undefined) return { status: "failed", ...threshold, reason: stopReason };
  if (completed === 0) return { status: "failed", ...threshold, reason: "no timed proof completed" };
  if (minProofsPerHour === undefined) {
    return { status: "met", reason: `${proofsPerHour.toFixed(1)} proofs/hour; no threshold given` };
  }
  return proofsPerHour >= minProofsPerHour
    ? {
        status: "met",
        ...threshold,
        reason: `${proofsPerHour.toFixed(1)} proofs/hour >= ${minProofsPerHour}`,
      }
    : {
        status: "below",
        ...threshold,
        reason: `${proofsPerHour.toFixed(1)} proofs/hour < ${minProofsPerHour}`,
      };
}

/** The exit code the CLI uses for a verdict: 0 met, 2 below the threshold, 1 could not benchmark. */
export function verdictExitCode(verdict: Verdict): number {
  return verdict.status === "met" ? 0 : verdict.status === "below" ? 2 : 1;
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

function scaleStats(stats: DurationStats, factor: number): DurationStats {
  return {
    count: stats.count,
    p50Ms: stats.p50Ms * factor,
    p95Ms: stats.p95Ms * factor,
    maxMs: stats.maxMs * factor,
    meanMs: stats.meanMs * factor,
  };
}

/**
 * A report of a run against a simulator at `timeScale` (real seconds per simulated second),
 * with every duration and rate converted to the simulated machine's time.
 */
export function toMachineTime(report: BenchmarkReport, timeScale: number): BenchmarkReport {
  const slower = 1 / timeScale;
  const t = report.daemonTimings;
  const proofsPerHour = report.proofsPerHour * timeScale;
  return {
    ...report,
    warmup: { ...report.warmup, durationMs: report.warmup.durationMs * slower },
    proofsPerHour,
    // A threshold is read in the machine's time too.
    verdict:
      report.verdict.status === "failed"
        ? report.verdict
        : decideVerdict(report.completed, proofsPerHour, report.verdict.minProofsPerHour),
    timedWindowMs: report.timedWindowMs * slower,
    wallTime: scaleStats(report.wallTime, slower),
    daemonTimings: {
      ...t,
      queueWait: scaleStats(t.queueWait, slower),
      synthesisSum: scaleStats(t.synthesisSum, slower),
      gpuComputeSum: scaleStats(t.gpuComputeSum, slower),
      total: scaleStats(t.total, slower),
    },
  };
}

/** A human summary of the report, a few lines long. */
export function formatReport(report: BenchmarkReport): string {
  const lines = [
    `${proofKindLabel[report.kind]} benchmark against ${report.address}`,
    `  warmup:      ${report.warmup.completed}/${report.warmup.proofs} proof(s) in ${seconds(report.warmup.durationMs)}`,
    `  timed:       ${report.completed} completed, ${report.failed} failed of ${report.count} (concurrency ${report.concurrency})`,
    `  throughput:  ${report.proofsPerHour.toFixed(1)} proofs/hour over ${seconds(report.timedWindowMs)}`,
    `  wall time:   p50 ${seconds(report.wallTime.p50Ms)}, p95 ${seconds(report.wallTime.p95Ms)}, max ${seconds(report.wallTime.maxMs)}`,
    `  daemon:      queue p50 ${seconds(report.daemonTimings.queueWait.p50Ms)}, synthesis sum p50 ${seconds(report.daemonTimings.synthesisSum.p50Ms)}, GPU sum p50 ${seconds(report.daemonTimings.gpuComputeSum.p50Ms)} (sums over partitions)`,
    `  input:       ${formatBytes(report.inputBytes)} per proof`,
  ];
  if (report.daemonRestarts > 0)
    lines.push(`  restarts:    the daemon restarted ${report.daemonRestarts} time(s)`);
  for (const exit of report.daemonExits) lines.push(`  daemon exit: ${exit.explanation}`);
  // Failures with the same cause (every proof cut by one OOM kill) print once, with a count.
  const groups = new Map<string, { failure: ProofFailure; count: number }>();
  for (const failure of report.failures) {
    const key = `${failure.warmup}|${failure.code}|${failure.message}`;
    const group = groups.get(key);
    if (group) group.count++;
    else groups.set(key, { failure, count: 1 });
  }
  const shown = [...groups.values()].slice(0, 5);
  for (const { failure, count } of shown) {
    const which = failure.warmup ? "(warmup)" : count > 1 ? `x${count}` : `#${failure.index}`;
    lines.push(`  failure ${which}: ${failure.code}: ${failure.message}`);
    if (failure.hint) lines.push(`      hint: ${failure.hint}`);
  }
  if (groups.size > shown.length)
    lines.push(`  ... and ${groups.size - shown.length} more kinds of failure (see --json)`);
  lines.push(`verdict: ${report.verdict.status.toUpperCase()}: ${report.verdict.reason}`);
  return lines.join("\n");
}
