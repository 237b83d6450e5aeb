import { z } from "zod";
import { type InstanceState, instanceStates } from "../lifecycle.js";

// The manager's answers to the agent (the other half of requests.ts): the routes check their
// output against these schemas, the OpenAPI document is generated from them, and the agent reads
// the types. Answers are loose objects, so a manager may add a field an older agent ignores.

/**
 * An object that lets fields beyond its shape through (a loose object, `additionalProperties`
 * open in the document), typed as its shape so a view's interface satisfies it.
 */
export function openObject<T extends z.ZodRawShape>(shape: T): z.ZodObject<T> {
  return z.looseObject(shape) as unknown as z.ZodObject<T>;
}

/** `{ ok: true }` and whatever the route adds. */
export const okSchema = openObject({ ok: z.literal(true) });

/** What the manager tells a registered agent. */
export interface AgentInstructions {
  instanceId: string;
  minProofsPerHour: number;
  benchmarkProofs: number;
  heartbeatIntervalMs: number;
  dialect: string;
  /**
   * The name the instance's Curio node must run under (its label, curioNodeNameOf): the agent
   * passes it to `--serve-command` as CURIO_NODE_NAME, and the manager finds the node by it.
   * Absent from older managers.
   */
  curioNodeName?: string | undefined;
}

/** What the manager answers a final report: whether to serve, and why. */
export interface ReportAnswer {
  state: InstanceState;
  keep: boolean;
  reason: string;
}

/** An agent's heartbeat answer: whether an operator asked for its log tail (once per request). */
export const heartbeatAnswerSchema = okSchema.extend({
  sendLogs: z
    .boolean()
    .describe("An operator asked for the log tail: ship it now (POST /v1/agent/{id}/logs)"),
});

/** An agent's log shipment, accepted: how many lines the manager kept. */
export const logsAnswerSchema = okSchema.extend({
  kept: z.number().describe("Lines kept (the store keeps the newest lines per instance)"),
});

/** POST /v1/agent/:id/register. */
export const registerAnswerSchema = okSchema.extend({
  instructions: openObject({
    instanceId: z.string(),
    minProofsPerHour: z.number(),
    benchmarkProofs: z.number(),
    heartbeatIntervalMs: z.number(),
    dialect: z.string(),
    curioNodeName: z.string().optional().describe("The name the instance's Curio node must run under"),
  }),
});

/** POST /v1/agent/:id/phase. */
export const phaseAnswerSchema = okSchema.extend({
  state: z.enum(instanceStates),
  phaseDeadlineAt: z.number().nullable().describe("epoch ms"),
});

/** POST /v1/agent/:id/failure. */
export const failureAnswerSchema = okSchema.extend({ state: z.enum(instanceStates) });

/** POST /v1/agent/:id/report: whether the machine is kept, and why. */
export const reportAnswerSchema = okSchema.extend({
  state: z.enum(instanceStates),
  keep: z.boolean(),
  reason: z.string(),
});
