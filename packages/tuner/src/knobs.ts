import {
  type DaemonConfig,
  type DaemonDialect,
  defaultDaemonConfig,
  GiB,
  type HardwareSpec,
} from "@cuzkit/core";
import { type ResolvedTuneOptions, safetyMarginBytes } from "./options.js";

// The discrete settings the tuner searches, and how they become a daemon config.

/** One point of the search space. */
export interface Knobs {
  /** partition_workers (partition-workers dialect) or max_parallel_synthesis (budget dialect). */
  synthesisParallelism: number;
  /** gpus.gpu_workers_per_device. */
  gpuWorkersPerDevice: number;
  /** Proofs in flight (the benchmark's concurrency, Curio's MaxPending). */
  concurrency: number;
}

/** Smallest synthesis parallelism worth trying: the budget daemon never runs fewer than 2 workers. */
export function minSynthesisParallelism(dialect: DaemonDialect): number {
  return dialect === "budget" ? 2 : 1;
}

/** memory.total_budget the tuner writes: usable RAM minus the margin, rounded down to whole GiB. */
export function explicitBudgetBytes(hw: HardwareSpec, options: ResolvedTuneOptions): number {
  const bytes = hw.usableRamBytes - safetyMarginBytes(hw.usableRamBytes, options);
  return Math.max(0, Math.floor(bytes / GiB) * GiB);
}

/** gpus.gpu_threads: the CPUs this container may use, capped (0 would mean every host CPU). */
export function gpuThreadsFor(hw: HardwareSpec, options: ResolvedTuneOptions): number {
  return Math.max(1, Math.min(options.gpuThreadsCap, hw.cpuThreads));
}

/** synthesis.threads: explicit when the container may use fewer CPUs than the host has, else 0 (all). */
export function synthesisThreadsFor(hw: HardwareSpec): number {
  return hw.cpuThreads < (hw.hostCpuThreads ?? hw.cpuThreads) ? hw.cpuThreads : 0;
}

/** The daemon config for `knobs` on `hw`; everything else the tuner does not search is fixed here. */
export function buildDaemonConfig(
  hw: HardwareSpec,
  dialect: DaemonDialect,
  knobs: Knobs,
  options: ResolvedTuneOptions,
): DaemonConfig {
  const base = defaultDaemonConfig(dialect);
  const config: DaemonConfig = {
    ...base,
    gpuWorkersPerDevice: knobs.gpuWorkersPerDevice,
    gpuThreads: gpuThreadsFor(hw, options),
    synthesisThreads: synthesisThreadsFor(hw),
    synthesisConcurrency: 1,
    maxBatchSize: 1,
    pipelineEnabled: true,
  };
  if (dialect === "partition-workers") {
    config.partitionWorkers = knobs.synthesisParallelism;
  } else {
    config.maxParallelSynthesis = knobs.synthesisParallelism;
    config.totalBudgetBytes = explicitBudgetBytes(hw, options);
  }
  return config;
}
