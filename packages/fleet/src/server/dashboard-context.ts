import { type Clock, systemClock } from "@cuzkit/core";
import type { FastifyInstance } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { instanceNotFound } from "../errors.js";
import { isInstanceId } from "../manager/config.js";
import type { FleetManager } from "../manager/fleet-manager.js";
import type { FleetStore } from "../store/fleet-store.js";
import type { InstanceRecord } from "../store/records.js";
import type { DaemonStatusBoard } from "./daemon-status-board.js";
import { type DashboardAccess, dashboardAccess } from "./dashboard-access.js";
import { createLogRequests, type LogRequests } from "./log-requests.js";
import { bodyRefusals, type ErrorStatus, security, type ZodApp } from "./openapi.js";

/** Options of the dashboard and admin API. */
export interface DashboardOptions {
  manager: FleetManager;
  /** The admin token: actions always need it, reads when `readsNeedToken`. Required. */
  adminToken: string;
  /** True when bound beyond loopback: every /api, /metrics and /openapi.json read needs the token. Default true. */
  readsNeedToken?: boolean | undefined;
  /** Where heartbeats leave the daemon's /status. Default: none (the instance page shows none). */
  daemonStatus?: DaemonStatusBoard | undefined;
  /** Clock for "now" in views and metrics. Default: the system clock. */
  clock?: Clock | undefined;
  /** How often the live stream looks for new events, ms. Default 1000. */
  streamPollMs?: number | undefined;
  /** How often the live stream sends a tick (heartbeat ages move without events), ms. Default 10 000. */
  streamTickMs?: number | undefined;
  /** How many live streams may be open at once; beyond, 503 EVENT_STREAMS_FULL. Default 32. */
  maxEventStreams?: number | undefined;
  /**
   * Hosts (`host:port` as a Host header carries it) that reads without the token may name besides
   * localhost, 127.0.0.1 and [::1] at the listening port: the manager URL's. Only used when reads
   * need no token. Default none.
   */
  allowedHosts?: readonly string[] | undefined;
  /** Where operators' log requests wait for the agent's heartbeat (the agent server's). Default: a set of its own. */
  logRequests?: LogRequests | undefined;
  /** Secret values removed again from each log line served (the admin token always). Default: none besides it. */
  logSecrets?: (() => readonly string[]) | undefined;
}

/** A route's OpenAPI head: its operation id, summary, tag and security. */
export interface RouteHead {
  operationId: string;
  summary: string;
  tags: string[];
  security: Record<string, string[]>[];
}

/** What every dashboard route group registers with: the app, the options resolved, the checks. */
export interface DashboardContext {
  /** The plugin's scope (the OpenAPI document is read from it). */
  app: FastifyInstance;
  /** The same scope, with zod schemas. */
  typed: ZodApp;
  options: DashboardOptions;
  manager: FleetManager;
  store: FleetStore;
  clock: Clock;
  access: DashboardAccess;
  logRequests: LogRequests;
  /** The secrets removed from each log line served: the configured ones and the admin token. */
  logSecrets: () => string[];
  /** The instance, or FLEET_INSTANCE_NOT_FOUND (404) for an unknown or malformed id. */
  requireInstance: (id: string) => Promise<InstanceRecord>;
  /** A read's options: the reader check and its security. */
  read: { preValidation: DashboardAccess["reader"]; security: RouteHead["security"] };
  readSchema: (operationId: string, summary: string) => RouteHead;
  /** What a read may refuse with: depends on where the manager listens, the document says which. */
  readRefusals: Partial<Record<ErrorStatus, string>>;
  /** An action's options: the admin check and a small body. */
  action: { preValidation: DashboardAccess["admin"]; bodyLimit: number };
  actionSchema: (operationId: string, summary: string) => RouteHead;
  actionRefusals: Partial<Record<ErrorStatus, string>>;
}

const adminRefusal = "The admin token is missing or wrong (ADMIN_TOKEN_REQUIRED)";

/** The reads' and actions' shared route options, schema heads and refusals. */
function routeKinds(access: DashboardAccess) {
  const read = {
    preValidation: access.reader,
    security: access.readsNeedToken ? security.admin : security.adminOrLoopback,
  };
  const readRefusals: Partial<Record<ErrorStatus, string>> = access.readsNeedToken
    ? { 401: `${adminRefusal}: reads need it when the manager listens beyond loopback` }
    : {
        421: "No admin token, and the Host header names neither loopback at this port nor the manager URL (HOST_NOT_ALLOWED)",
      };
  return {
    read,
    readSchema: (operationId: string, summary: string) => ({
      operationId,
      summary,
      tags: ["dashboard"],
      security: read.security,
    }),
    readRefusals,
    action: { preValidation: access.admin, bodyLimit: 4096 },
    actionSchema: (operationId: string, summary: string) => ({
      operationId,
      summary,
      tags: ["admin"],
      security: security.admin,
    }),
    actionRefusals: {
      ...bodyRefusals,
      401: adminRefusal,
      503: "This replica follows (FLEET_NOT_LEADER) or lost the writer lease: nothing changed; retry after Retry-After",
    },
  };
}

/** The context the dashboard's route groups share, from the plugin's scope and options. */
export function createDashboardContext(app: FastifyInstance, options: DashboardOptions): DashboardContext {
  const { manager } = options;
  const { store } = manager;
  const access = dashboardAccess(options);
  const requireInstance = async (id: string) => {
    const record = isInstanceId(id) ? await store.get(id) : undefined;
    if (record === undefined) throw instanceNotFound(id);
    return record;
  };
  return {
    app,
    typed: app.withTypeProvider<ZodTypeProvider>(),
    options,
    manager,
    store,
    clock: options.clock ?? systemClock,
    access,
    logRequests: options.logRequests ?? createLogRequests(),
    logSecrets: () => [...(options.logSecrets?.() ?? []), options.adminToken],
    requireInstance,
    ...routeKinds(access),
  };
}
