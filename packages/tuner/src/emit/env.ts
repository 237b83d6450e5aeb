import { formatBytes } from "@cuzkit/core";
import type { Recommendation } from "../recommend.js";
import { assertEmittable, type EmitOptions, forcedNotice } from "./guard.js";
import { shellQuote } from "./shell.js";

/** The variables for the image's scripts, name to value (strings as they will be exported). */
export function envVariables(recommendation: Recommendation): [string, string][] {
  const c = recommendation.daemonConfig;
  const vars: [string, string][] = [["CUZK_DIALECT", recommendation.dialect]];
  if (recommendation.dialect === "partition-workers") {
    vars.push(["CUZK_PARTITION_WORKERS", String(c.partitionWorkers)]);
  } else {
    vars.push(["CUZK_MAX_PARALLEL_SYNTHESIS", String(c.maxParallelSynthesis)]);
    const budget = recommendation.config.memory?.total_budget;
    if (budget !== undefined) vars.push(["CUZK_TOTAL_BUDGET", String(budget)]);
  }
  vars.push(
    ["CUZK_GPU_WORKERS_PER_DEVICE", String(c.gpuWorkersPerDevice)],
    ["CUZK_GPU_THREADS", String(c.gpuThreads)],
    ["CUZK_SYNTHESIS_THREADS", String(c.synthesisThreads)],
    ["CUZK_SYNTHESIS_CONCURRENCY", String(c.synthesisConcurrency)],
    ["CUZK_MAX_BATCH_SIZE", String(c.maxBatchSize)],
    ["CUZK_BENCH_CONCURRENCY", String(recommendation.bench.concurrency)],
    ["CUZK_WARMUP_RESTART", recommendation.warmup.restart ? "1" : "0"],
  );
  if (recommendation.dialect === "partition-workers") {
    vars.push(["CUZK_WARMUP_PARTITION_WORKERS", String(recommendation.warmup.synthesisParallelism)]);
  }
  return vars;
}

/**
 * `export NAME='value'` lines for the image's scripts (benchmark.sh, run.sh). Throws
 * UnsafeConfigError when infeasible unless `force`.
 */
export function emitEnv(recommendation: Recommendation, options: EmitOptions = {}): string {
  assertEmittable(recommendation, options);
  const p = recommendation.predicted;
  const lines = [
    `# cuzkit tune: ${recommendation.dialect} daemon, workload ${recommendation.workload.name}; predicted ${p.proofsPerHour.toFixed(1)} proofs/hour, ` +
      `peak ${formatBytes(p.peakMemoryBytes)} of ${formatBytes(p.allowedPeakBytes)} allowed`,
  ];
  const forced = forcedNotice(recommendation);
  if (forced) lines.unshift(`# ${forced}`);
  for (const [name, value] of envVariables(recommendation)) lines.push(`export ${name}=${shellQuote(value)}`);
  return `${lines.join("\n")}\n`;
}
