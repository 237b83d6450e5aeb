import { type Clock, CuzkitError, systemClock } from "@cuzkit/core";
import fastifyCompress from "@fastify/compress";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { redactSecrets } from "../agent/redact.js";
import { curioIdentityIssues } from "../curio/identity-events.js";
import { latestCurioRates } from "../curio/production-sync.js";
import { instanceNotFound } from "../errors.js";
import { isInstanceId } from "../manager/config.js";
import type { FleetManager } from "../manager/fleet-manager.js";
import { lastEventSeq } from "../store/dashboard-reads.js";
import { adminTokenChecker, bearer } from "./admin-token.js";
import type { DaemonStatusBoard } from "./daemon-status-board.js";
import {
  eventView,
  excludedOfferView,
  fleetSummary,
  hostPerformance,
  type InstanceListView,
  instanceView,
  offerView,
  proofsPerHourSeries,
  spendSeries,
} from "./dashboard-views.js";
import { addPageHooks, openEventStream } from "./event-stream.js";
import { loopbackHostAllowed } from "./host-check.js";
import { createLogRequests, type LogRequests } from "./log-requests.js";
import { createFleetMetrics } from "./metrics.js";
import { openApiDocument } from "./openapi.js";
import { defaultMaxEventStreams } from "./server-limits.js";
import { pageHtml, serveDashboardAssets } from "./web-assets.js";

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

type IdParams = { id: string };
type MachineParams = { machineId: string };
const liftBody = z.strictObject({ reason: z.string().trim().min(1).max(200).optional() });
const machineIdParam = z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const deployBody = z.strictObject({ offerId: z.number().int().positive() });
const eventsQuery = z.object({
  after: z.coerce.number().int().nonnegative().optional(),
  limit: z.coerce.number().int().min(1).max(1000).optional(),
  instance: z.string().max(64).optional(),
});

/**
 * The dashboard pages (`/`, `/instances/:id`), their JSON (`/api/...`), the live stream
 * (`/api/stream`, server-sent events), the admin actions (deploy, destroy, cordon, lift: always the
 * admin token), `/metrics` and `/openapi.json`. Every answer carries a CSP; views pick their
 * fields, so no token or key reaches them.
 */
export async function dashboardPlugin(app: FastifyInstance, options: DashboardOptions): Promise<void> {
  const { manager } = options;
  const { store } = manager;
  const clock = options.clock ?? systemClock;
  const readsNeedToken = options.readsNeedToken ?? true;
  const tokenOk = adminTokenChecker(options.adminToken);
  const logRequests = options.logRequests ?? createLogRequests();
  const logSecrets = () => [...(options.logSecrets?.() ?? []), options.adminToken];
  const registry = createFleetMetrics(store, manager.config.fleet, () => clock.now());

  const streams = addPageHooks(app);
  // gzip or brotli for the bundle and the JSON (the event stream is taken over, never compressed).
  await app.register(fastifyCompress, { global: true, threshold: 1024 });

  const refuseUnauthenticated = (reply: FastifyReply) =>
    reply.code(401).send({
      ok: false,
      error: "ADMIN_TOKEN_REQUIRED",
      message:
        "send the admin token as Authorization: Bearer <token> (printed by `cuzkit fleet serve`, kept in its state directory as admin-token)",
    });
  const admin = async (request: FastifyRequest, reply: FastifyReply) => {
    if (!tokenOk(bearer(request))) return refuseUnauthenticated(reply);
  };
  const reader = async (request: FastifyRequest, reply: FastifyReply) => {
    if (tokenOk(bearer(request))) return;
    if (readsNeedToken) return refuseUnauthenticated(reply);
    // Reads open on loopback: a DNS-rebinding page reaches them only under its own host name.
    if (!loopbackHostAllowed(request.headers.host, request.socket.localPort, options.allowedHosts)) {
      return reply.code(421).send({
        ok: false,
        error: "HOST_NOT_ALLOWED",
        message:
          "reads without the admin token answer only to Host localhost, 127.0.0.1 or [::1] at this port, or the manager URL's host",
      });
    }
  };
  const requireInstance = async (id: string) => {
    const record = isInstanceId(id) ? await store.get(id) : undefined;
    if (record === undefined) throw instanceNotFound(id);
    return record;
  };

  // Pages and the bundle carry no data: served without a token so the page can ask for one.
  app.get("/", async (_request, reply) =>
    reply.type("text/html; charset=utf-8").send(pageHtml("fleet", "cuzkit fleet")),
  );
  app.get<{ Params: IdParams }>("/instances/:id", async (_request, reply) =>
    reply.type("text/html; charset=utf-8").send(pageHtml("instance", "cuzkit fleet")),
  );
  serveDashboardAssets(app);

  const read = { preHandler: reader };
  app.get("/api/summary", read, async () => ({
    ...(await fleetSummary(store, manager.config.fleet, clock.now())),
    readsNeedToken,
  }));
  app.get("/api/instances", read, async () => {
    // Curio's latest production per proof type, beside the fleet's own measurement.
    const curio = latestCurioRates(await store.performance.list());
    const records = await store.list();
    const identity = await curioIdentityIssues(store, records);
    return {
      instances: records.map(
        (r): InstanceListView => ({
          ...instanceView(r),
          curioProduction: curio.get(r.id) ?? [],
          curioIdentityIssue: identity.get(r.id) ?? null,
        }),
      ),
    };
  });
  app.get<{ Params: IdParams }>("/api/instances/:id", read, async (request) => {
    const record = await requireInstance(request.params.id);
    const benchmark = await store.benchmarkResult(record.id);
    const phases = (await store.events({ instanceId: record.id }))
      .filter((e) => e.toState !== undefined && e.toState !== e.fromState)
      .map((e) => ({ state: e.toState, at: e.at, type: e.type }));
    const proofs = Array.isArray(benchmark?.report.proofs)
      ? (benchmark.report.proofs as Record<string, unknown>[])
      : [];
    return {
      instance: instanceView(record),
      now: clock.now(),
      phases,
      benchmark:
        benchmark === undefined
          ? null
          : {
              at: benchmark.at,
              verdict: benchmark.verdict,
              proofsPerHour: benchmark.proofsPerHour,
              minProofsPerHour: benchmark.minProofsPerHour,
              // Only the numeric and flag fields of each proof: the messages stay in the event log.
              proofs: proofs.map((p) => ({
                index: typeof p.index === "number" ? p.index : null,
                warmup: p.warmup === true,
                ok: p.ok === true,
                wallMs: typeof p.wallMs === "number" ? p.wallMs : null,
                code: typeof p.code === "string" ? p.code : null,
              })),
            },
      daemonStatus: options.daemonStatus?.get(record.id) ?? null,
    };
  });
  app.get<{ Params: IdParams }>("/api/instances/:id/logs", read, async (request) => {
    const record = await requireInstance(request.params.id);
    const secrets = logSecrets();
    return {
      instanceId: record.id,
      // Redacted when stored; again here, with the secrets as they are now.
      lines: (await store.logTail(record.id)).map((line) => ({
        stream: line.stream,
        at: line.at,
        receivedAt: line.receivedAt,
        text: redactSecrets(line.text, secrets),
      })),
    };
  });
  app.get("/api/events", read, async (request, reply) => {
    const query = eventsQuery.safeParse(request.query);
    if (!query.success) {
      return reply.code(400).send({
        ok: false,
        error: "INVALID_QUERY",
        message: "after and limit are whole numbers (limit 1-1000)",
      });
    }
    const { after, limit = 200, instance } = query.data;
    // Newest `limit` when no cursor is given, so the log opens on what just happened.
    const from = after ?? Math.max(0, (await lastEventSeq(store)) - limit);
    return { events: (await store.events({ afterSeq: from, limit, instanceId: instance })).map(eventView) };
  });
  app.get("/api/host-performance", read, async () => ({ hosts: await hostPerformance(store) }));
  app.get("/api/proofs-per-hour", read, async () => proofsPerHourSeries(store, clock.now()));
  app.get("/api/spend", read, async () => spendSeries(store, clock.now()));
  app.get("/api/offers", read, async (_request, reply) => {
    try {
      const { ranked, excluded } = await manager.rankAll();
      return {
        offers: ranked.slice(0, 50).map(offerView),
        excluded: excluded.slice(0, 50).map(excludedOfferView),
      };
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      return reply.code(502).send({
        ok: false,
        error: typeof code === "string" ? code : "OFFERS_UNAVAILABLE",
        message: "the offers could not be read from Vast.ai; the fleet itself is unaffected",
      });
    }
  });
  const maxEventStreams = options.maxEventStreams ?? defaultMaxEventStreams;
  app.get("/api/stream", read, async (request, reply) => {
    // Read before the reply is taken over: a store that cannot answer gives a plain error.
    const initialSeq = await lastEventSeq(store);
    // Checked after the last await, so the check and the stream's registration are one step.
    if (streams.size >= maxEventStreams) {
      return reply
        .code(503)
        .header("retry-after", "30")
        .send({
          ok: false,
          error: "EVENT_STREAMS_FULL",
          message: `${maxEventStreams} live streams are open, the most this manager serves; close a dashboard tab or retry later`,
        });
    }
    openEventStream(request, reply, streams, (stream) => {
      let cursor = initialSeq;
      const tickMs = options.streamTickMs ?? 10_000;
      // The page marks itself stale when nothing arrives for 2 ticks: it must know the tick.
      stream.send("hello", { seq: cursor, tickMs });
      let polling = false;
      const poll = setInterval(() => {
        if (polling) return; // a slow read delays the next poll rather than overlapping it
        polling = true;
        store
          .events({ afterSeq: cursor, limit: 200 })
          .then((events) => {
            const last = events.at(-1);
            if (last === undefined) return;
            cursor = last.seq;
            stream.send("change", events.map(eventView));
          })
          .catch(() => {}) // the store is unreachable for now; the next poll tries again
          .finally(() => {
            polling = false;
          });
      }, options.streamPollMs ?? 1000);
      // Each tick says the server is alive and when the manager's loops last finished a pass: a
      // live server whose loops hang is news too.
      const tick = setInterval(() => {
        const loops = manager.loopState();
        stream.send("tick", {
          now: clock.now(),
          lastPassAt: loops.lastPassAt ?? null,
          lastPass: loops.lastPass ?? null,
          monitorEveryMs: loops.monitorEveryMs ?? null,
        });
      }, tickMs);
      return () => {
        clearInterval(poll);
        clearInterval(tick);
      };
    });
  });

  const action = { preHandler: admin, bodyLimit: 4096 };
  app.post("/api/deploy", action, async (request, reply) => {
    const body = deployBody.safeParse(request.body ?? {});
    if (!body.success) {
      return reply
        .code(400)
        .send({ ok: false, error: "INVALID_BODY", message: 'send { "offerId": <a Vast offer id> }' });
    }
    let record: Awaited<ReturnType<FleetManager["deploy"]>>;
    try {
      record = await manager.deploy(body.data.offerId);
    } catch (error) {
      // A refused offer or a budget cap: say why, in the API's terms; nothing was rented.
      if (!CuzkitError.is(error)) throw error;
      return reply.code(409).send({ ok: false, error: error.code, message: error.message, hint: error.hint });
    }
    await store.appendEvent(record.id, "operator-deploy", { offerId: body.data.offerId });
    return { ok: true, instance: instanceView(record) };
  });
  app.post<{ Params: IdParams }>("/api/instances/:id/destroy", action, async (request) => {
    await requireInstance(request.params.id);
    const record = await manager.destroy(request.params.id);
    return { ok: true, instance: instanceView(record) };
  });
  app.post<{ Params: IdParams }>("/api/instances/:id/logs/request", action, async (request) => {
    const record = await requireInstance(request.params.id);
    logRequests.ask(record.id);
    return { ok: true, instanceId: record.id };
  });
  app.post<{ Params: IdParams }>("/api/instances/:id/cordon", action, async (request, reply) => {
    const record = await requireInstance(request.params.id);
    if (record.machineId === undefined) {
      return reply.code(409).send({
        ok: false,
        error: "NO_MACHINE",
        message: "this instance has no Vast machine id yet; nothing to cordon",
      });
    }
    // Cordon: the machine is kept out of later rentals; the instance itself keeps running.
    await store.recordEvidence({
      machineId: record.machineId,
      hostId: record.offer.hostId,
      instanceId: record.id,
      kind: "cordon",
      reason: `cordoned by the operator (instance ${record.id})`,
    });
    await store.appendEvent(record.id, "cordoned", { machineId: record.machineId });
    return { ok: true, machineId: record.machineId };
  });

  app.get("/api/machines", read, async () => manager.machines());
  app.post<{ Params: MachineParams }>("/api/machines/:machineId/lift", action, async (request, reply) => {
    const machineId = machineIdParam.safeParse(request.params.machineId);
    const body = liftBody.safeParse(request.body ?? {});
    if (!machineId.success || !body.success) {
      return reply.code(400).send({
        ok: false,
        error: "INVALID_BODY",
        message:
          'the machine id is a positive whole number; the body is {} or { "reason": "<why, 200 characters at most>" }',
      });
    }
    try {
      const lifted = await manager.liftExclusion(
        machineId.data,
        body.data.reason === undefined ? undefined : `lifted by the operator: ${body.data.reason}`,
      );
      return {
        ok: true,
        machineId: machineId.data,
        lifted: { seq: lifted.seq, at: lifted.at, reason: lifted.reason },
      };
    } catch (error) {
      // Not excluded: nothing to lift, and nothing was written.
      if (!CuzkitError.is(error)) throw error;
      return reply.code(409).send({ ok: false, error: error.code, message: error.message, hint: error.hint });
    }
  });

  app.get("/metrics", read, async (_request, reply) =>
    reply.type(registry.contentType).send(await registry.metrics()),
  );
  app.get("/openapi.json", read, async () => openApiDocument);
}
