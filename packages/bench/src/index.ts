// @cuzkit/bench: a benchmark harness whose verdict tells the truth under faults, and daemon supervision.
export { addressAnswers } from "./address-probe.js";
export {
  createEarlyVerdictTest,
  type EarlyVerdictOptions,
  type EarlyVerdictTest,
  resolveEarlyVerdictOptions,
} from "./early-verdict.js";
export {
  type BenchmarkOptions,
  type ResolvedBenchmarkOptions,
  resolveBenchmarkOptions,
  type SupervisionOptions,
} from "./options.js";
export {
  modelledPceWriteSec,
  modelPhaseEtas,
  type PhaseDeadlineOptions,
  type PhaseEtas,
  type PhaseModelInput,
  phaseDeadlines,
  type TimedPhase,
} from "./phase-deadlines.js";
export {
  type BenchmarkEvent,
  createProgressOutput,
  formatProgressLine,
  type ProgressOutput,
  type ProgressOutputOptions,
  type ProgressSnapshot,
} from "./progress.js";
export { classifyFailure, type FailureClass, type ProofOutcome, type ProofRecord } from "./records.js";
export {
  type BenchmarkReport,
  type DaemonTimings,
  formatReport,
  type PhaseRecord,
  type ProofFailure,
  toMachineTime,
} from "./report.js";
export { runBenchmark } from "./run-benchmark.js";
export { type DurationStats, percentile, proofsPerHour, summarizeDurations } from "./stats.js";
export {
  type BenchPhase,
  type BenchStatusFile,
  createStatusFileWriter,
  type StatusFileWriter,
} from "./status-file.js";
export {
  createDaemonSupervisor,
  type DaemonExit,
  DaemonStartError,
  type DaemonSupervisor,
  type DaemonSupervisorOptions,
  explainExit,
  type ReadyStatus,
} from "./supervisor.js";
export {
  decideVerdict,
  type EarlyVerdictInfo,
  type Verdict,
  type VerdictInput,
  type VerdictStatus,
  verdictExitCode,
  verdictExitCodes,
  verdictStatuses,
} from "./verdict.js";
export { startWatchdog, type Unresponsive, type Watchdog, type WatchdogOptions } from "./watchdog.js";
