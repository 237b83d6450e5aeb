// @cuzkit/fleet/agent: the agent that runs on each rented machine, alone, so `cuzkit agent`
// starts without loading the manager (its HTTP server, store and dashboard).

export { agentEnvNames, curioNodeNameEnv } from "../protocol/env-names.js";
export { type AgentOptions, type AgentOutcome, type AgentTimers, runAgent } from "./agent.js";
export {
  type AgentPage,
  type AgentPageOptions,
  defaultAgentPageListen,
  startAgentPage,
} from "./agent-page.js";
export {
  createLogShipper,
  createLogTail,
  type LogShipper,
  type LogShipperOptions,
  type LogTail,
  type LogTailOptions,
  type ShipOutcome,
  type ShipReason,
  type TailLine,
  tailingLogger,
} from "./log-tail.js";
export {
  createLineRedactor,
  minSecretChars,
  minSecretPieceChars,
  redactionMarker,
  redactSecrets,
  secretEnvNames,
  secretsFromEnv,
} from "./redact.js";
export {
  AgentManagerUnreachableError,
  type AgentReporter,
  AgentRequestRefusedError,
  createDiskReporter,
  createHttpReporter,
  type DiskReporterOptions,
  type HttpReporterOptions,
} from "./reporter.js";
