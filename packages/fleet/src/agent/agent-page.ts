import { type Clock, InvalidInputError, systemClock } from "@cuzkit/core";
import Fastify, { type FastifyReply, type FastifyRequest } from "fastify";
import { serializerCompiler, validatorCompiler } from "fastify-type-provider-zod";
import { logTailDefaults } from "../defaults.js";
import type { LogsBody, ThroughputBody } from "../protocol/requests.js";
import { adminTokenChecker, bearer, isLoopbackHost, isTokenShaped } from "../server/admin-token.js";
import type { BenchmarkDetailView, ForwardedStatusView, PhaseView } from "../server/dashboard-views.js";
import { addPageHooks, openEventStream } from "../server/event-stream.js";
import { parseListen } from "../server/listen.js";
import { pageHtml, serveDashboardAssets } from "../server/web-assets.js";
import type { AgentReporter } from "./reporter.js";

// The instance page for one machine without a fleet: `cuzkit agent --ui-listen` serves it from
// what the agent itself reports (it wraps the agent's reporter) and the daemon's /status, read
// live. The page is the dashboard's own instance page, fed by the same /api/instances/:id shape.

/** The local page's default address: loopback only. */
export const defaultAgentPageListen = "127.0.0.1:7321";

/** The id the local page shows the machine under (its path is /instances/local). */
export const localInstanceId = "local";

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

interface LocalState {
  state: string;
  reason: string | null;
  phaseStartedAt: number;
  lastHeartbeatAt: number | null;
  proofsPerHour: number | null;
  phases: PhaseView[];
  benchmark: BenchmarkDetailView | null;
  daemonStatus: ForwardedStatusView | null;
}

const withoutRaw = (status: Record<string, unknown>) => {
  const { raw: _raw, ...rest } = status;
  return rest;
};

/**
 * Serves the instance page of this machine on `listen` (default 127.0.0.1:7321). Beyond
 * loopback it refuses to start without a token, and every read then needs it. The page never
 * sees the fleet token: only what the agent reports (phases, the benchmark's numbers) and the
 * daemon's /status.
 */
// shape-exception: one Fastify app whose routes share the page's state (reporter view, SSE clients, token)
export async function startAgentPage(options: AgentPageOptions = {}): Promise<AgentPage> {
  const listen = options.listen ?? defaultAgentPageListen;
  const { host, port } = parseListen(listen);
  const loopback = isLoopbackHost(host);
  if (options.token !== undefined && !isTokenShaped(options.token)) {
    throw new InvalidInputError("--ui-token must be 16 to 128 characters of A-Z, a-z, 0-9, _ and -", {
      hint: "pass a longer token (openssl rand -base64 32 | tr '+/' '-_' | tr -d =)",
    });
  }
  if (!loopback && options.token === undefined) {
    throw new InvalidInputError(`--ui-listen ${listen} is beyond loopback and no --ui-token was given`, {
      hint: "pass --ui-token <token> (the page then asks for it), or bind --ui-listen 127.0.0.1:PORT and reach it through an SSH tunnel",
    });
  }
  const tokenOk = options.token === undefined ? undefined : adminTokenChecker(options.token);
  const clock = options.clock ?? systemClock;
  const state: LocalState = {
    state: "starting",
    reason: null,
    phaseStartedAt: clock.now(),
    lastHeartbeatAt: null,
    proofsPerHour: null,
    phases: [{ state: "starting", at: clock.now(), type: "agent-started" }],
    benchmark: null,
    daemonStatus: null,
  };
  let minProofsPerHour = 0;
  // The lines the agent shipped (redacted on the way), the newest as the manager keeps them.
  const logLines: { stream: string; at: number; receivedAt: number; text: string }[] = [];
  const listeners = new Set<() => void>();
  const enter = (next: string, type: string, reason?: string) => {
    const at = clock.now();
    state.state = next;
    state.phaseStartedAt = at;
    if (reason !== undefined) state.reason = reason;
    state.phases.push({ state: next, at, type });
    for (const listener of listeners) listener();
  };

  const app = Fastify({ logger: false, return503OnClosing: true });
  // The bundle's routes (serveDashboardAssets) declare zod schemas, as on the manager.
  app.setValidatorCompiler(validatorCompiler);
  app.setSerializerCompiler(serializerCompiler);
  const streams = addPageHooks(app);
  const reader = async (request: FastifyRequest, reply: FastifyReply) => {
    if (tokenOk !== undefined && !tokenOk(bearer(request))) {
      return reply.code(401).send({
        ok: false,
        error: "UI_TOKEN_REQUIRED",
        message:
          "type the token given to cuzkit agent --ui-token into the page (sent as Authorization: Bearer)",
      });
    }
  };
  const read = { preHandler: reader };
  app.get("/", async (_request, reply) => reply.redirect(`/instances/${localInstanceId}`));
  app.get("/instances/:id", async (_request, reply) =>
    reply.type("text/html; charset=utf-8").send(pageHtml("instance", "cuzkit agent")),
  );
  serveDashboardAssets(app);
  app.get<{ Params: { id: string } }>(`/api/instances/:id`, read, async (request, reply) => {
    if (request.params.id !== localInstanceId) {
      return reply.code(404).send({ ok: false, error: "NOT_FOUND", message: "this page shows one machine" });
    }
    let daemonStatusError: string | null = null;
    if (options.readDaemonStatus !== undefined) {
      try {
        const status = await options.readDaemonStatus();
        if (status !== undefined) state.daemonStatus = { at: clock.now(), status: withoutRaw(status) };
      } catch (error) {
        daemonStatusError = error instanceof Error ? error.message : String(error);
      }
    }
    return {
      local: true,
      instance: {
        id: localInstanceId,
        label: options.label ?? "this machine",
        state: state.state,
        phaseStartedAt: state.phaseStartedAt,
        lastHeartbeatAt: state.lastHeartbeatAt,
        proofsPerHour: state.proofsPerHour,
        reason: state.reason,
      },
      now: clock.now(),
      phases: state.phases,
      benchmark: state.benchmark,
      daemonStatus: state.daemonStatus,
      daemonStatusError,
    };
  });
  app.get<{ Params: { id: string } }>(`/api/instances/:id/logs`, read, async (request, reply) => {
    if (request.params.id !== localInstanceId) {
      return reply.code(404).send({ ok: false, error: "NOT_FOUND", message: "this page shows one machine" });
    }
    return { instanceId: localInstanceId, lines: logLines };
  });
  app.get("/api/stream", read, async (request, reply) =>
    openEventStream(request, reply, streams, (stream) => {
      stream.send("hello", { state: state.state });
      const onChange = () => stream.send("change", { state: state.state });
      listeners.add(onChange);
      const tick = setInterval(() => stream.send("tick", String(clock.now())), options.streamTickMs ?? 2000);
      return () => {
        listeners.delete(onChange);
        clearInterval(tick);
      };
    }),
  );
  await app.listen({ host, port });
  const address = app.server.address();
  const boundPort = typeof address === "object" && address !== null ? address.port : port;
  const shownHost = host.includes(":") ? `[${host}]` : host;

  return {
    url: `http://${shownHost}:${boundPort}`,
    observe(reporter) {
      return {
        kind: reporter.kind,
        async register(body) {
          const instructions = await reporter.register(body);
          minProofsPerHour = instructions.minProofsPerHour;
          enter("registered", "register");
          return instructions;
        },
        async phase(body) {
          await reporter.phase(body);
          enter(body.phase, "phase");
        },
        async heartbeat(body) {
          state.lastHeartbeatAt = clock.now();
          if (body.daemonStatus !== undefined)
            state.daemonStatus = { at: clock.now(), status: withoutRaw(body.daemonStatus) };
          return reporter.heartbeat(body);
        },
        async failure(body) {
          await reporter.failure(body);
          enter("failed", "failure", `${body.phase}: ${body.code}: ${body.message}`);
        },
        async report(body) {
          const answer = await reporter.report(body);
          state.proofsPerHour = body.proofsPerHour;
          state.benchmark = {
            at: clock.now(),
            verdict: body.verdict,
            proofsPerHour: body.proofsPerHour,
            minProofsPerHour,
            // The numbers and flags of each proof only, as the fleet's page shows them.
            proofs: body.proofs.map((p) => ({
              index: p.index,
              warmup: p.warmup,
              ok: p.ok,
              wallMs: p.wallMs ?? null,
              code: p.code ?? null,
            })),
          };
          enter(answer.keep ? "serving" : "rejected", "report", answer.reason);
          return answer;
        },
        throughput:
          reporter.throughput === undefined
            ? undefined
            : (body: ThroughputBody) => reporter.throughput?.(body) ?? Promise.resolve(),
        logs:
          reporter.logs === undefined
            ? undefined
            : async (body: LogsBody) => {
                await reporter.logs?.(body);
                const receivedAt = clock.now();
                logLines.push(...body.lines.map((line) => ({ ...line, receivedAt })));
                logLines.splice(0, Math.max(0, logLines.length - logTailDefaults.storeKeepLines));
                for (const listener of listeners) listener();
              },
      };
    },
    close: () => app.close(),
  };
}
