import {
  type ConfigFinding,
  type DaemonConfig,
  type DaemonDialect,
  type DaemonModel,
  type DaemonPhase,
  formatBytes,
  type HardwareSpec,
  modelDaemon,
  readCuzkConfig,
} from "@cuzkit/core";
import { type DetectedHardware, isDetectedHardware } from "./detect/types.js";
import { type CuzkTomlSections, toCuzkSections } from "./emit/cuzk-sections.js";
import { memoryBreakdown } from "./explain.js";
import { resolveTuneOptions, safetyMarginBytes, type TuneOptions } from "./options.js";
import { type Recommendation, recommend } from "./recommend.js";

/** One phase of the daemon's life, checked against the usable RAM. */
export interface PhaseCheck {
  phase: DaemonPhase;
  /** Modelled peak in bytes. */
  peakBytes: number;
  /** True when the peak exceeds the usable RAM: the model expects an OOM kill. */
  oom: boolean;
  /** True when the peak fits but eats into the safety margin. */
  tight: boolean;
  /** `fatal` phases decide the exit code; `advice` phases only happen if the warmup plan is skipped. */
  severity: "fatal" | "advice";
  /** What the phase is and how its peak adds up. */
  explanation: string;
}

/** One key whose value differs from the recommendation. */
export interface ConfigChange {
  /** `section.key` as in cuzk.toml, or `bench.concurrency`. */
  key: string;
  /** The value the daemon would apply now (defaults included). */
  current: string | number | boolean | undefined;
  /** The tuner's value. */
  recommended: string | number | boolean | undefined;
}

/** What checkConfig() found. */
export interface CheckResult {
  /** True when the model expects no OOM and the daemon reads every value as written. */
  ok: boolean;
  /** 0 when ok, 2 when the config would OOM, stall or has misread or invalid keys. */
  exitCode: 0 | 2;
  /** The daemon the file was checked for: the dialect option, else the current (budget) daemon. */
  dialect: DaemonDialect;
  /** What the daemon will actually run: partitions synthesizing at once, what capped them, and its budget. */
  runs: { synthesizingPartitions: number; limitedBy: string; budgetBytes?: number | undefined };
  /** Proofs in flight the check assumed. */
  concurrency: number;
  /** Where that concurrency came from. */
  concurrencySource: "given" | "tuned" | "default";
  /** The config as the daemon would apply it. */
  config: DaemonConfig;
  /** Keys the daemon ignores, misreads or rejects (core's readCuzkConfig). */
  findings: ConfigFinding[];
  /** Each phase against the usable RAM. */
  phases: PhaseCheck[];
  /** True when a fatal phase exceeds the usable RAM. */
  oom: boolean;
  /** The fatal phase with the highest peak over the usable RAM, when oom. */
  oomPhase?: DaemonPhase | undefined;
  /** Highest fatal-phase peak, in bytes. */
  peakBytes: number;
  /** Usable RAM in bytes. */
  usableRamBytes: number;
  /** Usable RAM minus the safety margin, in bytes. */
  allowedPeakBytes: number;
  /** Why the exit code is 2, one sentence each. */
  problems: string[];
  /** Advice that does not change the exit code. */
  notes: string[];
  /** The model's throughput for the config as it is; absent when the model expects an OOM kill or a stall. */
  predicted?: { proofsPerHour: number; secPerProof: number; bottleneck: string } | undefined;
  /** What the tuner recommends for this machine, dialect and workload. */
  recommendation: Recommendation;
  /** Keys to change to get there (empty when nothing fits). */
  changes: ConfigChange[];
}

const phaseMeaning: Record<DaemonPhase, string> = {
  warmup: "the first, cache-less proof alone after a start (then the PCE extraction)",
  "cold-start": "the full workload right after a start, overlapping the PCE extraction",
  steady: "steady state with the PCE resident",
};

function severities(dialect: DaemonDialect): Record<DaemonPhase, PhaseCheck["severity"]> {
  // The partition-workers daemon reaches steady state through the warmup restart; the cold
  // start only happens if that plan is skipped. The budget daemon always starts cold.
  return dialect === "partition-workers"
    ? { warmup: "fatal", steady: "fatal", "cold-start": "advice" }
    : { warmup: "fatal", "cold-start": "fatal", steady: "fatal" };
}

function diffSections(current: CuzkTomlSections, recommended: CuzkTomlSections): ConfigChange[] {
  const keys = new Set<string>();
  for (const sections of [current, recommended])
    for (const [section, body] of Object.entries(sections))
      for (const key of Object.keys(body)) keys.add(`${section}.${key}`);
  const changes: ConfigChange[] = [];
  for (const key of keys) {
    const [section, name] = key.split(".") as [string, string];
    const now = current[section]?.[name];
    const then = recommended[section]?.[name];
    if (now !== then) changes.push({ key, current: now, recommended: then });
  }
  return changes;
}

/** Each phase's modelled peak against the usable RAM, as the dialect judges it. */
function phaseChecks(
  hw: HardwareSpec,
  model: DaemonModel,
  concurrency: number,
  allowedPeakBytes: number,
  dialect: DaemonDialect,
): PhaseCheck[] {
  const severity = severities(dialect);
  return (["warmup", "cold-start", "steady"] as const).map((phase) => {
    const memory = model.memory[phase];
    const proofs = phase === "warmup" ? 1 : concurrency;
    return {
      phase,
      peakBytes: memory.peakBytes,
      oom: memory.peakBytes > hw.usableRamBytes,
      tight: memory.peakBytes <= hw.usableRamBytes && memory.peakBytes > allowedPeakBytes,
      severity: severity[phase],
      explanation: `${phaseMeaning[phase]}: ${memoryBreakdown(memory, proofs)}`,
    };
  });
}

/** Problems and notes about memory: OOM or tight phases, and a budget that cannot hold one partition. */
function memoryFindings(
  phases: PhaseCheck[],
  model: DaemonModel,
  marginBytes: number,
  usable: string,
  problems: string[],
  notes: string[],
): void {
  for (const phase of phases) {
    const line = `${phase.phase}: modelled peak ${formatBytes(phase.peakBytes)} vs ${usable} usable (${phase.explanation})`;
    if (phase.oom && phase.severity === "fatal") problems.push(`OOM expected in ${line}`);
    else if (phase.oom)
      notes.push(`OOM expected if the warmup restart is skipped, in ${line}; follow the warmup plan`);
    else if (phase.tight) notes.push(`tight: ${line}, inside the ${formatBytes(marginBytes)} safety margin`);
  }
  for (const phase of ["cold-start", "steady"] as const) {
    if (model.memory[phase].slots.stalled) {
      problems.push(
        `the memory budget cannot hold one partition in the ${phase} phase: the daemon waits forever (raise memory.total_budget)`,
      );
      break;
    }
  }
}

/** Problems and notes about the file itself: its dialect, the keys the daemon misreads or ignores, budgets and threads. */
function configFindings(
  read: ReturnType<typeof readCuzkConfig>,
  dialect: DaemonDialect,
  hw: HardwareSpec,
  tuned: Recommendation,
  problems: string[],
  notes: string[],
): void {
  const usable = formatBytes(hw.usableRamBytes);
  if (read.looksWrittenFor !== dialect) {
    notes.push(
      `this file looks written for the ${read.looksWrittenFor} daemon, but was checked as the ${dialect} daemon reads it` +
        (dialect === "budget"
          ? " (it ignores partition_workers and sizes itself from its memory budget)"
          : "") +
        `; if that older daemon runs it, check with --dialect ${read.looksWrittenFor}`,
    );
  }
  for (const finding of read.findings) {
    const line = `${finding.key}: ${finding.message}`;
    if (finding.kind === "misread" || finding.kind === "invalid") problems.push(line);
    else notes.push(`${finding.kind === "unknown" ? "ignored (unknown key)" : "ignored"}: ${line}`);
  }
  if (dialect === "budget" && read.config.totalBudgetBytes === "auto" && hw.usableRamBytes < hw.ramBytes) {
    notes.push(
      `memory.total_budget is "auto": the daemon takes the host's MemTotal (${formatBytes(hw.ramBytes)}), not the container's ${usable}; set it explicitly`,
    );
  }
  if (typeof read.config.totalBudgetBytes === "number" && read.config.totalBudgetBytes > hw.usableRamBytes) {
    notes.push(
      `memory.total_budget (${formatBytes(read.config.totalBudgetBytes)}) is more than the usable ${usable}`,
    );
  }
  const host = hw.hostCpuThreads ?? hw.cpuThreads;
  if (hw.cpuThreads < host && (read.config.synthesisThreads === 0 || read.config.gpuThreads === 0)) {
    notes.push(
      `a thread setting is 0 (all CPUs): the daemon would size it for the host's ${host} threads while this container may use ${hw.cpuThreads}`,
    );
  }
  if (read.config.maxBatchSize > 1) {
    notes.push(
      "scheduler.max_batch_size > 1: a PoRep batch reserves 136 GiB flat (~360 GiB measured for 2 sectors)",
    );
  }
  if (!tuned.feasible)
    notes.push(`no safe config exists here for this dialect: ${tuned.infeasibleReason ?? ""}`);
}

/**
 * Reads an existing cuzk.toml as the daemon of `options.dialect` would (default: the current
 * budget daemon; the file's keys never pick the daemon) and checks it against the machine: whether
 * the model expects an OOM kill (which phase, peak vs usable RAM), which keys the daemon
 * ignores, misreads (sizes that become 50 GiB) or rejects, and what to change. Throws
 * InvalidInputError only when the text is not TOML.
 */
export function checkConfig(
  hardware: HardwareSpec | DetectedHardware,
  tomlText: string,
  options: TuneOptions = {},
): CheckResult {
  const hw = isDetectedHardware(hardware) ? hardware.spec : hardware;
  const dialect: DaemonDialect = options.dialect ?? "budget";
  const read = readCuzkConfig(tomlText, dialect);
  const tuned = recommend(hardware, { ...options, dialect });
  const resolved = resolveTuneOptions({ ...options, dialect });
  const concurrency = options.concurrency ?? (tuned.feasible ? tuned.bench.concurrency : 1);
  const concurrencySource =
    options.concurrency !== undefined ? "given" : tuned.feasible ? "tuned" : "default";
  const model = modelDaemon(hw, read.config, { ...resolved.workload, concurrency });
  const allowedPeakBytes = hw.usableRamBytes - safetyMarginBytes(hw.usableRamBytes, resolved);
  const phases = phaseChecks(hw, model, concurrency, allowedPeakBytes, dialect);
  const fatal = phases.filter((p) => p.severity === "fatal");
  const worst = fatal.reduce((a, b) => (b.peakBytes > a.peakBytes ? b : a));
  const problems: string[] = [];
  const notes: string[] = [];
  const usable = formatBytes(hw.usableRamBytes);

  memoryFindings(phases, model, hw.usableRamBytes - allowedPeakBytes, usable, problems, notes);
  configFindings(read, dialect, hw, tuned, problems, notes);

  const changes = tuned.feasible ? diffSections(toCuzkSections(read.config, dialect), tuned.config) : [];
  if (tuned.feasible && concurrency !== tuned.bench.concurrency) {
    changes.push({ key: "bench.concurrency", current: concurrency, recommended: tuned.bench.concurrency });
  }
  const oom = fatal.some((p) => p.oom);
  const exitCode = problems.length > 0 ? 2 : 0;
  const governing = model.memory[model.governingPhase].slots;
  const runs: CheckResult["runs"] = {
    synthesizingPartitions: governing.partitions,
    limitedBy: governing.limitedBy,
    budgetBytes: governing.budgetBytes,
  };
  const stalled = model.memory["cold-start"].slots.stalled || model.memory.steady.slots.stalled;
  const result: CheckResult = {
    ok: exitCode === 0,
    exitCode,
    dialect,
    concurrency,
    concurrencySource,
    config: read.config,
    findings: read.findings,
    phases,
    oom,
    peakBytes: worst.peakBytes,
    usableRamBytes: hw.usableRamBytes,
    allowedPeakBytes,
    runs,
    problems,
    notes,
    recommendation: tuned,
    changes,
  };
  if (!oom && !stalled) {
    result.predicted = {
      proofsPerHour: model.timing.proofsPerHour,
      secPerProof: model.timing.secPerProof,
      bottleneck: model.timing.bottleneck,
    };
  }
  if (oom)
    result.oomPhase = fatal.filter((p) => p.oom).reduce((a, b) => (b.peakBytes > a.peakBytes ? b : a)).phase;
  return result;
}
