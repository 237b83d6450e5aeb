import { type Clock, InvalidInputError, systemClock } from "@cuzkit/core";
import Fastify from "fastify";
import { serializerCompiler, validatorCompiler } from "fastify-type-provider-zod";
import { adminTokenChecker, isLoopbackHost, isTokenShaped } from "../server/admin-token.js";
import { parseListen } from "../server/listen.js";
import { observeReporter } from "./agent-page-observe.js";
import { addAgentPageRoutes } from "./agent-page-routes.js";
import { createAgentPageContext } from "./agent-page-state.js";
import type { AgentReporter } from "./reporter.js";

// The instance page for one machine without a fleet: `cuzkit agent --ui-listen` serves it from
// what the agent itself reports (it wraps the agent's reporter) and the daemon's /status, read
// live. The page is the dashboard's own instance page, fed by the same /api/instances/:id shape.

/** The local page's default address: loopback only. */
export const defaultAgentPageListen = "127.0.0.1:7321";

/** The id the local page shows the machine under (its path is /instances/local). */
export { localInstanceId } from "./agent-page-routes.js";

/** Options of startAgentPage. */
export interface AgentPageOptions {
  /** `HOST:PORT` to listen on. Default 127.0.0.1:7321; beyond loopback `token` is required. */
  listen?: string | undefined;
  /** The token every read needs (`Authorization: Bearer`); required beyond loopback. Default: none on loopback. */
  token?: string | undefined;
  /** Reads the daemon's HTTP /status for each page refresh (the client's fetchStatusJson). Default: the last one heartbeats carried. */
  readDaemonStatus?: (() => Promise<Record<string, unknown> | undefined>) | undefined;
  /** The machine's name on the page. Default "this machine". */
  label?: string | undefined;
  /** Clock for "now". Default: the system clock. */
  clock?: Clock | undefined;
  /** How often the page is told to refresh, ms. Default 2000. */
  streamTickMs?: number | undefined;
}

/** The running local page. */
export interface AgentPage {
  /** Base URL, such as http://127.0.0.1:7321. */
  url: string;
  /** Wraps the agent's reporter: every step it reports reaches the page too. */
  observe(reporter: AgentReporter): AgentReporter;
  close(): Promise<void>;
}

/**
 * Serves the instance page of this machine on `listen` (default 127.0.0.1:7321). Beyond
 * loopback it refuses to start without a token, and every read then needs it. The page never
 * sees the fleet token: only what the agent reports (phases, the benchmark's numbers) and the
 * daemon's /status.
 */
export async function startAgentPage(options: AgentPageOptions = {}): Promise<AgentPage> {
  const listen = options.listen ?? defaultAgentPageListen;
  const { host, port } = parseListen(listen);
  checkPageAccess(listen, isLoopbackHost(host), options.token);
  const tokenOk = options.token === undefined ? undefined : adminTokenChecker(options.token);
  const context = createAgentPageContext(options.clock ?? systemClock);

  const app = Fastify({ logger: false, return503OnClosing: true });
  // The bundle's routes (serveDashboardAssets) declare zod schemas, as on the manager.
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  addAgentPageRoutes(app, context, {
    tokenOk,
    readDaemonStatus: options.readDaemonStatus,
    label: options.label,
    streamTickMs: options.streamTickMs,
  });
  await app.listen({ host, port });
  const address = app.server.address();
  const boundPort = typeof address === "object" && address !== null ? address.port : port;
  const shownHost = host.includes(":") ? `[${host}]` : host;

  return {
    url: `http://${shownHost}:${boundPort}`,
    observe: (reporter) => observeReporter(context, reporter),
    close: () => app.close(),
  };
}

/** Refuses a malformed token, and a page beyond loopback without one. */
function checkPageAccess(listen: string, loopback: boolean, token: string | undefined): void {
  if (token !== undefined && !isTokenShaped(token)) {
    throw new InvalidInputError("--ui-token must be 16 to 128 characters of A-Z, a-z, 0-9, _ and -", {
      hint: "pass a longer token (openssl rand -base64 32 | tr '+/' '-_' | tr -d =)",
    });
  }
  if (!loopback && token === undefined) {
    throw new InvalidInputError(`--ui-listen ${listen} is beyond loopback and no --ui-token was given`, {
      hint: "pass --ui-token <token> (the page then asks for it), or bind --ui-listen 127.0.0.1:PORT and reach it through an SSH tunnel",
    });
  }
}
