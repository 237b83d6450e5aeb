import { z } from "zod";
import { instanceStates } from "../lifecycle.js";
import { okSchema, openObject } from "../protocol/answers.js";

// The manager's HTTP answers as zod schemas: the routes validate their input with them and check
// their output against them (fastify-type-provider-zod), and the OpenAPI document at /openapi.json
// is generated from the same schemas (@fastify/swagger), so neither can say what the other does
// not. Answers are loose objects: a field added to a view passes, and the document says which
// fields a client may rely on. Schemas with an `id` are components of the document.

const epochMs = z.number().describe("epoch ms");
const nullableEpochMs = z.number().nullable().describe("epoch ms");

/** Every refusal and failure: `{ ok: false, error, message }`, with a hint and the schema issues where there are some. */
export const errorBodySchema = openObject({
  ok: z.literal(false),
  error: z.string().describe("A stable code, such as INVALID_BODY or ADMIN_TOKEN_REQUIRED"),
  message: z.string(),
  hint: z.string().optional().describe("What to do about it"),
  issues: z
    .array(z.object({ path: z.string(), message: z.string() }))
    .optional()
    .describe("For 400 answers to a body, path or query that does not match the schema: the first 10 issues"),
}).meta({ id: "Error" });

/** The `:id` of an instance route (an instance id such as i-0a1b2c3d; any other answers 404 or 403). */
export const instanceIdParams = z.object({
  id: z.string().describe("The instance id, such as i-0a1b2c3d"),
});

/** The `:machineId` of a machine route: a positive whole number. */
export const machineIdParams = z.object({
  machineId: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER).describe("The Vast machine id"),
});

/** GET /api/events query. */
export const eventsQuery = z.object({
  after: z.coerce.number().int().nonnegative().optional().describe("Events after this sequence number"),
  limit: z.coerce.number().int().min(1).max(1000).optional().describe("How many, default 200"),
  instance: z.string().max(64).optional().describe("Only this instance's events"),
});

/** POST /api/deploy body. */
export const deployBody = z.strictObject({
  offerId: z.number().int().positive().describe("A Vast offer id"),
});

/** POST /api/machines/:machineId/lift body: `{}` or `{ reason }`. */
export const liftBody = z.strictObject({
  reason: z.string().trim().min(1).max(200).optional().describe("Why, kept in the machine's evidence"),
});

/** GET /assets/dashboard.{js,css} query. */
export const assetQuery = z.object({
  v: z.string().optional().describe("The bundle's version: with it the answer is cached for a year"),
});

const curioRateSchema = openObject({
  taskType: z.string().describe("PoRep, UpdateProve or PSProve"),
  proofsPerHour: z.number(),
  failures: z.number(),
  at: epochMs.describe("epoch ms: the end of the window"),
});

/** One instance as the dashboard shows it (InstanceView). */
export const instanceViewSchema = openObject({
  id: z.string(),
  label: z.string().describe("Operator text: render as text, never as markup"),
  state: z.enum(instanceStates),
  gpuName: z.string(),
  numGpus: z.number(),
  machineId: z.number().nullable(),
  vastId: z.number().nullable(),
  geolocation: z.string().nullable(),
  phaseStartedAt: epochMs,
  phaseDeadlineAt: nullableEpochMs,
  lastHeartbeatAt: nullableEpochMs,
  proofsPerHour: z.number().nullable().describe("Counted proofs/hour, once benchmarked"),
  rateBasis: z.enum(["benchmark", "probation", "production"]).nullish(),
  claimedProofsPerHour: z.number().nullish(),
  benchmarkProofsPerHour: z.number().nullish(),
  modelProofsPerHour: z.number().nullish(),
  productionProofsPerHour: z.number().nullish(),
  dphPerHour: z.number(),
  dollarsPer1000Proofs: z.number().nullable(),
  reason: z.string().nullable(),
  destroyManual: z.boolean(),
  curioDrain: openObject({
    state: z
      .enum(["draining", "cordoned"])
      .describe("draining: cordoned, a destroy waits for its tasks; cordoned: an uncordon is still to do"),
    curioMachineId: z.number().describe("harmony_machines.id of the node"),
    since: epochMs.describe("epoch ms: the cordon"),
    deadlineAt: nullableEpochMs.describe("epoch ms: when the destroy goes ahead anyway; null until computed"),
    destroyPending: z.boolean(),
  })
    .nullish()
    .describe("The Curio drain held on the instance's node; null when none"),
}).meta({ id: "Instance" });

/** An instance in /api/instances: its view and Curio's latest production. */
export const instanceListViewSchema = instanceViewSchema
  .extend({
    curioProduction: z
      .array(curioRateSchema)
      .describe("Curio's latest production of this machine per proof type (empty when it is no Curio node)"),
    curioIdentityIssue: z
      .string()
      .nullable()
      .describe(
        "Why this instance's Curio node cannot be told apart (two candidates); it is then neither cordoned nor destroyed automatically",
      ),
  })
  .meta({ id: "InstanceListItem" });

/** One entry of the event log. */
export const eventViewSchema = openObject({
  seq: z.number(),
  instanceId: z.string(),
  at: epochMs,
  type: z.string(),
  fromState: z.string().nullable(),
  toState: z.string().nullable(),
  detail: z.record(z.string(), z.unknown()).nullable(),
}).meta({ id: "Event" });

/** GET /api/summary. */
export const summarySchema = openObject({
  fleetName: z.string(),
  now: epochMs,
  countsByState: z.record(z.string(), z.number()).describe("Instances by state"),
  dollarsPerHour: z.number().describe("$/hour of every instance that may be billing"),
  proofsPerHour: z.number().describe("Measured proofs/hour of the active instances"),
  readsNeedToken: z.boolean().describe("Whether reads need the admin token on this manager"),
});

/** GET /api/instances/:id. */
export const instanceDetailSchema = openObject({
  instance: instanceViewSchema,
  now: epochMs,
  phases: z.array(openObject({ state: z.string().nullish(), at: epochMs, type: z.string() })),
  benchmark: openObject({
    at: epochMs,
    verdict: z.string(),
    proofsPerHour: z.number(),
    minProofsPerHour: z.number(),
    proofs: z.array(
      openObject({
        index: z.number().nullable(),
        warmup: z.boolean(),
        ok: z.boolean(),
        wallMs: z.number().nullable(),
        code: z.string().nullable(),
      }),
    ),
  })
    .nullable()
    .describe("The vetting benchmark with its per-proof records; null before it"),
  daemonStatus: openObject({ at: epochMs, status: z.record(z.string(), z.unknown()) })
    .nullable()
    .describe("The daemon's /status as the last heartbeat forwarded it"),
});

/** GET /api/host-performance. */
export const hostPerformanceSchema = openObject({
  hosts: z.array(
    openObject({
      instanceId: z.string(),
      at: epochMs,
      verdict: z.string(),
      proofsPerHour: z.number(),
      minProofsPerHour: z.number(),
      machineId: z.number().nullable(),
      gpuName: z.string().nullable(),
      numGpus: z.number().nullable(),
      dphPerHour: z.number().nullable(),
      dollarsPer1000Proofs: z.number().nullable(),
      geolocation: z.string().nullable(),
    }),
  ),
});

/** GET /api/proofs-per-hour. */
export const proofsPerHourSeriesSchema = openObject({
  times: z.array(z.number()).describe("epoch seconds"),
  lines: z.array(openObject({ id: z.string(), label: z.string(), values: z.array(z.number().nullable()) })),
  fleet: z.array(z.number()).describe("The fleet's proofs/hour: the sum of the lines"),
});

/** GET /api/spend. */
export const spendSeriesSchema = openObject({
  times: z.array(z.number()).describe("epoch seconds"),
  dollarsPerHour: z.array(z.number()),
  dollarsPer1000Proofs: z
    .array(z.number().nullable())
    .describe("The fleet's $/h over its counted proofs/hour; null while it proves nothing"),
});

/** A ranked offer (OfferView). */
export const offerViewSchema = openObject({
  offerId: z.number(),
  machineId: z.number().nullable(),
  gpuName: z.string(),
  numGpus: z.number(),
  geolocation: z.string().nullable(),
  fits: z.literal(true).describe("The tuner found a safe config"),
  predictedProofsPerHour: z.number().describe("The tuner's model, uncalibrated"),
  correctedProofsPerHour: z
    .number()
    .nullable()
    .describe("The model corrected by the hardware class's calibration; null before the class is measured"),
  measuredProofsPerHour: z
    .number()
    .nullable()
    .describe("Measured on this machine (geometric mean of measuredRuns runs)"),
  measuredRuns: z.number(),
  source: z.enum(["measured", "corrected", "predicted"]).describe("The estimate the ranking uses"),
  estimateProofsPerHour: z.number(),
  dphPerHour: z.number(),
  costPer1000: z.number().describe("$ per 1000 proofs at the estimate, reliability included"),
  optimisticCostPer1000: z.number().optional().describe("At the optimistic estimate: the sort key"),
  reliability: z.number().min(0).max(1),
  worthTrying: z.boolean().optional(),
  keepMinimumProofsPerHour: z
    .number()
    .optional()
    .describe(
      "The rate this offer must measure to be kept: --min-proofs-per-hour, or its $/h x 1000 over --max-usd-per-1000-proofs",
    ),
  interruptible: z
    .boolean()
    .optional()
    .describe(
      "Rented at a bid (--interruptible-bid): dphPerHour is the bid; reliability carries the preemption rate",
    ),
}).meta({ id: "Offer" });

/** An offer left out of the ranking, with why. */
export const excludedOfferViewSchema = openObject({
  offerId: z.number(),
  machineId: z.number().nullable(),
  gpuName: z.string(),
  numGpus: z.number(),
  fits: z.literal(false),
  reason: z.string(),
}).meta({ id: "ExcludedOffer" });

/** GET /api/offers. */
export const offersSchema = openObject({
  offers: z.array(offerViewSchema),
  excluded: z.array(excludedOfferViewSchema),
});

const evidenceSchema = openObject({
  seq: z.number(),
  machineId: z.number(),
  hostId: z.number().optional(),
  instanceId: z.string().optional(),
  at: epochMs,
  kind: z.string().describe("death, failure, unstable, cordon or lift"),
  reason: z.string(),
  counts: z.boolean().describe("Whether it counts against the machine"),
});

/** GET /api/machines (as `cuzkit fleet hosts --json`). */
export const machinesReportSchema = openObject({
  now: epochMs,
  fleetFailureRate: z.number(),
  exclusionPeriodMs: z.number(),
  machines: z.array(
    openObject({
      machineId: z.number(),
      hostId: z.number().optional(),
      rentals: z.number(),
      failures: z.number(),
      failureRate: z.number(),
      hostFailureRate: z.number(),
      excluded: z.boolean(),
      exclusionReason: z.string().optional(),
      excludedUntil: epochMs.optional(),
      evidence: z.array(evidenceSchema),
    }),
  ),
});

/** POST /api/deploy, /destroy: the instance as it is now. */
export const instanceActionSchema = okSchema.extend({ instance: instanceViewSchema });

/** POST /api/instances/:id/cordon. */
export const cordonAnswerSchema = okSchema.extend({ machineId: z.number() });

/** POST /api/machines/:machineId/lift. */
export const liftAnswerSchema = okSchema.extend({
  machineId: z.number(),
  lifted: openObject({ seq: z.number(), at: epochMs, reason: z.string() }),
});

/** GET /v1/health: the nonce tells a manager that a URL reaches this server. */
export const healthSchema = okSchema.extend({ nonce: z.string() });

/** GET /openapi.json: this document. */
export const openApiAnswerSchema = openObject({
  openapi: z.string(),
  paths: z.record(z.string(), z.unknown()),
});

/** GET /api/instances/:id/logs: the stored log tail, oldest first. */
export const instanceLogsSchema = openObject({
  instanceId: z.string(),
  lines: z.array(
    openObject({
      stream: z.string().describe("daemon (the daemon's output) or agent (the agent's own log)"),
      at: epochMs.describe("epoch ms: when the agent saw the line (its clock)"),
      receivedAt: epochMs.describe("epoch ms: when the manager stored it"),
      text: z.string().describe("Redacted on the box and again by the manager; render as text"),
    }),
  ),
}).meta({ id: "InstanceLogs" });
