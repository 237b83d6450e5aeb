// @cuzkit/bench: a benchmark harness that always produces a verdict, and daemon supervision.
export { type BenchmarkOptions, resolveBenchmarkOptions, type SupervisionOptions } from "./options.js";
export {
  type BenchmarkEvent,
  createProgressOutput,
  formatProgressLine,
  type ProgressOutput,
  type ProgressOutputOptions,
  type ProgressSnapshot,
} from "./progress.js";
export {
  type BenchmarkReport,
  type DaemonTimings,
  decideVerdict,
  formatReport,
  type ProofFailure,
  toMachineTime,
  type Verdict,
  verdictExitCode,
} from "./report.js";
export { runBenchmark } from "./run-benchmark.js";
export { type DurationStats, percentile, proofsPerHour, summarizeDurations } from "./stats.js";
export {
  createDaemonSupervisor,
  type DaemonExit,
  DaemonStartError,
  type DaemonSupervisor,
  type DaemonSupervisorOptions,
} from "./supervisor.js";
