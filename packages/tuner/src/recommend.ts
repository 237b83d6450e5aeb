import {
  assertDaemonListen,
  type DaemonConfig,
  type DaemonDialect,
  type DaemonModel,
  type DaemonPhase,
  formatBytes,
  GiB,
  type HardwareSpec,
  InvalidInputError,
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
import { type SearchOutcome, searchDaemonConfig, type TimedEvaluation } from "./search.js";
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
  /** Steady-state proofs per hour (0 without a GPU, and 0 when nothing fits at all), times the calibration factor when one is given. */
  proofsPerHour: number;
  /** The model's own proofs/hour, before any calibration. */
  modelProofsPerHour: number;
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
  /** Proofs in flight the memory is sized for: Curio's MaxPending. */
  sizedForProofs: number;
  /** Where the prediction goes beyond what was measured (also in the reasons); empty on the measured box. */
  extrapolations: string[];
  /** The calibration applied, when given. */
  calibration?: ThroughputCalibration | undefined;
}

/** The `[Cuzk]` settings of Curio's own config for this daemon. */
export interface CurioSettings {
  /** MaxPending: Curio's one limiter shared by every cuzk task type: the tuned concurrency plus the PoSt slots. */
  maxPending: number;
  /** Slots of MaxPending beyond the PoRep concurrency, left for WindowPoSt and WinningPoSt. */
  postSlots: number;
  /** ProveTimeout in seconds: the modelled worst case times the factor, whole minutes, never below the minimum (30 min by default). */
  proveTimeoutSec: number;
}

/** A measured correction of the model for a class of hardware (from benchmarks of machines like this one). */
export interface ThroughputCalibration {
  /** Measured proofs/hour over modelled proofs/hour for this hardware class; multiplies the prediction. */
  proofsPerHourFactor: number;
  /** How many benchmark runs the factor comes from (at least 1). */
  samples: number;
  /** Where the factor comes from, for the reasons (for example "fleet: 2x RTX 3090, 251 GB"). Default "calibration". */
  source?: string | undefined;
}

/** The tuner's answer for one machine. */
export interface Recommendation {
  /** False when no config fits with the safety margin. */
  feasible: boolean;
  /**
   * True when feasible, or when a config still fits the usable RAM with the margin waived:
   * `config` then holds that one, which the emitters write only with force. False: nothing
   * fits at all, `config` holds the smallest one, and the emitters refuse even with force.
   */
  forceable: boolean;
  /** Why nothing fits, when feasible is false. */
  infeasibleReason?: string | undefined;
  /** The daemon that reads the config. */
  dialect: DaemonDialect;
  /** The workload: preset name, modelled kind and resident kinds. */
  workload: { name: string; kind: string; alsoResident: readonly string[] };
  /** The machine as modelled. */
  hardware: HardwareSpec;
  /** Each hardware value with its source, when it was detected. */
  hardwareReadings?: HardwareReadings | undefined;
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
  /** daemon.listen to write into cuzk.toml; checked as the daemon parses it (a literal IP:port or unix:// path). Default: not written (the daemon listens on unix:///run/curio/cuzk.sock). */
  listen?: string | undefined;
  /** A measured correction of the predicted proofs/hour for this hardware class. Default none. */
  calibration?: ThroughputCalibration | undefined;
}

function curioSettings(
  timing: TimingEstimate,
  concurrency: number,
  options: ResolvedTuneOptions,
): CurioSettings {
  const worst = timing.worstCaseProofSec;
  const fromModel = Number.isFinite(worst) ? Math.ceil((worst * options.proveTimeoutFactor) / 60) * 60 : 0;
  return {
    maxPending: concurrency + options.postSlots,
    postSlots: options.postSlots,
    proveTimeoutSec: Math.max(Math.ceil(options.minProveTimeoutSec / 60) * 60, fromModel),
  };
}

function validateCalibration(calibration: ThroughputCalibration | undefined): void {
  if (calibration === undefined) return;
  const { proofsPerHourFactor: factor, samples } = calibration;
  if (!Number.isFinite(factor) || factor <= 0) {
    throw new InvalidInputError(`the calibration factor must be a positive number, got ${factor}`, {
      hint: "give measured proofs/hour over modelled proofs/hour, such as 0.85",
    });
  }
  if (!Number.isInteger(samples) || samples < 1) {
    throw new InvalidInputError(`the calibration needs at least 1 sample, got ${samples}`, {
      hint: "give the number of benchmark runs the factor comes from",
    });
  }
}

function validateHardware(hw: HardwareSpec): void {
  if (!(hw.usableRamBytes > 0) || !(hw.ramBytes > 0)) {
    throw new InvalidInputError("the machine's RAM must be more than 0 bytes", {
      hint: 'give the RAM, such as "256GiB"',
    });
  }
  if (!Number.isInteger(hw.cpuThreads) || hw.cpuThreads < 1) {
    throw new InvalidInputError(`invalid CPU thread count ${hw.cpuThreads}`, {
      hint: "give a whole number of CPU threads, such as 32",
    });
  }
}

function knobsText(dialect: DaemonDialect, evaluation: TimedEvaluation): string {
  const key = dialect === "budget" ? "max_parallel_synthesis" : "partition_workers";
  return `${key} = ${evaluation.knobs.synthesisParallelism}, ${evaluation.knobs.gpuWorkersPerDevice} GPU worker(s) per device, ${evaluation.knobs.concurrency} proof(s) in flight`;
}

/** Least usable RAM at which a config peaking at `peakBytes` fits with the margin, rounded up to whole GiB. */
export function usableRamNeededBytes(peakBytes: number, options: ResolvedTuneOptions): number {
  const needed = Math.max(
    peakBytes / (1 - options.safetyMarginFraction),
    peakBytes + options.minSafetyMarginBytes,
  );
  return Math.ceil(needed / GiB) * GiB;
}

function infeasibility(
  hw: HardwareSpec,
  options: ResolvedTuneOptions,
  smallest: TimedEvaluation,
  allowedPeakBytes: number,
): { reason: string; warnings: TunerWarning[] } {
  const label = proofKindLabel[options.workload.kind];
  // A budget too small to hold one partition stalls: size the minimum for the smallest
  // config that runs (its budget no longer the limit).
  const stalled = smallest.memory[smallest.governingPhase].slots.stalled;
  const memory = stalled
    ? modelDaemon(
        hw,
        { ...smallest.config, totalBudgetBytes: Number.MAX_SAFE_INTEGER },
        { ...smallest.workload, concurrency: smallest.knobs.concurrency + options.postSlots },
      ).memory
    : smallest.memory;
  const governing = memory[smallest.governingPhase].peakBytes;
  const phase = memory.warmup.peakBytes > governing ? "warmup" : smallest.governingPhase;
  const peak = Math.max(governing, memory.warmup.peakBytes);
  const needed = usableRamNeededBytes(peak, options);
  const warnings: TunerWarning[] = [];
  let reason =
    `usable RAM below the minimum for ${label} with the ${options.dialect} daemon: it needs at least ${formatBytes(needed)} usable, ` +
    `${formatBytes(hw.usableRamBytes)} is usable (${formatBytes(allowedPeakBytes)} after the margin). ` +
    `Its smallest config (${knobsText(options.dialect, smallest)}) peaks at ${formatBytes(peak)} in the ${phase} phase: ` +
    memoryBreakdown(memory[phase], smallest.knobs.concurrency + options.postSlots);
  if (options.dialect === "budget") {
    reason += "; this daemon always runs at least 2 synthesis workers and re-extracts its PCE at every start";
  }
  const other: DaemonDialect = options.dialect === "budget" ? "partition-workers" : "budget";
  const alternative = searchDaemonConfig(hw, { ...options, dialect: other }).best;
  if (alternative) {
    reason +=
      `. The ${other} daemon would fit (${knobsText(other, alternative)}, peak ${formatBytes(alternative.peakBytes)}` +
      `${other === "partition-workers" ? " after a warmup restart" : ""}): run cuzkit tune --dialect ${other}`;
  } else {
    warnings.push({
      code: "BELOW_MINIMUM",
      message: `${label} needs at least ${formatBytes(needed)} usable RAM with the ${options.dialect} daemon; ${formatBytes(hw.usableRamBytes)} is usable`,
    });
  }
  warnings.push({
    code: "INFEASIBLE",
    message: `no safe config for the ${options.dialect} daemon on this machine (the reason is above)`,
  });
  return { reason, warnings };
}

/** The model's figures for the chosen config: memory sized for `maxPending` proofs, throughput scaled by `factor` (0 for a config that cannot run). */
function predictedFigures(
  hw: HardwareSpec,
  outcome: SearchOutcome,
  model: DaemonModel,
  sized: DaemonModel,
  maxPending: number,
  extrapolations: string[],
  forceable: boolean,
  factor: number,
): Recommendation["predicted"] {
  return {
    peakMemoryBytes: sized.peakBytes,
    governingPhase: sized.governingPhase,
    phasePeakBytes: {
      warmup: sized.memory.warmup.peakBytes,
      "cold-start": sized.memory["cold-start"].peakBytes,
      steady: sized.memory.steady.peakBytes,
    },
    usableRamBytes: hw.usableRamBytes,
    safetyMarginBytes: outcome.marginBytes,
    allowedPeakBytes: outcome.allowedPeakBytes,
    headroomBytes: sized.headroomBytes,
    proofsPerHour: model.timing.proofsPerHour * factor,
    modelProofsPerHour: forceable ? model.timing.proofsPerHour : 0,
    secPerProof: factor > 0 ? model.timing.secPerProof / factor : Number.POSITIVE_INFINITY,
    singleProofSec: model.timing.singleProofSec,
    proofLatencySec: model.timing.proofLatencySec,
    firstProofSec: model.timing.firstProofSec,
    worstCaseProofSec: model.timing.worstCaseProofSec,
    bottleneck: model.timing.bottleneck,
    synthesizingPartitions: model.memory.steady.synthesizingPartitions,
    limitedBy: sized.memory[sized.governingPhase].slots.limitedBy,
    sizedForProofs: maxPending,
    extrapolations,
  };
}

/** The machine (and its readings, when detected), with the hardware, calibration and listen address checked. */
function checkedInput(
  hardware: HardwareSpec | DetectedHardware,
  options: RecommendOptions,
): { hw: HardwareSpec; readings: HardwareReadings | undefined } {
  const hw = isDetectedHardware(hardware) ? hardware.spec : hardware;
  const readings = isDetectedHardware(hardware) ? hardware.readings : undefined;
  validateHardware(hw);
  validateCalibration(options.calibration);
  if (options.listen !== undefined) assertDaemonListen(options.listen);
  return { hw, readings };
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
  const { hw, readings } = checkedInput(hardware, options);
  const resolved = resolveTuneOptions(options);
  const extras: SectionExtras = { listen: options.listen };
  const outcome = searchDaemonConfig(hw, resolved);
  // When nothing fits with the margin, --force may only write a config that still fits the
  // usable RAM with the margin waived (explicit budget and cap); else it refuses too.
  const noMargin: ResolvedTuneOptions = { ...resolved, safetyMarginFraction: 0, minSafetyMarginBytes: 0 };
  const forcedOutcome = outcome.best ? undefined : searchDaemonConfig(hw, noMargin);
  const used = forcedOutcome?.best ? forcedOutcome : outcome;
  const usedOptions = forcedOutcome?.best ? noMargin : resolved;
  const chosen = outcome.best ?? forcedOutcome?.best ?? outcome.leastMemory;
  const model = modelDaemon(hw, chosen.config, chosen.workload);
  const curio = curioSettings(model.timing, chosen.knobs.concurrency, resolved);
  // Memory is sized for MaxPending proofs in flight (the search does the same).
  const sized = modelDaemon(hw, chosen.config, { ...chosen.workload, concurrency: curio.maxPending });
  const warmup = planWarmup(hw, resolved.dialect, chosen, usedOptions, extras);
  const extrapolations = [...new Set([...sized.extrapolations, ...model.extrapolations])];
  // A config the model expects to be OOM-killed proves nothing: no throughput for it.
  const forceable = outcome.best !== undefined || forcedOutcome?.best !== undefined;
  const factor = forceable ? (options.calibration?.proofsPerHourFactor ?? 1) : 0;
  const warnings = hardwareWarnings(hw, readings);
  let infeasibleReason: string | undefined;
  if (!outcome.best) {
    const found = infeasibility(hw, resolved, outcome.leastMemory, outcome.allowedPeakBytes);
    infeasibleReason = found.reason;
    warnings.unshift(...found.warnings);
  }
  const reasons = explainChoice({
    hw,
    readings,
    options: usedOptions,
    outcome: used,
    chosen,
    model,
    warmup,
    curio,
    extrapolations,
    calibration: options.calibration,
  });
  const recommendation: Recommendation = {
    feasible: outcome.best !== undefined,
    forceable,
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
    predicted: predictedFigures(
      hw,
      outcome,
      model,
      sized,
      curio.maxPending,
      extrapolations,
      forceable,
      factor,
    ),
    curio,
    reasons,
    warnings,
    evaluated: outcome.evaluated,
  };
  if (infeasibleReason !== undefined) recommendation.infeasibleReason = infeasibleReason;
  if (options.calibration) recommendation.predicted.calibration = options.calibration;
  if (readings) recommendation.hardwareReadings = readings;
  return recommendation;
}
