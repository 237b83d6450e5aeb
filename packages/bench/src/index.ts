// @cuzkit/bench: a benchmark harness whose verdict tells the truth under faults, and daemon supervision.
export { addressAnswers } from "./address-probe.js";
export type { EarlyVerdictOptions } from "./early-verdict.js";
export { type BenchmarkOptions, benchDefaults, type SupervisionOptions } from "./options.js";
export type {
  PhaseDeadlineOptions,
  PhaseEtas,
  PhaseModelInput,
  TimedPhase,
} from "./phase-deadlines.js";
export {
  type BenchmarkEvent,
  createProgressOutput,
  type ProgressOutput,
  type ProgressOutputOptions,
  type ProgressSnapshot,
} from "./progress.js";
export { cyclesFromIntervals, proofsPerHourFromIntervals, type RateBasis } from "./proof-rate.js";
export type { FailureClass, ProofOutcome, ProofRecord } from "./records.js";
export {
  type BenchmarkReport,
  type DaemonTimings,
  formatReport,
  type PhaseRecord,
  type ProofFailure,
  toMachineTime,
} from "./report.js";
export { runBenchmark } from "./run-benchmark.js";
export type { DurationStats } from "./stats.js";
export type {
  BenchPhase,
  BenchStatusFile,
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
  type EarlyVerdictInfo,
  type Verdict,
  type VerdictInput,
  type VerdictStatus,
  verdictExitCode,
  verdictExitCodes,
  verdictStatuses,
} from "./verdict.js";
export type { Unresponsive } from "./watchdog.js";
