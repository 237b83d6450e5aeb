// @cuzkit/sim: a simulated cuzk daemon (grpc-js server) driven by the core model, with fault
// injection, for tests, demos and benchmarks.
export {
  type C1Wrapper,
  createSyntheticC1,
  defaultSyntheticC1Bytes,
  type SyntheticC1Options,
} from "./c1-wrapper.js";
export { C1ParseError, SimListenError, SimStoppedError } from "./errors.js";
export {
  defaultInjectedFailureMessage,
  defaultSimConfig,
  defaultSimHardware,
  defaultSimListen,
  defaultTimeScale,
  type SimDaemonOptions,
  type SimFaults,
} from "./options.js";
export type { OomDetail } from "./pipeline.js";
export type { ReceivedCallQuery, SimRpcMethod } from "./received-calls.js";
export type { SimScheduler } from "./scheduler.js";
export {
  type SimCrashDetail,
  type SimCrashReason,
  type SimDaemon,
  type SimRestartOptions,
  type SimState,
  type SimStats,
  startSimDaemon,
} from "./sim-daemon.js";
export {
  type SimulatedRun,
  type SimulateProofsOptions,
  simulateProofs,
} from "./simulate-proofs.js";
export type { StatusJson } from "./status-views.js";
