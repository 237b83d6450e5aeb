import { formatBytes, type ProofKind, proofKindLabel } from "@cuzkit/core";
import type { RateBasis } from "./proof-rate.js";
import type { ProofRecord } from "./records.js";
import type { DurationStats } from "./stats.js";
import type { BenchPhase } from "./status-file.js";
import type { DaemonExit } from "./supervisor.js";
import { decideVerdict, type Verdict } from "./verdict.js";

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

/** One phase of the run. Times are ms since the run started. */
export interface PhaseRecord {
  phase: BenchPhase;
  startMs: number;
  endMs: number;
  /** The model's ETA, when known. */
  etaMs?: number | undefined;
  /** The deadline it ran under, when it had one. */
  deadlineMs?: number | undefined;
}

/** Everything a benchmark run found. `schema` changes only with a new version number. */
export interface BenchmarkReport {
  schema: "cuzkit.bench.report/v2";
  startedAt: string;
  finishedAt: string;
  address: string;
  kind: ProofKind;
  /** Timed proofs asked for. */
  count: number;
  concurrency: number;
  warmup: { proofs: number; completed: number; durationMs: number };
  /** Timed proofs completed. */
  completed: number;
  /** Timed proofs that failed (the daemon failed, lost or never finished them). */
  failed: number;
  /** Timed proofs still in flight when the run ended early (an early verdict or an interruption). */
  abandoned: number;
  /** Timed proofs never sent because the run ended early. */
  notStarted: number;
  /**
   * What this machine sustains, in completed timed proofs per hour: slots x completions per
   * slot-hour over the proofs in `rateBasis` (each worker's time from its first timed submit to
   * its last completion). The verdict, early or not, is decided on this figure.
   */
  proofsPerHour: number;
  /** The completed proofs `proofsPerHour` covers, the slots they ran on and the slot time they took. */
  rateBasis: RateBasis;
  /** From the first timed submit to the last timed settle (completion or failure), in ms. */
  timedWindowMs: number;
  /** Client wall time per completed timed proof (`count` is the number of samples). */
  wallTime: DurationStats;
  daemonTimings: DaemonTimings;
  failures: ProofFailure[];
  /** Every proof sent (warmup included), in the order they settled. */
  records: ProofRecord[];
  /** Restarts after a crash or freeze (by the benchmark, or seen by the client); the planned warmup restart is not one. */
  daemonRestarts: number;
  /** Unexpected exits and kills of a frozen daemon (supervised), or deaths and freezes seen (unsupervised). */
  daemonCrashes: number;
  /** Unexpected exits of a supervised daemon, with their last log lines. */
  daemonExits: DaemonExit[];
  /** The phases as they ran. */
  phases: PhaseRecord[];
  /** Why the run ended before the batch did, when it did (a signal, a death, an early verdict). */
  stopCause?: string | undefined;
  /** Things worth knowing that did not change the verdict. */
  notes: string[];
  /** The config benchmarked, when the benchmark started the daemon. */
  config?: { path?: string | undefined; toml: string; warmupToml?: string | undefined } | undefined;
  /** Input size in bytes. */
  inputBytes: number;
  verdict: Verdict;
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
 * with every duration, time, rate and the threshold converted to the simulated machine's time
 * (the verdict's status does not change; its numbers do).
 */
export function toMachineTime(report: BenchmarkReport, timeScale: number): BenchmarkReport {
  const slower = 1 / timeScale;
  const t = report.daemonTimings;
  const proofsPerHour = report.proofsPerHour * timeScale;
  const v = report.verdict;
  const rejudge = v.status === "MET" || v.status === "BELOW";
  return {
    ...report,
    warmup: { ...report.warmup, durationMs: report.warmup.durationMs * slower },
    proofsPerHour,
    verdict: rejudge
      ? decideVerdict({
          completed: report.completed,
          proofsPerHour,
          minProofsPerHour: v.minProofsPerHour === undefined ? undefined : v.minProofsPerHour * timeScale,
          incidents: [],
          couldNotBenchmark: undefined,
          early: v.early
            ? {
                above: v.status === "MET",
                info: {
                  ...v.early,
                  proofsPerHour: v.early.proofsPerHour * timeScale,
                  boundProofsPerHour: v.early.boundProofsPerHour * timeScale,
                },
              }
            : undefined,
        })
      : {
          ...v,
          minProofsPerHour: v.minProofsPerHour === undefined ? undefined : v.minProofsPerHour * timeScale,
          reason: v.reason.replace(/[\d.]+ proofs\/hour/, `${proofsPerHour.toFixed(1)} proofs/hour`),
        },
    rateBasis: { ...report.rateBasis, slotTimeMs: report.rateBasis.slotTimeMs * slower },
    timedWindowMs: report.timedWindowMs * slower,
    wallTime: scaleStats(report.wallTime, slower),
    daemonTimings: {
      ...t,
      queueWait: scaleStats(t.queueWait, slower),
      synthesisSum: scaleStats(t.synthesisSum, slower),
      gpuComputeSum: scaleStats(t.gpuComputeSum, slower),
      total: scaleStats(t.total, slower),
    },
    records: report.records.map((r) => ({
      ...r,
      submitMs: r.submitMs * slower,
      settleMs: r.settleMs * slower,
      cycleMs: r.cycleMs === undefined ? undefined : r.cycleMs * slower,
      timings: r.timings && {
        queueWaitMs: r.timings.queueWaitMs * slower,
        synthesisMs: r.timings.synthesisMs * slower,
        gpuComputeMs: r.timings.gpuComputeMs * slower,
        totalMs: r.timings.totalMs * slower,
      },
    })),
    phases: report.phases.map((p) => ({
      ...p,
      startMs: p.startMs * slower,
      endMs: p.endMs * slower,
      etaMs: p.etaMs === undefined ? undefined : p.etaMs * slower,
      deadlineMs: p.deadlineMs === undefined ? undefined : p.deadlineMs * slower,
    })),
  };
}

/** Lines of a daemon's log tail shown in the text report. */
const logLinesShown = 8;

/** A human summary of the report, a few lines long; `timeLabel` names the clock (e.g. "machine time"). */
export function formatReport(
  report: BenchmarkReport,
  options: { timeLabel?: string | undefined } = {},
): string {
  const label = options.timeLabel ? ` (${options.timeLabel})` : "";
  const w = report.wallTime;
  const lines = [
    `${proofKindLabel[report.kind]} benchmark against ${report.address}${label}`,
    `  warmup:      ${report.warmup.completed}/${report.warmup.proofs} proof(s) in ${seconds(report.warmup.durationMs)}`,
    `  timed:       ${report.completed} completed, ${report.failed} failed${report.abandoned > 0 ? `, ${report.abandoned} abandoned` : ""}${report.notStarted > 0 ? `, ${report.notStarted} not started` : ""} of ${report.count} (concurrency ${report.concurrency})`,
    `  throughput:  ${report.proofsPerHour.toFixed(1)} proofs/hour over ${report.rateBasis.proofs} completed proof(s) on ${report.rateBasis.slots} slot(s) (${seconds(report.rateBasis.slotTimeMs)} of slot time); timed window ${seconds(report.timedWindowMs)}`,
    w.count > 0
      ? `  wall time:   p50 ${seconds(w.p50Ms)}, p95 ${seconds(w.p95Ms)}, max ${seconds(w.maxMs)} (${w.count} sample${w.count === 1 ? "" : "s"})`
      : "  wall time:   no completed timed proof",
    `  daemon:      queue p50 ${seconds(report.daemonTimings.queueWait.p50Ms)}, synthesis sum p50 ${seconds(report.daemonTimings.synthesisSum.p50Ms)}, GPU sum p50 ${seconds(report.daemonTimings.gpuComputeSum.p50Ms)} (sums over partitions)`,
    `  input:       ${formatBytes(report.inputBytes)} per proof`,
  ];
  if (report.config?.path) lines.push(`  config:      ${report.config.path}`);
  if (report.daemonCrashes > 0 || report.daemonRestarts > 0)
    lines.push(
      `  daemon:      ${report.daemonCrashes} crash(es), ${report.daemonRestarts} restart(s) after a crash`,
    );
  for (const exit of report.daemonExits) {
    lines.push(`  daemon exit: ${exit.explanation}`);
    const shown = exit.logTail.slice(-logLinesShown);
    if (shown.length > 0) {
      lines.push(`      its last ${shown.length} log line(s):`);
      for (const line of shown) lines.push(`        | ${line}`);
    }
  }
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
  for (const note of report.notes) lines.push(`  note:        ${note}`);
  if (report.stopCause) lines.push(`  stopped:     ${report.stopCause}`);
  for (const incident of report.verdict.incidents.slice(1)) lines.push(`  also:        ${incident}`);
  lines.push(`verdict: ${report.verdict.status}: ${report.verdict.reason}`);
  return lines.join("\n");
}
