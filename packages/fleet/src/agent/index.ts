// @cuzkit/fleet/agent: the agent that runs on each rented machine, alone, so `cuzkit agent`
// starts without loading the manager (its HTTP server, store and dashboard).
export { type AgentOptions, type AgentOutcome, type AgentTimers, runAgent } from "./agent.js";
export { agentEnvNames, curioNodeNameEnv } from "./env-names.js";
export {
  AgentManagerUnreachableError,
  type AgentReporter,
  AgentRequestRefusedError,
  createDiskReporter,
  createHttpReporter,
  type DiskReporterOptions,
  type HttpReporterOptions,
} from "./reporter.js";
