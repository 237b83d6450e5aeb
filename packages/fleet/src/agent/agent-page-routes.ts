import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { bearer } from "../server/admin-token.js";
import { addPageHooks, openEventStream } from "../server/event-stream.js";
import { pageHtml, serveDashboardAssets } from "../server/web-assets.js";
import { type AgentPageContext, withoutRaw } from "./agent-page-state.js";

// The local page's routes: the dashboard's instance page and bundle, and the /api shapes it
// reads (/api/instances/local, its logs, the event stream), from the page's context.

/** The id the local page shows the machine under (its path is /instances/local). */
export const localInstanceId = "local";

/** What the routes need of startAgentPage's options. */
export interface AgentPageRouteOptions {
  /** Checks a bearer token; undefined when reads need none (loopback without a token). */
  tokenOk: ((token: string | undefined) => boolean) | undefined;
  readDaemonStatus?: (() => Promise<Record<string, unknown> | undefined>) | undefined;
  label?: string | undefined;
  streamTickMs?: number | undefined;
}

const notThisMachine = (reply: FastifyReply) =>
  reply.code(404).send({ ok: false, error: "NOT_FOUND", message: "this page shows one machine" });

/** Adds the page's routes to `app`. */
export function addAgentPageRoutes(
  app: FastifyInstance,
  context: AgentPageContext,
  options: AgentPageRouteOptions,
): void {
  const streams = addPageHooks(app);
  const { tokenOk } = options;
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
    if (request.params.id !== localInstanceId) return notThisMachine(reply);
    return instanceBody(context, options);
  });
  app.get<{ Params: { id: string } }>(`/api/instances/:id/logs`, read, async (request, reply) => {
    if (request.params.id !== localInstanceId) return notThisMachine(reply);
    return { instanceId: localInstanceId, lines: context.logLines };
  });
  app.get("/api/stream", read, async (request, reply) =>
    openEventStream(request, reply, streams, (stream) => {
      const { view, listeners, clock } = context;
      stream.send("hello", { state: view.state });
      const onChange = () => stream.send("change", { state: view.state });
      listeners.add(onChange);
      const tick = setInterval(() => stream.send("tick", String(clock.now())), options.streamTickMs ?? 2000);
      return () => {
        listeners.delete(onChange);
        clearInterval(tick);
      };
    }),
  );
}

/** The /api/instances/local body: the page's view, with the daemon's /status read live. */
async function instanceBody(context: AgentPageContext, options: AgentPageRouteOptions) {
  const { view, clock } = context;
  let daemonStatusError: string | null = null;
  if (options.readDaemonStatus !== undefined) {
    try {
      const status = await options.readDaemonStatus();
      if (status !== undefined) view.daemonStatus = { at: clock.now(), status: withoutRaw(status) };
    } catch (error) {
      daemonStatusError = error instanceof Error ? error.message : String(error);
    }
  }
  return {
    local: true,
    instance: {
      id: localInstanceId,
      label: options.label ?? "this machine",
      state: view.state,
      phaseStartedAt: view.phaseStartedAt,
      lastHeartbeatAt: view.lastHeartbeatAt,
      proofsPerHour: view.proofsPerHour,
      reason: view.reason,
    },
    now: clock.now(),
    phases: view.phases,
    benchmark: view.benchmark,
    daemonStatus: view.daemonStatus,
    daemonStatusError,
  };
}
