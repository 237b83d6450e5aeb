import type { FastifyReply, FastifyRequest } from "fastify";
import type { FleetManager } from "../manager/fleet-manager.js";
import { managerHealthPath } from "../manager/manager-url.js";
import {
  failureAnswerSchema,
  heartbeatAnswerSchema,
  logsAnswerSchema,
  phaseAnswerSchema,
  registerAnswerSchema,
  reportAnswerSchema,
} from "../protocol/answers.js";
import {
  failureBodySchema,
  finalReportBodySchema,
  heartbeatBodySchema,
  logsBodySchema,
  phaseBodySchema,
  registerBodySchema,
} from "../protocol/requests.js";
import { healthSchema, instanceIdParams } from "./api-schemas.js";
import type { DaemonStatusBoard } from "./daemon-status-board.js";
import { type AgentRoute, registerEconomicsRoutes } from "./economics-routes.js";
import type { LogRequests } from "./log-requests.js";
import {
  bodyRefusals,
  type ErrorStatus,
  errorAnswers,
  type InvalidAnswer,
  jsonAnswer,
  security,
  type ZodApp,
} from "./openapi.js";
import { refuse } from "./server-errors.js";

/** What the agent routes share: the manager, the body limits, the token check, the log bounds. */
export interface AgentRoutesContext {
  manager: FleetManager;
  /** The final report's body limit, bytes. */
  bodyLimit: number;
  /** The small endpoints' body limit, bytes. */
  smallLimit: number;
  /** What /v1/health echoes. */
  nonce: string;
  /** The token check (agent-auth.ts), run before validation. */
  authenticate: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;
  /** Operators' requests for log tails, answered in heartbeats. */
  logRequests: LogRequests;
  /** The secrets removed again from every shipped log line. */
  logSecrets: () => string[];
  /** Whether this instance may ship logs now (log-shipment-rate.ts); counts the shipment. */
  shipmentAllowed: (id: string) => boolean;
  /** The bound shipmentAllowed keeps, for the 429's message. */
  shipmentsPerMinute: number;
  /** Where heartbeats leave the daemon's /status, when the dashboard is served. */
  daemonStatus: DaemonStatusBoard | undefined;
}

/** The agent routes' 400 answer: the body does not match, with its first 10 issues. */
const agentInvalid: InvalidAnswer = {
  error: "INVALID_BODY",
  message: "the body does not match the endpoint's schema",
};

/** What every agent route may refuse with besides its own 409. */
const agentRefusals = {
  ...bodyRefusals,
  401: "No token: send the instance's token as Authorization: Bearer CUZKIT_FLEET_TOKEN (UNAUTHENTICATED)",
  403: "The token is not this instance's; an unknown id answers alike, so ids cannot be probed (FORBIDDEN)",
  404: "The instance is gone from the store (FLEET_INSTANCE_NOT_FOUND)",
  503: "This replica follows (FLEET_NOT_LEADER) or lost the writer lease: nothing changed; retry after Retry-After",
} as const satisfies Partial<Record<ErrorStatus, string>>;

// The token is checked before the body is validated (preValidation), so a caller without it
// learns nothing about the schema; the body was only parsed and size-limited by then.
function agentRoute(
  context: AgentRoutesContext,
  operationId: string,
  summary: string,
  limitBytes: number,
  errors: Partial<Record<ErrorStatus, string>>,
): AgentRoute {
  return {
    options: {
      bodyLimit: limitBytes,
      preValidation: context.authenticate,
      config: { invalid: agentInvalid },
      schema: { operationId, summary, tags: ["agent"], security: security.agent, params: instanceIdParams },
    },
    errors: errorAnswers({ ...agentRefusals, ...errors }),
  };
}

/**
 * The agent endpoints under /v1/agent/:id/ (each needs that instance's token) and /v1/health, in
 * the order the OpenAPI document lists them.
 */
export function agentRoutes(typed: ZodApp, context: AgentRoutesContext): void {
  registerAgentRegister(typed, context);
  registerAgentPhase(typed, context);
  registerAgentHeartbeat(typed, context);
  registerAgentLogs(typed, context);
  registerAgentFailure(typed, context);
  registerAgentReport(typed, context);
  registerEconomicsRoutes(
    typed,
    context.manager,
    agentRoute(
      context,
      "agentThroughput",
      "Proofs an active machine finished in production over a window (kept as host performance)",
      context.smallLimit,
      { 409: "The instance is not active" },
    ),
  );
  registerHealth(typed, context.nonce);
}

function registerAgentRegister(typed: ZodApp, context: AgentRoutesContext): void {
  const r = agentRoute(
    context,
    "agentRegister",
    "booting -> registered: answers the agent's instructions",
    context.smallLimit,
    { 409: "The instance is not booting (it registered already, or is being destroyed)" },
  );
  typed.post(
    "/v1/agent/:id/register",
    {
      ...r.options,
      schema: {
        ...r.options.schema,
        body: registerBodySchema,
        response: { 200: jsonAnswer(registerAnswerSchema), ...r.errors },
      },
    },
    async (request) => ({
      ok: true as const,
      instructions: await context.manager.agent.register(request.params.id, request.body),
    }),
  );
}

function registerAgentPhase(typed: ZodApp, context: AgentRoutesContext): void {
  const r = agentRoute(context, "agentPhase", "The next vetting phase began", context.smallLimit, {
    409: "Not the phase after the instance's current one (a phase already passed is refused)",
  });
  typed.post(
    "/v1/agent/:id/phase",
    {
      ...r.options,
      schema: {
        ...r.options.schema,
        body: phaseBodySchema,
        response: { 200: jsonAnswer(phaseAnswerSchema), ...r.errors },
      },
    },
    async (request) => {
      const record = await context.manager.agent.phase(request.params.id, request.body);
      return { ok: true as const, state: record.state, phaseDeadlineAt: record.phaseDeadlineAt ?? null };
    },
  );
}

function registerAgentHeartbeat(typed: ZodApp, context: AgentRoutesContext): void {
  const r = agentRoute(
    context,
    "agentHeartbeat",
    "The agent is alive; it may forward the daemon's /status (shown on the instance page)",
    context.smallLimit,
    { 409: "The instance is not live: the agent should stop" },
  );
  typed.post(
    "/v1/agent/:id/heartbeat",
    {
      ...r.options,
      schema: {
        ...r.options.schema,
        body: heartbeatBodySchema,
        response: { 200: jsonAnswer(heartbeatAnswerSchema), ...r.errors },
      },
    },
    async (request) => {
      await context.manager.agent.heartbeat(request.params.id);
      if (request.body.daemonStatus !== undefined) {
        context.daemonStatus?.set(request.params.id, request.body.daemonStatus, Date.now());
      }
      // An operator asked for the log tail: this answer carries the request, once.
      return { ok: true as const, sendLogs: context.logRequests.take(request.params.id) };
    },
  );
}

function registerAgentLogs(typed: ZodApp, context: AgentRoutesContext): void {
  const r = agentRoute(
    context,
    "agentLogs",
    "The agent ships its log tail (the daemon's and its own last lines, redacted on the box and again here)",
    context.smallLimit,
    {
      409: "The instance is not live",
      413: "The shipment breaks a bound (lines, bytes or line length): refused whole, nothing kept (FLEET_LOG_TAIL_TOO_LARGE)",
      429: "More log shipments of this instance in a minute than the manager takes (LOG_SHIPMENTS_TOO_FREQUENT): nothing kept; retry after Retry-After",
    },
  );
  typed.post(
    "/v1/agent/:id/logs",
    {
      ...r.options,
      schema: {
        ...r.options.schema,
        body: logsBodySchema,
        response: { 200: jsonAnswer(logsAnswerSchema), ...r.errors },
      },
    },
    async (request, reply) => {
      if (!context.shipmentAllowed(request.params.id)) {
        return refuse(
          reply.header("retry-after", "60"),
          429,
          "LOG_SHIPMENTS_TOO_FREQUENT",
          `more than ${context.shipmentsPerMinute} log shipments of this instance in a minute; nothing was kept`,
        );
      }
      return {
        ok: true as const,
        kept: await context.manager.agent.logs(request.params.id, request.body, context.logSecrets()),
      };
    },
  );
}

function registerAgentFailure(typed: ZodApp, context: AgentRoutesContext): void {
  const r = agentRoute(
    context,
    "agentFailure",
    "A step failed on the machine: the instance fails with its class and is destroyed",
    context.smallLimit,
    { 409: "The instance is neither booting, vetting nor active" },
  );
  typed.post(
    "/v1/agent/:id/failure",
    {
      ...r.options,
      schema: {
        ...r.options.schema,
        body: failureBodySchema,
        response: { 200: jsonAnswer(failureAnswerSchema), ...r.errors },
      },
    },
    async (request) => {
      const record = await context.manager.agent.failure(request.params.id, request.body);
      return { ok: true as const, state: record.state };
    },
  );
}

function registerAgentReport(typed: ZodApp, context: AgentRoutesContext): void {
  const r = agentRoute(
    context,
    "agentReport",
    "The benchmark's outcome with every proof: the claim is checked against its records, then kept or destroyed",
    context.bodyLimit,
    { 409: "The instance is not benchmarking" },
  );
  typed.post(
    "/v1/agent/:id/report",
    {
      ...r.options,
      schema: {
        ...r.options.schema,
        body: finalReportBodySchema,
        response: { 200: jsonAnswer(reportAnswerSchema), ...r.errors },
      },
    },
    async (request) => ({
      ok: true as const,
      ...(await context.manager.agent.report(request.params.id, request.body)),
    }),
  );
}

// The nonce is no secret: it tells a manager that a URL reaches this server, not another.
function registerHealth(typed: ZodApp, nonce: string): void {
  typed.get(
    managerHealthPath,
    {
      schema: {
        operationId: "health",
        summary: "Tells that a URL reaches this manager (renting checks the manager URL with it)",
        tags: ["meta"],
        security: security.open,
        response: { 200: jsonAnswer(healthSchema), ...errorAnswers({}) },
      },
    },
    async () => ({ ok: true as const, nonce }),
  );
}
