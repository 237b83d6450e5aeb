import { randomBytes } from "node:crypto";
import Fastify, { type FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import type { FleetManager } from "../manager/fleet-manager.js";
import { isLoopbackHost } from "./admin-token.js";
import { agentAuthenticator } from "./agent-auth.js";
import { type AgentRoutesContext, agentRoutes } from "./agent-routes.js";
import { type DashboardOptions, dashboardPlugin } from "./dashboard-routes.js";
import { hostOfUrl } from "./host-check.js";
import { parseListen } from "./listen.js";
import { createLogRequests, type LogRequests } from "./log-requests.js";
import { createShipmentLimiter } from "./log-shipment-rate.js";
import { registerOpenApi } from "./openapi.js";
import { addLeaderGate, handleRouteError } from "./server-errors.js";
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

/**
 * Builds the Fastify app with the agent endpoints under /v1/agent/:id/. Each request must
 * carry that instance's token (`Authorization: Bearer ...`); bodies are size-limited and
 * schema-checked before anything is read. Refusals are 4xx with `{ ok: false, error }` and
 * change nothing. The Fastify logger is off: headers carry tokens.
 */
export function buildFleetServer(options: FleetServerOptions): FastifyInstance {
  const { manager } = options;
  const bodyLimit = options.bodyLimitBytes ?? 1024 * 1024;
  const logRequests = options.logRequests ?? createLogRequests();
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
  app.setErrorHandler(handleRouteError);
  if (options.isLeader !== undefined) addLeaderGate(app, options.isLeader);

  const shipmentsPerMinute = options.logShipmentsPerMinute ?? 12;
  const agent: AgentRoutesContext = {
    manager,
    bodyLimit,
    smallLimit: options.smallBodyLimitBytes ?? 64 * 1024,
    nonce: options.nonce ?? randomBytes(16).toString("hex"),
    authenticate: agentAuthenticator(manager),
    logRequests,
    logSecrets,
    shipmentAllowed: createShipmentLimiter(options.now ?? Date.now, shipmentsPerMinute),
    shipmentsPerMinute,
    daemonStatus: options.dashboard?.daemonStatus,
  };
  // The routes load after @fastify/swagger (a plugin), so it collects every one of them.
  void app.register(async (scope) => agentRoutes(scope.withTypeProvider<ZodTypeProvider>(), agent));
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
