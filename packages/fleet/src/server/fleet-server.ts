import { randomBytes } from "node:crypto";
import { CuzkitError, InvalidInputError } from "@cuzkit/core";
import Fastify, {
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type preHandlerAsyncHookHandler,
} from "fastify";
import type { z } from "zod";
import {
  FleetCurioNodeError,
  FleetInstanceNotFoundError,
  FleetInstanceNotLiveError,
  FleetLeaseLostError,
  FleetLogTailTooLargeError,
  FleetTransitionError,
} from "../errors.js";
import {
  failureBodySchema,
  finalReportBodySchema,
  heartbeatBodySchema,
  logsBodySchema,
  phaseBodySchema,
  registerBodySchema,
} from "../manager/agent-schemas.js";
import { isInstanceId } from "../manager/config.js";
import type { FleetManager } from "../manager/fleet-manager.js";
import { managerHealthPath } from "../manager/manager-url.js";
import { agentTokenMatches } from "../tokens.js";
import { isLoopbackHost } from "./admin-token.js";
import { type DashboardOptions, dashboardPlugin } from "./dashboard-routes.js";
import { registerEconomicsRoutes } from "./economics-routes.js";
import { hostOfUrl } from "./host-check.js";
import { createLogRequests, type LogRequests } from "./log-requests.js";
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

  app.setErrorHandler((error: Error & { statusCode?: number; code?: string }, _request, reply) => {
    const status = error.statusCode;
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
  const authenticate = async (request: FastifyRequest<{ Params: Params }>, reply: FastifyReply) => {
    const { id } = request.params;
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

  function parse<S extends z.ZodType>(schema: S, body: unknown, reply: FastifyReply): z.infer<S> | undefined {
    const parsed = schema.safeParse(body ?? {});
    if (!parsed.success) {
      void refuse(reply, 400, "INVALID_BODY", "the body does not match the endpoint's schema", {
        issues: parsed.error.issues.slice(0, 10).map((i) => ({ path: i.path.join("."), message: i.message })),
      });
      return undefined;
    }
    return parsed.data;
  }

  const small = { bodyLimit: smallLimit, preHandler: authenticate };

  app.post<{ Params: Params }>("/v1/agent/:id/register", small, async (request, reply) => {
    const body = parse(registerBodySchema, request.body, reply);
    if (body === undefined) return reply;
    return { ok: true, instructions: await manager.agent.register(request.params.id, body) };
  });
  app.post<{ Params: Params }>("/v1/agent/:id/phase", small, async (request, reply) => {
    const body = parse(phaseBodySchema, request.body, reply);
    if (body === undefined) return reply;
    const record = await manager.agent.phase(request.params.id, body);
    return { ok: true, state: record.state, phaseDeadlineAt: record.phaseDeadlineAt ?? null };
  });
  app.post<{ Params: Params }>("/v1/agent/:id/heartbeat", small, async (request, reply) => {
    const body = parse(heartbeatBodySchema, request.body, reply);
    if (body === undefined) return reply;
    await manager.agent.heartbeat(request.params.id);
    if (body.daemonStatus !== undefined) {
      options.dashboard?.daemonStatus?.set(request.params.id, body.daemonStatus, Date.now());
    }
    // An operator asked for the log tail: this answer carries the request, once.
    return { ok: true, sendLogs: logRequests.take(request.params.id) };
  });
  app.post<{ Params: Params }>("/v1/agent/:id/logs", small, async (request, reply) => {
    const body = parse(logsBodySchema, request.body, reply);
    if (body === undefined) return reply;
    if (!shipmentAllowed(request.params.id)) {
      return refuse(
        reply.header("retry-after", "60"),
        429,
        "LOG_SHIPMENTS_TOO_FREQUENT",
        `more than ${shipmentsPerMinute} log shipments of this instance in a minute; nothing was kept`,
      );
    }
    return { ok: true, kept: await manager.agent.logs(request.params.id, body, logSecrets()) };
  });
  app.post<{ Params: Params }>("/v1/agent/:id/failure", small, async (request, reply) => {
    const body = parse(failureBodySchema, request.body, reply);
    if (body === undefined) return reply;
    const record = await manager.agent.failure(request.params.id, body);
    return { ok: true, state: record.state };
  });
  app.post<{ Params: Params }>(
    "/v1/agent/:id/report",
    { bodyLimit, preHandler: authenticate },
    async (request, reply) => {
      const body = parse(finalReportBodySchema, request.body, reply);
      if (body === undefined) return reply;
      return { ok: true, ...(await manager.agent.report(request.params.id, body)) };
    },
  );
  registerEconomicsRoutes(app, manager, {
    authenticate: authenticate as preHandlerAsyncHookHandler,
    parse,
    smallBodyLimitBytes: smallLimit,
  });
  // The nonce is no secret: it tells a manager that a URL reaches this server, not another.
  app.get(managerHealthPath, async () => ({ ok: true, nonce }));
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

/** Parses `HOST:PORT` (or `[::1]:PORT`); port 0 picks a free one. */
export function parseListen(listen: string): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]+)):(\d{1,5})$/.exec(listen);
  const port = Number(match?.[3]);
  if (!match || port > 65_535) {
    throw new InvalidInputError(`--listen "${listen}" is not HOST:PORT`, {
      hint: "pass --listen 127.0.0.1:7320 (or 0.0.0.0:7320 to let agents on rented machines reach it)",
    });
  }
  return { host: (match[1] ?? match[2]) as string, port };
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
