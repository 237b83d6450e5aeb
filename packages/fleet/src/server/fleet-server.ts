// shape-exception: the server's app, hooks and agent routes
import { randomBytes } from "node:crypto";
import { CuzkitError } from "@cuzkit/core";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import {
  FleetCurioNodeError,
  FleetInstanceNotFoundError,
  FleetInstanceNotLiveError,
  FleetLeaseLostError,
  FleetLogTailTooLargeError,
  FleetTransitionError,
} from "../errors.js";
import { isInstanceId } from "../manager/config.js";
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
import { agentTokenMatches } from "../tokens.js";
import { isLoopbackHost } from "./admin-token.js";
import { healthSchema, instanceIdParams } from "./api-schemas.js";
import { type DashboardOptions, dashboardPlugin } from "./dashboard-routes.js";
import { type AgentRoute, registerEconomicsRoutes } from "./economics-routes.js";
import { hostOfUrl } from "./host-check.js";
import { parseListen } from "./listen.js";
import { createLogRequests, type LogRequests } from "./log-requests.js";
import {
  bodyRefusals,
  type ErrorStatus,
  errorAnswers,
  type InvalidAnswer,
  invalidAnswerBody,
  jsonAnswer,
  registerOpenApi,
  security,
  type ZodApp,
} from "./openapi.js";
import { type FleetServerTimeouts, fastifyTimeoutOptions } from "./server-limits.js";

/** Options of the manager's HTTP server. */
export interface FleetServerOptions {
  /** The manager whose agent endpoints it serves. Required. */
  manager: FleetManager;
  /** The largest body accepted (the final report), bytes. Default 1 MiB. */
  bodyLimitBytes?: number | undefined;
  /** The largest body of the small endpoints (register, phase, heartbeat, failure), bytes. Default 64 KiB. */
  smallBodyLimitBytes?: number | undefined;
  /** The dashboard, admin API, /metrics and /openapi.json (dashboard-routes.ts). Default: not served. */
  dashboard?: Omit<DashboardOptions, "manager"> | undefined;
  /**
   * Whether this manager acts (holds the fleet's writer lease). While false, every write (agent
   * reports and heartbeats, dashboard actions) answers 503 FLEET_NOT_LEADER with Retry-After,
   * changing nothing, and reads are served. Default: always true (tests without a lease).
   */
  isLeader?: (() => boolean) | undefined;
  /** Header, request, keep-alive and idle timeouts (server-limits.ts). Default: fleetServerTimeoutDefaults. */
  timeouts?: FleetServerTimeouts | undefined;
  /**
   * Whether an answer that does not match its documented schema fails with 500 rather than being
   * sent as the route made it. Default false (a serving manager); the test fleets set it, so a
   * route and its document cannot drift apart unnoticed.
   */
  strictAnswers?: boolean | undefined;
  /** What /v1/health echoes, so renting can check a manager URL reaches this server. Default: random per server. */
  nonce?: string | undefined;
  /**
   * Secret values removed again from every log line an agent ships and every line the dashboard
   * serves (the Vast API key, the admin token is always added). Default: none besides those.
   */
  logSecrets?: (() => readonly string[]) | undefined;
  /** Operators' requests for log tails, answered in heartbeats. Default: a new set (log-requests.ts). */
  logRequests?: LogRequests | undefined;
  /**
   * Log shipments accepted per instance in any minute; beyond, 429 LOG_SHIPMENTS_TOO_FREQUENT and
   * nothing kept (an agent ships at most one per 30 s, besides its failure). Default 12.
   */
  logShipmentsPerMinute?: number | undefined;
  /** Now, epoch ms, for the log-shipment rate. Default Date.now. */
  now?: (() => number) | undefined;
}

/** Where a running server listens. */
export interface ListeningFleetServer {
  app: FastifyInstance;
  /** Base URL, such as http://127.0.0.1:7320. */
  url: string;
  /** The nonce its /v1/health answers with. */
  nonce: string;
  close(): Promise<void>;
}

/** The manager's default listen address: loopback only; `--listen 0.0.0.0:7320` exposes it to agents. */
export const defaultFleetListen = "127.0.0.1:7320";

type Params = { id: string };

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

/** An error as Fastify hands it to the error handler: a schema failure carries `validation`. */
type FastifyRouteError = Error & {
  statusCode?: number;
  code?: string;
  validation?: { instancePath?: string; message?: string }[];
};

/** A 4xx answer with a stable code; nothing was changed. */
function refuse(reply: FastifyReply, status: number, code: string, message: string, extra: object = {}) {
  return reply.code(status).send({ ok: false, error: code, message, ...extra });
}

function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== "string") return undefined;
  const match = /^Bearer ([A-Za-z0-9_-]{16,128})$/.exec(header);
  return match?.[1];
}

/**
 * Builds the Fastify app with the agent endpoints under /v1/agent/:id/. Each request must
 * carry that instance's token (`Authorization: Bearer ...`); bodies are size-limited and
 * schema-checked before anything is read. Refusals are 4xx with `{ ok: false, error }` and
 * change nothing. The Fastify logger is off: headers carry tokens.
 */
// shape-exception: one Fastify app: hooks, error handler and routes share the app and its options
export function buildFleetServer(options: FleetServerOptions): FastifyInstance {
  const { manager } = options;
  const bodyLimit = options.bodyLimitBytes ?? 1024 * 1024;
  const smallLimit = options.smallBodyLimitBytes ?? 64 * 1024;
  const nonce = options.nonce ?? randomBytes(16).toString("hex");
  const logRequests = options.logRequests ?? createLogRequests();
  const now = options.now ?? Date.now;
  const shipmentsPerMinute = options.logShipmentsPerMinute ?? 12;
  /** The times of each instance's accepted shipments in the last minute (instances seen lately only). */
  const recentShipments = new Map<string, number[]>();
  const shipmentAllowed = (id: string): boolean => {
    const at = now();
    for (const [other, times] of recentShipments) {
      const kept = times.filter((t) => at - t < 60_000);
      if (kept.length === 0) recentShipments.delete(other);
      else recentShipments.set(other, kept);
    }
    const times = recentShipments.get(id) ?? [];
    if (times.length >= shipmentsPerMinute) return false;
    recentShipments.set(id, [...times, at]);
    return true;
  };
  const logSecrets = () => [
    ...(options.logSecrets?.() ?? []),
    ...(options.dashboard === undefined ? [] : [options.dashboard.adminToken]),
  ];
  const app = Fastify({
    logger: false,
    bodyLimit,
    return503OnClosing: true,
    ...fastifyTimeoutOptions(options.timeouts),
  });

  registerOpenApi(app, { strictAnswers: options.strictAnswers });

  app.setErrorHandler((error: FastifyRouteError, request, reply) => {
    const status = error.statusCode;
    if (error.validation !== undefined && status === 400) {
      // The route's params, query or body do not match its schema: its own code and message.
      return reply.code(400).send(invalidAnswerBody(request.routeOptions.config.invalid, error.validation));
    }
    if (status !== undefined && status >= 400 && status < 500) {
      // Fastify's own refusals: malformed JSON (400), too large (413), wrong content type (415).
      return refuse(reply, status, error.code ?? "BAD_REQUEST", error.message);
    }
    // A Curio node that cannot be told apart: the destroy is refused, nothing cordoned; the hint says what to fix.
    if (
      error instanceof FleetTransitionError ||
      error instanceof FleetInstanceNotLiveError ||
      error instanceof FleetCurioNodeError
    ) {
      return refuse(reply, 409, error.code, error.message, { hint: error.hint });
    }
    if (error instanceof FleetInstanceNotFoundError) return refuse(reply, 404, error.code, error.message);
    // A log shipment beyond the bounds: refused whole, nothing kept.
    if (error instanceof FleetLogTailTooLargeError) {
      return refuse(reply, 413, error.code, error.message, { hint: error.hint, bound: error.bound });
    }
    if (error instanceof FleetLeaseLostError) {
      // This manager lost the writer lease mid-request: nothing was written; the caller retries
      // and reaches the manager that holds it (or this one once it leads again).
      reply.header("retry-after", "5");
      return refuse(reply, 503, error.code, error.message, { hint: error.hint });
    }
    const code = CuzkitError.is(error) ? error.code : "INTERNAL";
    return reply
      .code(500)
      .send({ ok: false, error: code, message: "the manager failed to handle the request" });
  });

  const isLeader = options.isLeader;
  if (isLeader !== undefined) {
    app.addHook("onRequest", async (request, reply) => {
      if (request.method === "GET" || request.method === "HEAD" || isLeader()) return;
      // A follower replica: the leader acts; the caller retries (an agent's next attempt may
      // reach the leader, or this replica once it has taken over).
      return reply.code(503).header("retry-after", "5").send({
        ok: false,
        error: "FLEET_NOT_LEADER",
        message: "this fleet replica is following; another replica acts",
        hint: "send writes to the leading replica (cuzkit fleet status shows the store), or retry",
      });
    });
  }

  /** The token check: only this instance's own token opens its endpoints. */
  const authenticate = async (request: FastifyRequest, reply: FastifyReply) => {
    const { id } = request.params as Params;
    const token = bearerToken(request);
    if (token === undefined) {
      return refuse(
        reply,
        401,
        "UNAUTHENTICATED",
        "send the instance's token as Authorization: Bearer CUZKIT_FLEET_TOKEN",
      );
    }
    const tokenHash = isInstanceId(id) ? await manager.store.tokenHash(id) : undefined;
    // An unknown id and a wrong token answer alike, so ids cannot be probed.
    if (tokenHash === undefined || !agentTokenMatches(token, tokenHash)) {
      return refuse(reply, 403, "FORBIDDEN", "this token is not valid for this instance");
    }
  };

  // The token is checked before the body is validated (preValidation), so a caller without it
  // learns nothing about the schema; the body was only parsed and size-limited by then.
  const agent = (
    operationId: string,
    summary: string,
    limitBytes: number,
    errors: Partial<Record<ErrorStatus, string>>,
  ): AgentRoute => ({
    options: {
      bodyLimit: limitBytes,
      preValidation: authenticate,
      config: { invalid: agentInvalid },
      schema: { operationId, summary, tags: ["agent"], security: security.agent, params: instanceIdParams },
    },
    errors: errorAnswers({ ...agentRefusals, ...errors }),
  });
  // The routes load after @fastify/swagger (a plugin), so it collects every one of them.
  void app.register(async (scope) => agentRoutes(scope.withTypeProvider<ZodTypeProvider>()));
  // shape-exception: the agent's routes, one short handler each, sharing the token check
  function agentRoutes(typed: ZodApp): void {
    {
      const r = agent(
        "agentRegister",
        "booting -> registered: answers the agent's instructions",
        smallLimit,
        {
          409: "The instance is not booting (it registered already, or is being destroyed)",
        },
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
          instructions: await manager.agent.register(request.params.id, request.body),
        }),
      );
    }
    {
      const r = agent("agentPhase", "The next vetting phase began", smallLimit, {
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
          const record = await manager.agent.phase(request.params.id, request.body);
          return { ok: true as const, state: record.state, phaseDeadlineAt: record.phaseDeadlineAt ?? null };
        },
      );
    }
    {
      const r = agent(
        "agentHeartbeat",
        "The agent is alive; it may forward the daemon's /status (shown on the instance page)",
        smallLimit,
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
          await manager.agent.heartbeat(request.params.id);
          if (request.body.daemonStatus !== undefined) {
            options.dashboard?.daemonStatus?.set(request.params.id, request.body.daemonStatus, Date.now());
          }
          // An operator asked for the log tail: this answer carries the request, once.
          return { ok: true as const, sendLogs: logRequests.take(request.params.id) };
        },
      );
    }
    {
      const r = agent(
        "agentLogs",
        "The agent ships its log tail (the daemon's and its own last lines, redacted on the box and again here)",
        smallLimit,
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
          if (!shipmentAllowed(request.params.id)) {
            return refuse(
              reply.header("retry-after", "60"),
              429,
              "LOG_SHIPMENTS_TOO_FREQUENT",
              `more than ${shipmentsPerMinute} log shipments of this instance in a minute; nothing was kept`,
            );
          }
          return {
            ok: true as const,
            kept: await manager.agent.logs(request.params.id, request.body, logSecrets()),
          };
        },
      );
    }
    {
      const r = agent(
        "agentFailure",
        "A step failed on the machine: the instance fails with its class and is destroyed",
        smallLimit,
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
          const record = await manager.agent.failure(request.params.id, request.body);
          return { ok: true as const, state: record.state };
        },
      );
    }
    {
      const r = agent(
        "agentReport",
        "The benchmark's outcome with every proof: the claim is checked against its records, then kept or destroyed",
        bodyLimit,
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
          ...(await manager.agent.report(request.params.id, request.body)),
        }),
      );
    }
    {
      const r = agent(
        "agentThroughput",
        "Proofs an active machine finished in production over a window (kept as host performance)",
        smallLimit,
        { 409: "The instance is not active" },
      );
      registerEconomicsRoutes(typed, manager, r);
    }
    // The nonce is no secret: it tells a manager that a URL reaches this server, not another.
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
  if (options.dashboard !== undefined) {
    const managerHost = hostOfUrl(manager.config.managerUrl);
    const allowedHosts = options.dashboard.allowedHosts ?? (managerHost === undefined ? [] : [managerHost]);
    void app.register(dashboardPlugin, {
      ...options.dashboard,
      allowedHosts,
      manager,
      logRequests,
      logSecrets,
    });
  }
  return app;
}

/** Builds the server and listens; default 127.0.0.1:7320. */
export async function startFleetServer(
  options: FleetServerOptions & { listen?: string | undefined },
): Promise<ListeningFleetServer> {
  const nonce = options.nonce ?? randomBytes(16).toString("hex");
  const { host, port } = parseListen(options.listen ?? defaultFleetListen);
  // Beyond loopback, the dashboard's reads need the admin token too.
  const dashboard =
    options.dashboard === undefined
      ? undefined
      : { ...options.dashboard, readsNeedToken: options.dashboard.readsNeedToken ?? !isLoopbackHost(host) };
  const app = buildFleetServer({ ...options, dashboard, nonce });
  await app.listen({ host, port });
  const address = app.server.address();
  const boundPort = typeof address === "object" && address !== null ? address.port : port;
  const shownHost = host.includes(":") ? `[${host}]` : host;
  return { app, url: `http://${shownHost}:${boundPort}`, nonce, close: () => app.close() };
}
