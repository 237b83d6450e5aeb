import { curioNodeNameOf } from "../curio/machine-map.js";
import { instanceNotLive, transitionRefused } from "../errors.js";
import { keepMinimumProofsPerHour } from "../keep-rule.js";
import { type VettingState, vettingStates } from "../lifecycle.js";
import type { AgentInstructions } from "../protocol/answers.js";
import type {
  FailureBody,
  FinalReportBody,
  LogsBody,
  PhaseBody,
  RegisterBody,
  ThroughputBody,
} from "../protocol/requests.js";
import type { InstanceRecord } from "../store/records.js";
import { receiveLogs } from "./agent-logs.js";
import { receiveReport } from "./agent-report.js";
import { receiveThroughput } from "./agent-throughput.js";
import type { ManagerContext } from "./context.js";
import { failAndDestroy } from "./destroyer.js";

export { checkLogShipment, type LogShipmentBounds } from "./agent-logs.js";

// The vetting lifecycle's endpoints (register, phase, heartbeat, failure) are here; the logs,
// throughput and final report, each with more to check, have modules of their own.

const previousPhase: Record<Exclude<VettingState, "registered">, VettingState> = {
  params: "registered",
  warmup: "params",
  benchmarking: "warmup",
};

/** booting -> registered; answers the agent's instructions. */
async function registerAgent(
  ctx: ManagerContext,
  id: string,
  body: RegisterBody,
): Promise<AgentInstructions> {
  const { config } = ctx;
  const registered = await ctx.store.transition(id, "booting", "registered", {
    eventType: "registered",
    detail: { agentVersion: body.agentVersion, hardware: body.hardware },
  });
  ctx.checkpoint("agent:registered");
  return {
    instanceId: id,
    // The machine's own floor: with a price ceiling it depends on what this machine costs.
    minProofsPerHour: keepMinimumProofsPerHour(config, registered.offer.dphTotal),
    benchmarkProofs: config.benchmarkProofs,
    heartbeatIntervalMs: config.heartbeatIntervalMs,
    dialect: config.dialect,
    curioNodeName: curioNodeNameOf(registered),
  };
}

/** The next vetting phase began; a report for a phase already passed is refused. */
async function enterPhase(ctx: ManagerContext, id: string, body: PhaseBody): Promise<InstanceRecord> {
  const record = await ctx.store.transition(id, previousPhase[body.phase], body.phase, {
    // Kept as a choice of objects: the store writes every key present (undefined as NULL),
    // so a phase report without a config must not carry the key and clear the saved one.
    changes: body.tunedConfig === undefined ? {} : { tunedConfig: body.tunedConfig },
    eventType: "phase",
    detail: body.detail === undefined ? undefined : { detail: body.detail },
  });
  ctx.checkpoint(`agent:phase-${body.phase}`);
  return record;
}

/** A heartbeat; refused when the instance is not live (the agent should stop). */
async function receiveHeartbeat(ctx: ManagerContext, id: string): Promise<void> {
  if (!(await ctx.store.heartbeat(id))) throw instanceNotLive(id, (await ctx.store.get(id))?.state);
}

/** A step failed on the machine: failed with its class, destroyed at once. */
async function receiveFailure(ctx: ManagerContext, id: string, body: FailureBody): Promise<InstanceRecord> {
  const reason = `${body.phase} failed: ${body.errorClass} (${body.code}): ${body.message}`;
  const record = await failAndDestroy(
    ctx,
    id,
    ["booting", ...vettingStates, "active"],
    reason,
    "agent-failure",
    { phase: body.phase, errorClass: body.errorClass, code: body.code },
  );
  if (record === undefined) {
    throw transitionRefused(id, [...vettingStates, "active"], "failed", (await ctx.store.get(id))?.state);
  }
  return record;
}

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
