// @cuzkit/core: the vocabulary, byte sizes, hardware, errors, logging, cuzk.toml reading and the
// daemon model every other package shares. A named list: only what other packages and users call.
export {
  bytesToGigabytes,
  bytesToMebibytes,
  formatBytes,
  GiB,
  gigabytesToBytes,
  MiB,
  mebibytesToBytes,
  parseByteSize,
  parseCuzkSize,
  parseSizeWithUnit,
  toCuzkSize,
  type UnitRounding,
} from "./bytes.js";
export { type C1Wrapper, inspectC1, readC1Wrapper } from "./c1.js";
export {
  type ConfigFinding,
  cuzkConfigKeys,
  type DaemonConfig,
  type DaemonDialect,
  daemonDialects,
  defaultDaemonConfig,
  incidentDaemonConfig,
  readCuzkConfig,
} from "./daemon-config.js";
export { assertDaemonListen, daemonListenProblem } from "./daemon-listen.js";
export {
  C1InputError,
  type CoreErrorCode,
  CuzkitError,
  type CuzkitErrorOptions,
  InvalidInputError,
  toCuzkitError,
} from "./errors.js";
export { describeHardware, type GpuSpec, type HardwareSpec, hardwareFrom, parseGpuList } from "./hardware.js";
export { createConsoleLogger, type LogFields, type Logger, type LogLevel, silentLogger } from "./logger.js";
export {
  modelConstants,
  partitionScale,
  pceBytes,
  porepMeasuredPeakGiB,
  srsBytes,
  winningPostSec,
} from "./model/constants.js";
export { type DaemonModel, loadsPceFromDisk, modelDaemon } from "./model/daemon-model.js";
export { findGpuModel, gpuCatalog, unknownGpuSpeedFactor } from "./model/gpu-catalog.js";
export {
  effectiveBudgetBytes,
  estimateMemory,
  gpuWorkerCount,
  type MemoryEstimate,
  type SynthesisSlots,
  synthesisSlots,
  workingSetBytes,
} from "./model/memory.js";
export {
  estimateTiming,
  gpuSecPerPartition,
  slowestGpuFactor,
  synthesisSecPerPartition,
  type TimingEstimate,
} from "./model/timing.js";
export { type DaemonPhase, type Workload, type WorkloadPreset, workloadPresets } from "./model/workload.js";
export { seededRandom } from "./random.js";
export { type Resolved, withDefaults } from "./resolved.js";
export { backoffDelayMs, retry } from "./retry.js";
export { type Clock, linkSignals, monotonicClock, realSleep, type Sleep, systemClock } from "./time.js";
export {
  type CircuitId,
  circuitForKind,
  circuitIds,
  curioPriority,
  daemonDefaults,
  daemonMaxMessageBytes,
  grothProofBytes,
  isCircuitId,
  type ProofKind,
  parseProofKind,
  partitionsPerProof,
  proofKindFromWire,
  proofKindLabel,
  proofKindMetricLabel,
  proofKindStatusName,
  proofKinds,
  proofKindWireValue,
  registeredProof32GiB,
  sectorSizeBytes,
} from "./vocabulary.js";
