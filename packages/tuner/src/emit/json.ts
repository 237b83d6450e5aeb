import type { GpuSpec } from "@cuzkit/core";
import type { Recommendation } from "../recommend.js";
import { curioSection, defaultCurioCuzkAddress } from "./curio.js";
import type { CuzkTomlSections } from "./cuzk-sections.js";
import type { EmitOptions } from "./guard.js";

/** The JSON report of a recommendation (the `--format json` output). */
export interface TuneReport {
  feasible: boolean;
  infeasibleReason?: string | undefined;
  /** True when the config was emitted with force: it fits only with the safety margin waived. */
  forced: boolean;
  dialect: string;
  workload: Recommendation["workload"];
  /** cuzk.toml sections and keys as the daemon names them; null when infeasible and not forced (or not forceable). */
  config: CuzkTomlSections | null;
  bench: { concurrency: number };
  warmup: {
    restart: boolean;
    concurrency: number;
    synthesisParallelism: number;
    partitionWorkers?: number | undefined;
    config: CuzkTomlSections | null;
    peakMemoryBytes: number;
    firstProofSec: number;
    steps: string[];
  };
  predicted: Recommendation["predicted"];
  curio: { Address: string; MaxPending: number; ProveTimeout: string };
  reasons: Recommendation["reasons"];
  warnings: Recommendation["warnings"];
  hardware: {
    ramBytes: number;
    usableRamBytes: number;
    cpuThreads: number;
    hostCpuThreads: number;
    gpus: GpuSpec[];
    /** Where each value came from, when detected. */
    sources?: Record<string, string> | undefined;
  };
}

/** Options of toTuneReport(). */
export interface JsonEmitOptions extends EmitOptions {
  /** Curio's [Cuzk] Address. Default "unix:///run/curio/cuzk.sock". */
  address?: string | undefined;
}

/** Builds the JSON report. Never throws: an infeasible result carries `config: null` unless forced. */
export function toTuneReport(recommendation: Recommendation, options: JsonEmitOptions = {}): TuneReport {
  const showConfig = recommendation.feasible || (options.force === true && recommendation.forceable);
  const hw = recommendation.hardware;
  const w = recommendation.warmup;
  const report: TuneReport = {
    feasible: recommendation.feasible,
    forced: !recommendation.feasible && showConfig,
    dialect: recommendation.dialect,
    workload: recommendation.workload,
    config: showConfig ? recommendation.config : null,
    bench: recommendation.bench,
    warmup: {
      restart: w.restart,
      concurrency: w.concurrency,
      synthesisParallelism: w.synthesisParallelism,
      config: showConfig ? w.config : null,
      peakMemoryBytes: w.peakMemoryBytes,
      firstProofSec: w.firstProofSec,
      steps: w.steps,
    },
    predicted: recommendation.predicted,
    curio: curioSection(recommendation, options.address ?? defaultCurioCuzkAddress),
    reasons: recommendation.reasons,
    warnings: recommendation.warnings,
    hardware: {
      ramBytes: hw.ramBytes,
      usableRamBytes: hw.usableRamBytes,
      cpuThreads: hw.cpuThreads,
      hostCpuThreads: hw.hostCpuThreads ?? hw.cpuThreads,
      gpus: hw.gpus,
    },
  };
  if (recommendation.dialect === "partition-workers") report.warmup.partitionWorkers = w.synthesisParallelism;
  if (recommendation.infeasibleReason !== undefined)
    report.infeasibleReason = recommendation.infeasibleReason;
  const readings = recommendation.hardwareReadings;
  if (readings) {
    report.hardware.sources = Object.fromEntries(
      Object.entries(readings).map(([name, reading]) => [name, reading.source]),
    );
  }
  return report;
}

/** The JSON report as text (2-space indented, newline at the end). Infinite times become null. */
export function emitJson(recommendation: Recommendation, options: JsonEmitOptions = {}): string {
  return `${JSON.stringify(toTuneReport(recommendation, options), null, 2)}\n`;
}
