import { curioNodeNameOf } from "../curio/machine-map.js";
import { instanceNotLive, transitionRefused } from "../errors.js";
import { keepMinimumProofsPerHour } from "../keep-rule.js";
import { type VettingState, vettingStates } from "../lifecycle.js";
import type { AgentInstructions } from "../protocol/answers.js";
import type { FailureBody, PhaseBody, RegisterBody } from "../protocol/requests.js";
import type { InstanceRecord } from "../store/records.js";
import type { ManagerContext } from "./context.js";
import { failAndDestroy } from "./destroyer.js";

const previousPhase: Record<Exclude<VettingState, "registered">, VettingState> = {
  params: "registered",
  warmup: "params",
  benchmarking: "warmup",
};

/** booting -> registered; answers the agent's instructions. */
export async function registerAgent(
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
export async function enterPhase(ctx: ManagerContext, id: string, body: PhaseBody): Promise<InstanceRecord> {
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
export async function receiveHeartbeat(ctx: ManagerContext, id: string): Promise<void> {
  if (!(await ctx.store.heartbeat(id))) throw instanceNotLive(id, (await ctx.store.get(id))?.state);
}

/** A step failed on the machine: failed with its class, destroyed at once. */
export async function receiveFailure(
  ctx: ManagerContext,
  id: string,
  body: FailureBody,
): Promise<InstanceRecord> {
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
