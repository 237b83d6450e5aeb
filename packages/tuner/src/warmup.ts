import {
  type DaemonConfig,
  type DaemonDialect,
  type HardwareSpec,
  modelDaemon,
  partitionsPerProof,
  proofKindLabel,
} from "@cuzkit/core";
import { type CuzkTomlSections, type SectionExtras, toCuzkSections } from "./emit/cuzk-sections.js";
import { buildDaemonConfig } from "./knobs.js";
import type { ResolvedTuneOptions } from "./options.js";
import type { TimedEvaluation } from "./search.js";

/** How to start the daemon the first time, before the timed run. */
export interface WarmupPlan {
  /** True when the daemon must be restarted after the first proof (partition-workers dialect). */
  restart: boolean;
  /** Proofs in flight during the warmup: always 1. */
  concurrency: 1;
  /** partition_workers (or max_parallel_synthesis) of the warmup daemon. */
  synthesisParallelism: number;
  /** The warmup daemon's config as the model sees it. */
  daemonConfig: DaemonConfig;
  /** The warmup daemon's cuzk.toml sections. */
  config: CuzkTomlSections;
  /** Modelled peak of the first, cache-less proof and the PCE extraction after it, in bytes. */
  peakMemoryBytes: number;
  /** Modelled wall time of that first proof, parameter load included, in seconds. */
  firstProofSec: number;
  /** What to do, step by step. */
  steps: string[];
}

/**
 * Plans the first start. The partition-workers daemon loads the PCE from disk once a warmup
 * proof has written it, so the first proof runs alone with at most one proof's partitions and
 * the daemon restarts with the full setting: that keeps the PCE extraction from overlapping
 * the full workload (the fix the incidents found). The budget daemon re-extracts the PCE at
 * every start, so a restart gains nothing: one proof alone first, then the run.
 */
export function planWarmup(
  hw: HardwareSpec,
  dialect: DaemonDialect,
  chosen: TimedEvaluation,
  options: ResolvedTuneOptions,
  extras: SectionExtras = {},
): WarmupPlan {
  const kind = options.workload.kind;
  const label = proofKindLabel[kind];
  const full = chosen.knobs.synthesisParallelism;
  const parallelism = dialect === "partition-workers" ? Math.min(full, partitionsPerProof[kind]) : full;
  const daemonConfig = buildDaemonConfig(
    hw,
    dialect,
    { ...chosen.knobs, synthesisParallelism: parallelism, concurrency: 1 },
    options,
  );
  const model = modelDaemon(hw, daemonConfig, { ...options.workload, concurrency: 1 });
  const firstSec = Math.round(model.timing.firstProofSec);
  const others = options.workload.alsoResident.filter((k) => k !== kind);
  const othersNote =
    others.length > 0
      ? ` The other kinds (${others.join(", ")}) extract their PCE the first time each runs; warm each up the same way if the run includes them.`
      : "";
  const steps =
    dialect === "partition-workers"
      ? [
          `Start the daemon with synthesis.partition_workers = ${parallelism} and no PCE file yet in srs.param_cache.`,
          `Send one ${label} proof alone and wait for it (modelled ${firstSec} s: parameter load and synthesis without a PCE).`,
          "Keep the daemon up until the PCE extraction has written its file (pce-*.bin in srs.param_cache; ~47 s to extract, ~22 s to write).",
          `Restart the daemon with the full config (partition_workers = ${full}); it loads the PCE from disk. Then run at concurrency ${chosen.knobs.concurrency}.${othersNote}`,
        ]
      : [
          "Start the daemon with the config.",
          `Send one ${label} proof alone and wait for it (modelled ${firstSec} s: parameter load and synthesis without a PCE), so the timed run does not measure the start.`,
          "Do not restart: this daemon never loads the PCE from disk and re-extracts it at every start; the config is sized for that cold-start peak.",
          `Run at concurrency ${chosen.knobs.concurrency}.${othersNote}`,
        ];
  return {
    restart: dialect === "partition-workers",
    concurrency: 1,
    synthesisParallelism: parallelism,
    daemonConfig,
    config: toCuzkSections(daemonConfig, dialect, extras),
    peakMemoryBytes: model.memory.warmup.peakBytes,
    firstProofSec: model.timing.firstProofSec,
    steps,
  };
}
