// @cuzkit/sim: a simulated cuzk daemon (grpc-js server) driven by the core model, with fault
// injection, for tests, demos and benchmarks.
export {
  type C1Wrapper,
  createSyntheticC1,
  defaultSyntheticC1Bytes,
  parseC1Wrapper,
  type SyntheticC1Options,
  sectorBytesOfRegisteredProof,
} from "./c1-wrapper.js";
export { C1ParseError, SimListenError } from "./errors.js";
export { provingEngineClientDefinition } from "./grpc-service.js";
export { dialAddress, type ListenAddress, parseListenAddress } from "./listen-address.js";
export {
  defaultInjectedFailureMessage,
  defaultSimConfig,
  defaultSimHardware,
  defaultSimListen,
  defaultTimeScale,
  type ResolvedSimFaults,
  type ResolvedSimOptions,
  resolveSimOptions,
  type SimDaemonOptions,
  type SimFaults,
} from "./options.js";
export { simulatedProofBytes } from "./proof-bytes.js";
export {
  createManualScheduler,
  type ManualScheduler,
  realScheduler,
  type SimScheduler,
} from "./scheduler.js";
export {
  type SimCrashDetail,
  type SimCrashReason,
  type SimDaemon,
  type SimRestartOptions,
  type SimState,
  type SimStats,
  startSimDaemon,
} from "./sim-daemon.js";
export type { StatusJson } from "./status-views.js";
export {
  createPlainGrpcClient,
  grpcError,
  type PlainCallOptions,
  PlainGrpcCallError,
  type PlainGrpcClient,
  type PlainGrpcClientOptions,
} from "./testing/grpc-test-client.js";
