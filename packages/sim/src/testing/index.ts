// @cuzkit/sim/testing: test kits around the simulated daemon (not for production use): a
// plain grpc-js client that sends exactly what a test writes, a manual scheduler that moves
// the simulation's time by hand, and a daemon in a child process that can be frozen.

export { simulatedProofBytes } from "../proof-bytes.js";
export { createManualScheduler, type ManualScheduler } from "../scheduler.js";
export {
  createPlainGrpcClient,
  grpcError,
  type PlainCallOptions,
  PlainGrpcCallError,
  type PlainGrpcClient,
  type PlainGrpcClientOptions,
} from "./grpc-test-client.js";
export { type SimProcess, startSimProcess } from "./sim-process.js";
