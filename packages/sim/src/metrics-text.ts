import { type ProofKind, proofKindMetricLabel, proofKinds } from "@cuzkit/core";
import type { ProofCounters } from "./counters.js";

/** What GetMetrics reports. */
export interface MetricsInput {
  counters: ProofCounters;
  uptimeSeconds: number;
  queueDepth: number;
  runningJobs: number;
  gpuWorkers: number;
}

/**
 * The Prometheus text of GetMetrics, with the daemon's metric names and types: totals
 * (counter), uptime and queue depth (gauge), per-kind counters without a _total suffix, a
 * duration summary over the last 1000 completions (no quantiles; only when it has samples),
 * running jobs and GPU workers (gauge).
 */
export function formatMetricsText(input: MetricsInput): string {
  const { counters } = input;
  const lines: string[] = [];
  const metric = (name: string, type: string, help: string, samples: string[]) => {
    lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`, ...samples);
  };
  const label = (kind: ProofKind) => `{proof_kind="${proofKindMetricLabel[kind]}"}`;
  metric("cuzk_proofs_completed_total", "counter", "Total proofs completed", [
    `cuzk_proofs_completed_total ${counters.completed}`,
  ]);
  metric("cuzk_proofs_failed_total", "counter", "Total proofs failed", [
    `cuzk_proofs_failed_total ${counters.failed}`,
  ]);
  metric("cuzk_uptime_seconds", "gauge", "Daemon uptime in seconds", [
    `cuzk_uptime_seconds ${Math.floor(input.uptimeSeconds)}`,
  ]);
  metric("cuzk_queue_depth", "gauge", "Proofs waiting in the scheduler", [
    `cuzk_queue_depth ${input.queueDepth}`,
  ]);
  metric(
    "cuzk_proofs_completed",
    "counter",
    "Proofs completed by kind",
    proofKinds.map((kind) => `cuzk_proofs_completed${label(kind)} ${counters.completedByKind[kind]}`),
  );
  metric(
    "cuzk_proofs_failed",
    "counter",
    "Proofs failed by kind",
    proofKinds.map((kind) => `cuzk_proofs_failed${label(kind)} ${counters.failedByKind[kind]}`),
  );
  if (counters.recentDurations.length > 0) {
    const samples: string[] = [];
    for (const kind of proofKinds) {
      const durations = counters.recentDurations.filter((d) => d.kind === kind);
      if (durations.length === 0) continue;
      const sum = durations.reduce((total, d) => total + d.seconds, 0);
      samples.push(`cuzk_proof_duration_seconds_count${label(kind)} ${durations.length}`);
      samples.push(`cuzk_proof_duration_seconds_sum${label(kind)} ${sum.toFixed(3)}`);
    }
    metric(
      "cuzk_proof_duration_seconds",
      "summary",
      "Proof duration from submit to completion (last 1000 proofs)",
      samples,
    );
  }
  metric("cuzk_running_jobs", "gauge", "GPU workers with a current job", [
    `cuzk_running_jobs ${input.runningJobs}`,
  ]);
  metric("cuzk_gpu_workers", "gauge", "GPU workers", [`cuzk_gpu_workers ${input.gpuWorkers}`]);
  return `${lines.join("\n")}\n`;
}
