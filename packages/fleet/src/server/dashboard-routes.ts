// shape-exception: the dashboard's routes in one plugin
import { type Clock, CuzkitError, systemClock } from "@cuzkit/core";
import fastifyCompress from "@fastify/compress";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { ZodTypeProvider } from "fastify-type-provider-zod";
import { z } from "zod";
import { redactSecrets } from "../agent/redact.js";
import { curioIdentityIssues } from "../curio/identity-events.js";
import { latestCurioRates } from "../curio/production-sync.js";
import { instanceNotFound } from "../errors.js";
import { isInstanceId } from "../manager/config.js";
import type { FleetManager } from "../manager/fleet-manager.js";
import { okSchema } from "../protocol/answers.js";
import { lastEventSeq } from "../store/dashboard-reads.js";
import { adminTokenChecker, bearer } from "./admin-token.js";
import {
  cordonAnswerSchema,
  deployBody,
  eventsQuery,
  eventViewSchema,
  hostPerformanceSchema,
  instanceActionSchema,
  instanceDetailSchema,
  instanceIdParams,
  instanceListViewSchema,
  instanceLogsSchema,
  liftAnswerSchema,
  liftBody,
  machineIdParams,
  machinesReportSchema,
  offersSchema,
  openApiAnswerSchema,
  proofsPerHourSeriesSchema,
  spendSeriesSchema,
  summarySchema,
} from "./api-schemas.js";
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
import {
  bodyRefusals,
  type ErrorStatus,
  errorAnswers,
  type InvalidAnswer,
  jsonAnswer,
  openApiDocumentFor,
  security,
  textAnswer,
} from "./openapi.js";
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

/** The 400 answers of the dashboard routes, as they always were. */
const invalid = {
  events: { error: "INVALID_QUERY", message: "after and limit are whole numbers (limit 1-1000)" },
  deploy: { error: "INVALID_BODY", message: 'send { "offerId": <a Vast offer id> }' },
  lift: {
    error: "INVALID_BODY",
    message:
      'the machine id is a positive whole number; the body is {} or { "reason": "<why, 200 characters at most>" }',
  },
} as const satisfies Record<string, InvalidAnswer>;

/**
 * The dashboard pages (`/`, `/instances/:id`), their JSON (`/api/...`), the live stream
 * (`/api/stream`, server-sent events), the admin actions (deploy, destroy, cordon, lift: always the
 * admin token), `/metrics` and `/openapi.json`. Every answer carries a CSP; views pick their
 * fields, so no token or key reaches them.
 */
// shape-exception: one Fastify plugin whose routes share its options, token check and schemas
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
  // Both checks run before the request is validated (preValidation): no schema detail without the right.
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

  const typed = app.withTypeProvider<ZodTypeProvider>();
  const adminRefusal = "The admin token is missing or wrong (ADMIN_TOKEN_REQUIRED)";
  // What a read may refuse with depends on where the manager listens: the document says which.
  const readRefusals: Partial<Record<ErrorStatus, string>> = readsNeedToken
    ? { 401: `${adminRefusal}: reads need it when the manager listens beyond loopback` }
    : {
        421: "No admin token, and the Host header names neither loopback at this port nor the manager URL (HOST_NOT_ALLOWED)",
      };
  const read = {
    preValidation: reader,
    security: readsNeedToken ? security.admin : security.adminOrLoopback,
  };
  const readSchema = (operationId: string, summary: string) => ({
    operationId,
    summary,
    tags: ["dashboard"],
    security: read.security,
  });
  const action = { preValidation: admin, bodyLimit: 4096 };
  const actionSchema = (operationId: string, summary: string) => ({
    operationId,
    summary,
    tags: ["admin"],
    security: security.admin,
  });
  const actionRefusals = {
    ...bodyRefusals,
    401: adminRefusal,
    503: "This replica follows (FLEET_NOT_LEADER) or lost the writer lease: nothing changed; retry after Retry-After",
  } as const;
  const page = (operationId: string, summary: string) => ({
    operationId,
    summary,
    tags: ["dashboard"],
    security: security.open,
  });
  const html = textAnswer(
    "text/html",
    z.string(),
    "The page shell: no data in it; its script fetches /api/...",
  );

  // Pages and the bundle carry no data: served without a token so the page can ask for one.
  typed.get(
    "/",
    {
      schema: {
        ...page("dashboardPage", "The fleet dashboard"),
        response: { 200: html, ...errorAnswers({}) },
      },
    },
    async (_request, reply) => reply.type("text/html; charset=utf-8").send(pageHtml("fleet", "cuzkit fleet")),
  );
  typed.get(
    "/instances/:id",
    {
      schema: {
        ...page("instancePage", "One instance's page"),
        params: instanceIdParams,
        response: { 200: html, ...errorAnswers({}) },
      },
    },
    async (_request, reply) =>
      reply.type("text/html; charset=utf-8").send(pageHtml("instance", "cuzkit fleet")),
  );
  serveDashboardAssets(typed);

  typed.get(
    "/api/summary",
    {
      ...read,
      schema: {
        ...readSchema("getSummary", "Fleet totals: instances by state, $/h, proofs/hour"),
        response: { 200: jsonAnswer(summarySchema), ...errorAnswers(readRefusals) },
      },
    },
    async () => ({
      ...(await fleetSummary(store, manager.config.fleet, clock.now())),
      readsNeedToken,
    }),
  );
  typed.get(
    "/api/instances",
    {
      ...read,
      schema: {
        ...readSchema("listInstances", "Every instance, with Curio's latest production of each"),
        response: {
          200: jsonAnswer(z.object({ instances: z.array(instanceListViewSchema) })),
          ...errorAnswers(readRefusals),
        },
      },
    },
    async () => {
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
    },
  );
  typed.get(
    "/api/instances/:id",
    {
      ...read,
      schema: {
        ...readSchema(
          "getInstance",
          "One instance: phases, benchmark per-proof records, the daemon's forwarded /status",
        ),
        params: instanceIdParams,
        response: {
          200: jsonAnswer(instanceDetailSchema),
          ...errorAnswers({ ...readRefusals, 404: "No such instance (FLEET_INSTANCE_NOT_FOUND)" }),
        },
      },
    },
    async (request) => {
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
    },
  );
  typed.get(
    "/api/instances/:id/logs",
    {
      ...read,
      schema: {
        ...readSchema(
          "getInstanceLogs",
          "The instance's log tail its agent shipped (the daemon's and the agent's last lines, redacted)",
        ),
        params: instanceIdParams,
        response: {
          200: jsonAnswer(instanceLogsSchema),
          ...errorAnswers({ ...readRefusals, 404: "No such instance (FLEET_INSTANCE_NOT_FOUND)" }),
        },
      },
    },
    async (request) => {
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
    },
  );
  typed.get(
    "/api/events",
    {
      ...read,
      config: { invalid: invalid.events },
      schema: {
        ...readSchema("listEvents", "The event log (the newest `limit` without `after`)"),
        querystring: eventsQuery,
        response: {
          200: jsonAnswer(z.object({ events: z.array(eventViewSchema) })),
          ...errorAnswers({ ...readRefusals, 400: `${invalid.events.message} (INVALID_QUERY)` }),
        },
      },
    },
    async (request) => {
      const { after, limit = 200, instance } = request.query;
      // Newest `limit` when no cursor is given, so the log opens on what just happened.
      const from = after ?? Math.max(0, (await lastEventSeq(store)) - limit);
      return {
        events: (await store.events({ afterSeq: from, limit, instanceId: instance })).map(eventView),
      };
    },
  );
  typed.get(
    "/api/host-performance",
    {
      ...read,
      schema: {
        ...readSchema("listHostPerformance", "Every benchmark result with its host"),
        response: { 200: jsonAnswer(hostPerformanceSchema), ...errorAnswers(readRefusals) },
      },
    },
    async () => ({ hosts: await hostPerformance(store) }),
  );
  typed.get(
    "/api/proofs-per-hour",
    {
      ...read,
      schema: {
        ...readSchema(
          "getProofsPerHour",
          "Proofs/hour over time per instance and for the fleet (x in epoch seconds)",
        ),
        response: { 200: jsonAnswer(proofsPerHourSeriesSchema), ...errorAnswers(readRefusals) },
      },
    },
    async () => proofsPerHourSeries(store, clock.now()),
  );
  typed.get(
    "/api/spend",
    {
      ...read,
      schema: {
        ...readSchema(
          "getSpend",
          "The fleet's $/hour and $ per 1000 proofs over time (x in epoch seconds; null while it proves nothing)",
        ),
        response: { 200: jsonAnswer(spendSeriesSchema), ...errorAnswers(readRefusals) },
      },
    },
    async () => spendSeries(store, clock.now()),
  );
  typed.get(
    "/api/offers",
    {
      ...read,
      schema: {
        ...readSchema(
          "listOffers",
          "Offers ranked by $ per 1000 proofs, with every estimate of their rate (as `cuzkit fleet offers --json`), and those left out",
        ),
        response: {
          200: jsonAnswer(offersSchema),
          ...errorAnswers({ ...readRefusals, 502: "Vast.ai did not answer; the fleet itself is unaffected" }),
        },
      },
    },
    async (_request, reply) => {
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
    },
  );
  const maxEventStreams = options.maxEventStreams ?? defaultMaxEventStreams;
  typed.get(
    "/api/stream",
    {
      ...read,
      schema: {
        ...readSchema(
          "openEventStream",
          "Server-sent events: `hello` ({ seq, tickMs }), `change` (new events, a JSON array) and `tick` ({ now, lastPassAt, lastPass, monitorEveryMs })",
        ),
        response: {
          200: textAnswer("text/event-stream", z.string(), "The event stream"),
          ...errorAnswers({
            ...readRefusals,
            503: "As many live streams are open as this manager serves (EVENT_STREAMS_FULL): close a tab or retry after Retry-After",
          }),
        },
      },
    },
    async (request, reply) => {
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
      return reply;
    },
  );

  typed.post(
    "/api/deploy",
    {
      ...action,
      config: { invalid: invalid.deploy },
      schema: {
        ...actionSchema("deployOffer", "Rent an offer"),
        body: deployBody,
        response: {
          200: jsonAnswer(instanceActionSchema),
          ...errorAnswers({
            ...actionRefusals,
            400: `Malformed JSON, or ${invalid.deploy.message} (INVALID_BODY)`,
            409: "The offer is refused (not ranked, excluded, over the budget cap): nothing was rented; the hint says why",
          }),
        },
      },
    },
    async (request, reply) => {
      let record: Awaited<ReturnType<FleetManager["deploy"]>>;
      try {
        record = await manager.deploy(request.body.offerId);
      } catch (error) {
        // A refused offer or a budget cap: say why, in the API's terms; nothing was rented.
        if (!CuzkitError.is(error)) throw error;
        return reply
          .code(409)
          .send({ ok: false, error: error.code, message: error.message, hint: error.hint });
      }
      await store.appendEvent(record.id, "operator-deploy", { offerId: request.body.offerId });
      return { ok: true as const, instance: instanceView(record) };
    },
  );
  typed.post(
    "/api/instances/:id/destroy",
    {
      ...action,
      schema: {
        ...actionSchema(
          "destroyInstance",
          "Destroy an instance from whatever state it is in (202: its Curio node drains first, in the background)",
        ),
        params: instanceIdParams,
        response: {
          200: jsonAnswer(instanceActionSchema),
          202: jsonAnswer(
            instanceActionSchema,
            "Accepted: the instance's Curio node is cordoned and drains in the background before the destroy; progress is events on /api/stream (curio-cordoned, curio-draining, curio-drained, destroyed)",
          ),
          ...errorAnswers({
            ...actionRefusals,
            404: "No such instance (FLEET_INSTANCE_NOT_FOUND)",
            409: "Not possible in its state, or its Curio node cannot be told apart (the hint says what to fix)",
          }),
        },
      },
    },
    // A Curio node's drain can take hours: 202 at once, the drain and destroy go on in the
    // background, their progress as events (curio-cordoned, curio-draining, curio-drained, destroyed).
    async (request, reply) => {
      await requireInstance(request.params.id);
      const { record, background } = await manager.destroyInBackground(request.params.id);
      return reply.code(background ? 202 : 200).send({ ok: true as const, instance: instanceView(record) });
    },
  );
  typed.post(
    "/api/instances/:id/logs/request",
    {
      ...action,
      schema: {
        ...actionSchema(
          "requestInstanceLogs",
          "Ask the instance's agent for its log tail: its next heartbeat's answer carries the request",
        ),
        params: instanceIdParams,
        response: {
          200: jsonAnswer(okSchema.extend({ instanceId: z.string() })),
          ...errorAnswers({ ...actionRefusals, 404: "No such instance (FLEET_INSTANCE_NOT_FOUND)" }),
        },
      },
    },
    async (request) => {
      const record = await requireInstance(request.params.id);
      logRequests.ask(record.id);
      return { ok: true as const, instanceId: record.id };
    },
  );
  typed.post(
    "/api/instances/:id/cordon",
    {
      ...action,
      schema: {
        ...actionSchema("cordonInstance", "Keep the instance's machine out of later rentals"),
        params: instanceIdParams,
        response: {
          200: jsonAnswer(cordonAnswerSchema),
          ...errorAnswers({
            ...actionRefusals,
            404: "No such instance (FLEET_INSTANCE_NOT_FOUND)",
            409: "The instance has no Vast machine id yet (NO_MACHINE)",
          }),
        },
      },
    },
    async (request, reply) => {
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
      return { ok: true as const, machineId: record.machineId };
    },
  );

  typed.get(
    "/api/machines",
    {
      ...read,
      schema: {
        ...readSchema(
          "listMachines",
          "Every machine with its evidence (failures, deaths, operator actions, lifts), failure rate and exclusion (as `cuzkit fleet hosts --json`)",
        ),
        response: { 200: jsonAnswer(machinesReportSchema), ...errorAnswers(readRefusals) },
      },
    },
    async () => manager.machines(),
  );
  typed.post(
    "/api/machines/:machineId/lift",
    {
      ...action,
      config: { invalid: invalid.lift },
      schema: {
        ...actionSchema(
          "liftMachineExclusion",
          "Lift a machine's exclusion (a lift row in its evidence, and an event)",
        ),
        params: machineIdParams,
        body: liftBody,
        response: {
          200: jsonAnswer(liftAnswerSchema),
          ...errorAnswers({
            ...actionRefusals,
            400: `Malformed JSON, or ${invalid.lift.message} (INVALID_BODY)`,
            409: "The machine is not excluded: nothing to lift, nothing written",
          }),
        },
      },
    },
    async (request, reply) => {
      const { machineId } = request.params;
      const { reason } = request.body;
      try {
        const lifted = await manager.liftExclusion(
          machineId,
          reason === undefined ? undefined : `lifted by the operator: ${reason}`,
        );
        return {
          ok: true as const,
          machineId,
          lifted: { seq: lifted.seq, at: lifted.at, reason: lifted.reason },
        };
      } catch (error) {
        // Not excluded: nothing to lift, and nothing was written.
        if (!CuzkitError.is(error)) throw error;
        return reply
          .code(409)
          .send({ ok: false, error: error.code, message: error.message, hint: error.hint });
      }
    },
  );

  typed.get(
    "/metrics",
    {
      ...read,
      schema: {
        operationId: "getMetrics",
        summary: "Prometheus metrics (text exposition format)",
        tags: ["meta"],
        security: read.security,
        response: {
          200: textAnswer("text/plain", z.string(), "Prometheus text format"),
          ...errorAnswers(readRefusals),
        },
      },
    },
    async (_request, reply) => reply.type(registry.contentType).send(await registry.metrics()),
  );
  typed.get(
    "/openapi.json",
    {
      ...read,
      schema: {
        operationId: "getOpenApi",
        summary: "This document, generated from the schemas the routes validate with",
        tags: ["meta"],
        security: read.security,
        response: { 200: jsonAnswer(openApiAnswerSchema), ...errorAnswers(readRefusals) },
      },
    },
    async (request) =>
      openApiDocumentFor(app, request, manager.config.managerUrl) as z.infer<typeof openApiAnswerSchema>,
  );
}
