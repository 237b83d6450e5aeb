import {
  type DaemonConfig,
  type DaemonDialect,
  type DaemonPhase,
  formatBytes,
  type HardwareSpec,
  InvalidInputError,
  minimumRamBytes,
  modelDaemon,
  proofKindLabel,
  type SynthesisSlots,
  type TimingEstimate,
} from "@cuzkit/core";
import { type DetectedHardware, type HardwareReadings, isDetectedHardware } from "./detect/types.js";
import { type CuzkTomlSections, type SectionExtras, toCuzkSections } from "./emit/cuzk-sections.js";
import { explainChoice, memoryBreakdown, type Reason } from "./explain.js";
import { hardwareWarnings, type TunerWarning } from "./hardware-warnings.js";
import { type ResolvedTuneOptions, resolveTuneOptions, type TuneOptions } from "./options.js";
import { searchDaemonConfig, type TimedEvaluation } from "./search.js";
import { planWarmup, type WarmupPlan } from "./warmup.js";

/** What the model predicts for the recommended config. */
export interface Prediction {
  /** Peak of the governing phase, in bytes. */
  peakMemoryBytes: number;
  /** The phase whose peak bounds the config: `steady` (partition-workers, after the warmup restart) or `cold-start` (budget). */
  governingPhase: DaemonPhase;
  /** Peak of each phase, in bytes (warmup: the first proof alone with the full setting). */
  phasePeakBytes: Record<DaemonPhase, number>;
  /** RAM this container may use, in bytes. */
  usableRamBytes: number;
  /** Bytes kept free, in bytes. */
  safetyMarginBytes: number;
  /** usableRamBytes minus safetyMarginBytes. */
  allowedPeakBytes: number;
  /** usableRamBytes minus peakMemoryBytes. */
  headroomBytes: number;
  /** Steady-state proofs per hour (0 without a GPU). */
  proofsPerHour: number;
  /** Steady-state seconds between completed proofs. */
  secPerProof: number;
  /** Wall time of one proof alone on a warm daemon, in seconds. */
  singleProofSec: number;
  /** Wall time of each proof at the tuned concurrency, in seconds. */
  proofLatencySec: number;
  /** Wall time of the first proof after a start (parameter load, no PCE), in seconds. */
  firstProofSec: number;
  /** Worst wall time any proof sees (the last of the first batch after a cold start), in seconds. */
  worstCaseProofSec: number;
  /** What limits throughput. */
  bottleneck: TimingEstimate["bottleneck"];
  /** Partitions synthesizing at once at steady state. */
  synthesizingPartitions: number;
  /** What capped them. */
  limitedBy: SynthesisSlots["limitedBy"];
}

/** The `[Cuzk]` settings of Curio's own config for this daemon. */
export interface CurioSettings {
  /** MaxPending: proofs Curio keeps in flight, the tuned concurrency. */
  maxPending: number;
  /** ProveTimeout in seconds: the modelled worst case times the factor, whole minutes, at least 10 min. */
  proveTimeoutSec: number;
}

/** The tuner's answer for one machine. */
export interface Recommendation {
  /** False when no config fits; `config` then holds the smallest one, which the emitters refuse without force. */
  feasible: boolean;
  /** Why nothing fits, when feasible is false. */
  infeasibleReason?: string;
  /** The daemon that reads the config. */
  dialect: DaemonDialect;
  /** The workload: preset name, modelled kind and resident kinds. */
  workload: { name: string; kind: string; alsoResident: readonly string[] };
  /** The machine as modelled. */
  hardware: HardwareSpec;
  /** Each hardware value with its source, when it was detected. */
  hardwareReadings?: HardwareReadings;
  /** The config as the model sees it. */
  daemonConfig: DaemonConfig;
  /** cuzk.toml sections, keys named as the daemon reads them (only keys this dialect reads). */
  config: CuzkTomlSections;
  /** Benchmark settings. */
  bench: { concurrency: number };
  /** How to start the daemon the first time. */
  warmup: WarmupPlan;
  /** What the model predicts. */
  predicted: Prediction;
  /** Curio's [Cuzk] settings. */
  curio: CurioSettings;
  /** Why each setting has its value. */
  reasons: Reason[];
  /** What to know before trusting it. */
  warnings: TunerWarning[];
  /** Model evaluations the search made. */
  evaluated: { memory: number; timing: number };
}

/** Options of recommend() beyond the tuning options. */
export interface RecommendOptions extends TuneOptions {
  /** daemon.listen to write into cuzk.toml. Default: not written (the daemon listens on unix:///run/curio/cuzk.sock). */
  listen?: string;
}

const minProveTimeoutSec = 600;
const curioDefaultProveTimeoutSec = 1800;

function curioSettings(
  timing: TimingEstimate,
  concurrency: number,
  options: ResolvedTuneOptions,
): CurioSettings {
  const worst = timing.worstCaseProofSec;
  const proveTimeoutSec = Number.isFinite(worst)
    ? Math.max(minProveTimeoutSec, Math.ceil((worst * options.proveTimeoutFactor) / 60) * 60)
    : curioDefaultProveTimeoutSec;
  return { maxPending: concurrency, proveTimeoutSec };
}

function validateHardware(hw: HardwareSpec): void {
  if (!(hw.usableRamBytes > 0) || !(hw.ramBytes > 0)) {
    throw new InvalidInputError(
      "the machine's RAM must be more than 0 bytes",
      'give the RAM, such as "256GiB"',
    );
  }
  if (!Number.isInteger(hw.cpuThreads) || hw.cpuThreads < 1) {
    throw new InvalidInputError(
      `invalid CPU thread count ${hw.cpuThreads}`,
      "give a whole number of CPU threads, such as 32",
    );
  }
}

function knobsText(dialect: DaemonDialect, evaluation: TimedEvaluation): string {
  const key = dialect === "budget" ? "max_parallel_synthesis" : "partition_workers";
  return `${key} = ${evaluation.knobs.synthesisParallelism}, ${evaluation.knobs.gpuWorkersPerDevice} GPU worker(s) per device, ${evaluation.knobs.concurrency} proof(s) in flight`;
}

function infeasibility(
  hw: HardwareSpec,
  options: ResolvedTuneOptions,
  smallest: TimedEvaluation,
  allowedPeakBytes: number,
): { reason: string; warnings: TunerWarning[] } {
  const label = proofKindLabel[options.workload.kind];
  const minimum = minimumRamBytes({ ...options.workload, concurrency: 1 });
  const warnings: TunerWarning[] = [];
  let reason: string;
  if (allowedPeakBytes < minimum) {
    reason =
      `usable RAM below the minimum for ${label}: ${formatBytes(hw.usableRamBytes)} usable minus the safety margin leaves ` +
      `${formatBytes(allowedPeakBytes)}, while one proof with one partition needs ${formatBytes(minimum)} ` +
      "(parameters and PCE of every resident kind plus one partition)";
    warnings.push({ code: "BELOW_MINIMUM", message: reason });
  } else {
    const phase = smallest.governingPhase;
    reason =
      `the smallest ${options.dialect} config (${knobsText(options.dialect, smallest)}) peaks at ` +
      `${formatBytes(smallest.peakBytes)} in the ${phase} phase (${memoryBreakdown(smallest.memory[phase], smallest.knobs.concurrency)}), ` +
      `over the ${formatBytes(allowedPeakBytes)} allowed`;
    if (options.dialect === "budget") {
      reason +=
        "; this daemon always runs at least 2 synthesis workers and re-extracts its PCE at every start";
    }
    const other: DaemonDialect = options.dialect === "budget" ? "partition-workers" : "budget";
    const alternative = searchDaemonConfig(hw, { ...options, dialect: other }).best;
    if (alternative) {
      reason +=
        `. The ${other} daemon would fit (${knobsText(other, alternative)}, peak ${formatBytes(alternative.peakBytes)}` +
        `${other === "partition-workers" ? " after a warmup restart" : ""}): run cuzkit tune --dialect ${other}`;
    }
  }
  warnings.push({ code: "INFEASIBLE", message: `no safe config: ${reason}` });
  return { reason, warnings };
}

/**
 * Sizes the daemon to the machine: searches synthesis parallelism, GPU workers per device and
 * concurrency for the highest modelled throughput whose modelled peak (the dialect's governing
 * phase, and the warmup) stays under the usable RAM minus the safety margin; among equal
 * throughput, the least memory. Never throws for a machine that is too small: it returns
 * `feasible: false` with the reason. Throws InvalidInputError for impossible input.
 */
export function recommend(
  hardware: HardwareSpec | DetectedHardware,
  options: RecommendOptions = {},
): Recommendation {
  const hw = isDetectedHardware(hardware) ? hardware.spec : hardware;
  const readings = isDetectedHardware(hardware) ? hardware.readings : undefined;
  validateHardware(hw);
  const resolved = resolveTuneOptions(options);
  const extras: SectionExtras = options.listen === undefined ? {} : { listen: options.listen };
  const outcome = searchDaemonConfig(hw, resolved);
  const chosen = outcome.best ?? outcome.leastMemory;
  const model = modelDaemon(hw, chosen.config, chosen.workload);
  const warmup = planWarmup(hw, resolved.dialect, chosen, resolved, extras);
  const curio = curioSettings(model.timing, chosen.knobs.concurrency, resolved);
  const warnings = hardwareWarnings(hw, readings);
  let infeasibleReason: string | undefined;
  if (!outcome.best) {
    const found = infeasibility(hw, resolved, chosen, outcome.allowedPeakBytes);
    infeasibleReason = found.reason;
    warnings.unshift(...found.warnings);
  }
  const reasons = explainChoice({ hw, readings, options: resolved, outcome, chosen, model, warmup, curio });
  const steady = model.memory.steady;
  const recommendation: Recommendation = {
    feasible: outcome.best !== undefined,
    dialect: resolved.dialect,
    workload: {
      name: resolved.workloadName,
      kind: resolved.workload.kind,
      alsoResident: resolved.workload.alsoResident,
    },
    hardware: hw,
    daemonConfig: chosen.config,
    config: toCuzkSections(chosen.config, resolved.dialect, extras),
    bench: { concurrency: chosen.knobs.concurrency },
    warmup,
    predicted: {
      peakMemoryBytes: model.peakBytes,
      governingPhase: model.governingPhase,
      phasePeakBytes: {
        warmup: model.memory.warmup.peakBytes,
        "cold-start": model.memory["cold-start"].peakBytes,
        steady: steady.peakBytes,
      },
      usableRamBytes: hw.usableRamBytes,
      safetyMarginBytes: outcome.marginBytes,
      allowedPeakBytes: outcome.allowedPeakBytes,
      headroomBytes: model.headroomBytes,
      proofsPerHour: model.timing.proofsPerHour,
      secPerProof: model.timing.secPerProof,
      singleProofSec: model.timing.singleProofSec,
      proofLatencySec: model.timing.proofLatencySec,
      firstProofSec: model.timing.firstProofSec,
      worstCaseProofSec: model.timing.worstCaseProofSec,
      bottleneck: model.timing.bottleneck,
      synthesizingPartitions: steady.synthesizingPartitions,
      limitedBy: model.memory[model.governingPhase].slots.limitedBy,
    },
    curio,
    reasons,
    warnings,
    evaluated: outcome.evaluated,
  };
  if (infeasibleReason !== undefined) recommendation.infeasibleReason = infeasibleReason;
  if (readings) recommendation.hardwareReadings = readings;
  return recommendation;
}
