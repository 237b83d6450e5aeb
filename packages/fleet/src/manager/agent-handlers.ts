import type {
  FailureBody,
  FinalReportBody,
  LogsBody,
  PhaseBody,
  RegisterBody,
  ThroughputBody,
} from "../protocol/requests.js";
import { receiveLogs } from "./agent-logs.js";
import { enterPhase, receiveFailure, receiveHeartbeat, registerAgent } from "./agent-phases.js";
import { receiveReport } from "./agent-report.js";
import { receiveThroughput } from "./agent-throughput.js";
import type { ManagerContext } from "./context.js";

export { checkLogShipment, type LogShipmentBounds } from "./agent-logs.js";

/** The agent's endpoints as plain functions; the HTTP layer authenticates and validates first. */
export function agentHandlers(ctx: ManagerContext) {
  return {
    /** booting -> registered; answers the agent's instructions. */
    register: (id: string, body: RegisterBody) => registerAgent(ctx, id, body),
    /** The next vetting phase began; a report for a phase already passed is refused. */
    phase: (id: string, body: PhaseBody) => enterPhase(ctx, id, body),
    /** A heartbeat; refused when the instance is not live (the agent should stop). */
    heartbeat: (id: string) => receiveHeartbeat(ctx, id),
    /**
     * Lines of the agent's log tail: checked against the bounds (checkLogShipment), redacted again
     * here (the manager's own secrets: `secrets`, and the secret-named variables it gives every
     * machine), and kept as the instance's newest logTailDefaults.storeKeepLines lines. Accepted in
     * any state: a failing machine ships its tail as it fails. Answers how many lines were kept.
     */
    logs: (id: string, body: LogsBody, secrets: readonly string[] = []) =>
      receiveLogs(ctx, id, body, secrets),
    /** A step failed on the machine: failed with its class, destroyed at once. */
    failure: (id: string, body: FailureBody) => receiveFailure(ctx, id, body),
    /**
     * Production throughput of an active machine: checked for plausibility (the model bound),
     * kept as host performance, and the machine's counted rate reviewed. An
     * implausible report is an event, not evidence.
     */
    throughput: (id: string, body: ThroughputBody) => receiveThroughput(ctx, id, body),
    /**
     * The final benchmark report. Its claim is checked against its own proof records and the
     * model (checkBenchmarkClaim), then the keep rule decides on the rate the records support;
     * a refused claim, a rejected or a failed machine is destroyed.
     */
    report: (id: string, body: FinalReportBody) => receiveReport(ctx, id, body),
  };
}

/** The handler set's type. */
export type AgentHandlers = ReturnType<typeof agentHandlers>;
