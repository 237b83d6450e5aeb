// @cuzkit/tuner: sizes the cuzk daemon to the machine. recommend() searches the core model
// for the fastest config that stays under the usable RAM; detectHardware() reads the machine
// (container limits included); the emitters write cuzk.toml, shell exports, JSON and Curio's
// [Cuzk] section; checkConfig() reviews an existing cuzk.toml.

export { type CheckResult, type ConfigChange, checkConfig, type PhaseCheck } from "./check.js";
export { detectHardware } from "./detect/detect-hardware.js";
export { parseMemTotal } from "./detect/meminfo.js";
export { parseNvidiaSmiCsv } from "./detect/nvidia-smi.js";
export type { CommandResult, DetectOptions } from "./detect/system.js";
export type {
  DetectedHardware,
  HardwareReadings,
  Reading,
} from "./detect/types.js";
export { formatCheckText } from "./emit/check-text.js";
export { type CurioEmitOptions, curioSection, defaultCurioCuzkAddress, emitCurio } from "./emit/curio.js";
export { emitEnv, envVariables } from "./emit/env.js";
export type { EmitOptions } from "./emit/guard.js";
export { emitJson, type JsonEmitOptions, type TuneReport, toTuneReport } from "./emit/json.js";
export { emitText } from "./emit/text.js";
export { emitCuzkToml, type TomlEmitOptions } from "./emit/toml.js";
export { type UnsafeConfigDetails, UnsafeConfigError } from "./errors.js";
export type { Reason } from "./explain.js";
export { minSafeVramBytes, type TunerWarning } from "./hardware-warnings.js";
export {
  safetyMarginBytes,
  type TuneOptions,
  tuneDefaults,
  type WorkloadKinds,
} from "./options.js";
export {
  type CurioSettings,
  type Prediction,
  type Recommendation,
  type RecommendOptions,
  recommend,
  type ThroughputCalibration,
} from "./recommend.js";
export type { WarmupPlan } from "./warmup.js";
