/// <reference path="./types/parse-prometheus-text-format.d.ts" />
import { type ProofKind, proofKindMetricLabel, proofKinds } from "@cuzkit/core";
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { DaemonInternalError } from "./errors.js";

// GetMetrics returns Prometheus text (docs/daemon-facts.md section 1). Parsed here into typed
// values; per-kind series use the daemon's labels porep_c2 | snap_update | window_post |
// winning_post. The duration summary covers only the last <= 1000 completions.

/** A parsed metric family (values stay strings, as "+Inf" or "1.5e3"). Same shape as parse-prometheus-text-format's. */
export interface MetricFamily {
  name: string;
  help: string;
  type: "COUNTER" | "GAUGE" | "SUMMARY" | "HISTOGRAM" | "UNTYPED";
  metrics: (
    | { value: string; labels?: Record<string, string> }
    | { labels?: Record<string, string>; quantiles?: Record<string, string>; count: string; sum: string }
    | { labels?: Record<string, string>; buckets: Record<string, string>; count: string; sum: string }
  )[];
}

/** Per-kind figures from the daemon's metrics; a field is undefined when the daemon did not emit it. */
export interface KindMetrics {
  /** `cuzk_proofs_completed{proof_kind}`. */
  completed: number | undefined;
  /** `cuzk_proofs_failed{proof_kind}`. */
  failed: number | undefined;
  /** `cuzk_proof_duration_seconds_count`: completions in the ring buffer (last <= 1000). */
  durationCount: number | undefined;
  /** `cuzk_proof_duration_seconds_sum` over the same completions, in seconds. */
  durationSumSeconds: number | undefined;
  /** Mean submit-to-completion time over those completions, in seconds. */
  meanDurationSeconds: number | undefined;
}

/** The daemon's metrics, typed. */
export interface DaemonMetrics {
  /** `cuzk_proofs_completed_total`. */
  proofsCompletedTotal: number | undefined;
  /** `cuzk_proofs_failed_total`. */
  proofsFailedTotal: number | undefined;
  /** `cuzk_uptime_seconds`. */
  uptimeSeconds: number | undefined;
  /** `cuzk_queue_depth` (scheduler heap length). */
  queueDepth: number | undefined;
  /** `cuzk_running_jobs` (workers with a current job). */
  runningJobs: number | undefined;
  /** `cuzk_gpu_workers` (GPUs x workers per device). */
  gpuWorkers: number | undefined;
  /** Figures per proof kind (only kinds the daemon reported). */
  byKind: Partial<Record<ProofKind, KindMetrics>>;
  /** Every parsed family, for metrics not listed above. */
  families: MetricFamily[];
  /** The text as received. */
  text: string;
}

const kindByLabel = new Map<string, ProofKind>(proofKinds.map((kind) => [proofKindMetricLabel[kind], kind]));

function num(value: string | undefined): number | undefined {
  if (value === undefined || value.trim() === "") return undefined;
  const n = Number(value);
  return Number.isNaN(n) ? undefined : n;
}

function emptyKind(): KindMetrics {
  return {
    completed: undefined,
    failed: undefined,
    durationCount: undefined,
    durationSumSeconds: undefined,
    meanDurationSeconds: undefined,
  };
}

/** Parses the daemon's Prometheus text into typed values. Throws DaemonInternalError on malformed text. */
export function parseDaemonMetrics(text: string): DaemonMetrics {
  let families: MetricFamily[];
  try {
    families = parsePrometheusTextFormat(text);
  } catch (cause) {
    throw new DaemonInternalError(`cannot parse the daemon's metrics: ${(cause as Error).message}`, {
      rpc: "GetMetrics",
      cause,
      hint: "the daemon returned malformed Prometheus text; check its version",
    });
  }
  const scalar = (name: string): number | undefined => {
    const family = families.find((f) => f.name === name);
    const sample = family?.metrics.find(
      (m) => "value" in m && (m.labels === undefined || Object.keys(m.labels).length === 0),
    );
    return sample && "value" in sample ? num(sample.value) : undefined;
  };
  const byKind: Partial<Record<ProofKind, KindMetrics>> = {};
  const kindEntry = (labels: Record<string, string> | undefined): KindMetrics | undefined => {
    const kind = labels?.proof_kind === undefined ? undefined : kindByLabel.get(labels.proof_kind);
    if (kind === undefined) return undefined;
    byKind[kind] ??= emptyKind();
    return byKind[kind];
  };
  for (const family of families) {
    for (const sample of family.metrics) {
      if (family.name === "cuzk_proofs_completed" && "value" in sample) {
        const entry = kindEntry(sample.labels);
        if (entry) entry.completed = num(sample.value);
      } else if (family.name === "cuzk_proofs_failed" && "value" in sample) {
        const entry = kindEntry(sample.labels);
        if (entry) entry.failed = num(sample.value);
      } else if (family.name === "cuzk_proof_duration_seconds" && "count" in sample) {
        const entry = kindEntry(sample.labels);
        if (entry) {
          entry.durationCount = num(sample.count);
          entry.durationSumSeconds = num(sample.sum);
          entry.meanDurationSeconds =
            entry.durationCount && entry.durationSumSeconds !== undefined
              ? entry.durationSumSeconds / entry.durationCount
              : undefined;
        }
      }
    }
  }
  return {
    proofsCompletedTotal: scalar("cuzk_proofs_completed_total"),
    proofsFailedTotal: scalar("cuzk_proofs_failed_total"),
    uptimeSeconds: scalar("cuzk_uptime_seconds"),
    queueDepth: scalar("cuzk_queue_depth"),
    runningJobs: scalar("cuzk_running_jobs"),
    gpuWorkers: scalar("cuzk_gpu_workers"),
    byKind,
    families,
    text,
  };
}
