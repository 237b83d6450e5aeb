import { z } from "zod";
import { redactSecrets } from "../agent/redact.js";
import { curioIdentityIssues } from "../curio/identity-events.js";
import { latestCurioRates } from "../curio/production-sync.js";
import { lastEventSeq } from "../store/dashboard-reads.js";
import type { FleetStore } from "../store/fleet-store.js";
import type { InstanceRecord } from "../store/records.js";
import {
  eventsQuery,
  eventViewSchema,
  hostPerformanceSchema,
  instanceDetailSchema,
  instanceIdParams,
  instanceListViewSchema,
  instanceLogsSchema,
  offersSchema,
  proofsPerHourSeriesSchema,
  spendSeriesSchema,
  summarySchema,
} from "./api-schemas.js";
import type { DashboardContext } from "./dashboard-context.js";
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
import { errorAnswers, type InvalidAnswer, jsonAnswer } from "./openapi.js";

/** The events read's 400 answer, as it always was. */
const invalidEvents = {
  error: "INVALID_QUERY",
  message: "after and limit are whole numbers (limit 1-1000)",
} as const satisfies InvalidAnswer;

const notFound = "No such instance (FLEET_INSTANCE_NOT_FOUND)";

/**
 * The dashboard's JSON reads under /api (summary, instances, one instance and its logs, events,
 * series, offers), in the order the OpenAPI document lists them. Views pick their fields, so no
 * token or key reaches them.
 */
export function registerReadRoutes(context: DashboardContext): void {
  registerFleetReads(context);
  registerInstanceReads(context);
  registerEventsRead(context);
  registerSeriesReads(context);
  registerOffersRead(context);
}

/** Every instance, with Curio's latest production per proof type beside the fleet's own measurement. */
async function instanceList(store: FleetStore): Promise<InstanceListView[]> {
  const curio = latestCurioRates(await store.performance.list());
  const records = await store.list();
  const identity = await curioIdentityIssues(store, records);
  return records.map(
    (r): InstanceListView => ({
      ...instanceView(r),
      curioProduction: curio.get(r.id) ?? [],
      curioIdentityIssue: identity.get(r.id) ?? null,
    }),
  );
}

function registerFleetReads({
  typed,
  store,
  manager,
  clock,
  access,
  read,
  readSchema,
  readRefusals,
}: DashboardContext) {
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
      readsNeedToken: access.readsNeedToken,
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
    async () => ({ instances: await instanceList(store) }),
  );
}

/** One instance's detail: its phases, its benchmark's per-proof records, the daemon's forwarded /status. */
async function instanceDetail({ store, clock, options }: DashboardContext, record: InstanceRecord) {
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
}

function registerInstanceReads(context: DashboardContext) {
  const { typed, store, read, readSchema, readRefusals, requireInstance, logSecrets } = context;
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
          ...errorAnswers({ ...readRefusals, 404: notFound }),
        },
      },
    },
    async (request) => instanceDetail(context, await requireInstance(request.params.id)),
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
          ...errorAnswers({ ...readRefusals, 404: notFound }),
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
}

function registerEventsRead({ typed, store, read, readSchema, readRefusals }: DashboardContext) {
  typed.get(
    "/api/events",
    {
      ...read,
      config: { invalid: invalidEvents },
      schema: {
        ...readSchema("listEvents", "The event log (the newest `limit` without `after`)"),
        querystring: eventsQuery,
        response: {
          200: jsonAnswer(z.object({ events: z.array(eventViewSchema) })),
          ...errorAnswers({ ...readRefusals, 400: `${invalidEvents.message} (INVALID_QUERY)` }),
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
}

function registerSeriesReads({ typed, store, clock, read, readSchema, readRefusals }: DashboardContext) {
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
}

function registerOffersRead({ typed, manager, read, readSchema, readRefusals }: DashboardContext) {
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
}
