// The admin API's OpenAPI 3.1 document, kept by hand next to the routes; a test checks that it
// names exactly the routes dashboardPlugin registers (so neither can drift).

const error = { $ref: "#/components/schemas/Error" };
const json = (schema: object, description = "OK") => ({
  description,
  content: { "application/json": { schema } },
});
const refusals = {
  "401": json(
    error,
    "The admin token is missing or wrong (reads need it when the manager listens beyond loopback)",
  ),
};
const idParam = [
  { name: "id", in: "path", required: true, schema: { type: "string", pattern: "^i-[0-9a-f]{8}$" } },
];
const instanceRef = { $ref: "#/components/schemas/Instance" };
const read = (summary: string, schema: object, extra: object = {}) => ({
  get: { summary, security: [{ adminToken: [] }], responses: { "200": json(schema), ...refusals }, ...extra },
});
const act = (summary: string, schema: object, extra: object = {}) => ({
  post: {
    summary,
    security: [{ adminToken: [] }],
    responses: {
      "200": json(schema),
      ...refusals,
      "404": json(error, "No such instance"),
      "409": json(error, "Not possible in its state"),
    },
    ...extra,
  },
});
const page = (summary: string, extra: object = {}) => ({
  get: {
    summary,
    responses: { "200": { description: "HTML page", content: { "text/html": {} } } },
    ...extra,
  },
});

const offersSchema = {
  type: "object",
  required: ["offers", "excluded"],
  properties: {
    offers: { type: "array", items: { $ref: "#/components/schemas/Offer" } },
    excluded: { type: "array", items: { $ref: "#/components/schemas/ExcludedOffer" } },
  },
};

/** The OpenAPI document served at /openapi.json. */
export const openApiDocument = {
  openapi: "3.1.0",
  info: {
    title: "cuzkit fleet manager: dashboard and admin API",
    version: "1",
    description:
      "Read endpoints need the admin token only when the manager listens beyond loopback; actions always do. " +
      "Agent endpoints (/v1/agent/...) take each instance's own token and are not part of this document.",
  },
  components: {
    securitySchemes: { adminToken: { type: "http", scheme: "bearer" } },
    schemas: {
      Offer: {
        type: "object",
        description:
          "A ranked offer: the model's, the class-corrected and the measured proofs/hour, the one used, and its price per proof",
        required: [
          "offerId",
          "fits",
          "predictedProofsPerHour",
          "source",
          "estimateProofsPerHour",
          "dphPerHour",
          "costPer1000",
          "reliability",
        ],
        properties: {
          offerId: { type: "integer" },
          machineId: { type: ["integer", "null"] },
          gpuName: { type: "string" },
          numGpus: { type: "integer" },
          geolocation: { type: ["string", "null"] },
          fits: { const: true, description: "The tuner found a safe config" },
          predictedProofsPerHour: { type: "number", description: "The tuner's model, uncalibrated" },
          correctedProofsPerHour: {
            type: ["number", "null"],
            description:
              "The model corrected by the hardware class's calibration; null before the class is measured",
          },
          measuredProofsPerHour: {
            type: ["number", "null"],
            description: "Measured on this machine (geometric mean of measuredRuns runs)",
          },
          measuredRuns: { type: "integer" },
          source: {
            enum: ["measured", "corrected", "predicted"],
            description: "The estimate the ranking uses",
          },
          estimateProofsPerHour: { type: "number" },
          dphPerHour: { type: "number" },
          costPer1000: {
            type: "number",
            description: "$ per 1000 proofs at the estimate, reliability included",
          },
          optimisticCostPer1000: { type: "number", description: "At the optimistic estimate: the sort key" },
          reliability: { type: "number", minimum: 0, maximum: 1 },
          worthTrying: { type: "boolean" },
        },
      },
      ExcludedOffer: {
        type: "object",
        required: ["offerId", "fits", "reason"],
        properties: {
          offerId: { type: "integer" },
          machineId: { type: ["integer", "null"] },
          gpuName: { type: "string" },
          numGpus: { type: "integer" },
          fits: { const: false },
          reason: { type: "string" },
        },
      },
      LogLine: {
        type: "object",
        description: "One line of a log tail; operator-facing text from a rented machine: render as text",
        required: ["stream", "at", "receivedAt", "text"],
        properties: {
          stream: { enum: ["daemon", "agent"] },
          at: { type: "integer", description: "When the agent read it, epoch ms (the machine's clock)" },
          receivedAt: { type: "integer", description: "When the manager stored it, epoch ms" },
          text: { type: "string" },
        },
      },
      Error: {
        type: "object",
        required: ["ok", "error", "message"],
        properties: {
          ok: { const: false },
          error: { type: "string" },
          message: { type: "string" },
          hint: { type: "string" },
        },
      },
      Instance: {
        type: "object",
        properties: {
          id: { type: "string" },
          label: { type: "string", description: "Operator text: render as text, never as markup" },
          state: { type: "string" },
          gpuName: { type: "string" },
          numGpus: { type: "integer" },
          machineId: { type: ["integer", "null"] },
          vastId: { type: ["integer", "null"] },
          geolocation: { type: ["string", "null"] },
          phaseStartedAt: { type: "integer", description: "epoch ms" },
          phaseDeadlineAt: { type: ["integer", "null"], description: "epoch ms" },
          lastHeartbeatAt: { type: ["integer", "null"], description: "epoch ms" },
          proofsPerHour: { type: ["number", "null"] },
          dphPerHour: { type: "number" },
          dollarsPer1000Proofs: { type: ["number", "null"] },
          reason: { type: ["string", "null"] },
          destroyManual: { type: "boolean" },
          curioProduction: {
            type: "array",
            description:
              "In /api/instances: Curio's latest production of this machine per proof type (empty when it is no Curio node)",
            items: {
              type: "object",
              properties: {
                taskType: { type: "string", description: "PoRep, UpdateProve or PSProve" },
                proofsPerHour: { type: "number" },
                failures: { type: "integer" },
                at: { type: "integer", description: "epoch ms: the end of the window" },
              },
            },
          },
          curioIdentityIssue: {
            type: ["string", "null"],
            description:
              "In /api/instances: why this instance's Curio node cannot be told apart (two candidates); it is then neither cordoned nor destroyed automatically",
          },
        },
      },
      Event: {
        type: "object",
        properties: {
          seq: { type: "integer" },
          instanceId: { type: "string" },
          at: { type: "integer" },
          type: { type: "string" },
          fromState: { type: ["string", "null"] },
          toState: { type: ["string", "null"] },
          detail: { type: ["object", "null"] },
        },
      },
    },
  },
  paths: {
    "/": page("The fleet dashboard"),
    "/instances/{id}": page("One instance's page", { parameters: idParam }),
    "/assets/dashboard.js": {
      get: { summary: "The dashboard's script bundle", responses: { "200": { description: "JavaScript" } } },
    },
    "/assets/dashboard.css": {
      get: { summary: "The dashboard's stylesheet", responses: { "200": { description: "CSS" } } },
    },
    "/api/summary": read("Fleet totals: instances by state, $/h, proofs/hour", { type: "object" }),
    "/api/instances": read("Every instance", {
      type: "object",
      properties: { instances: { type: "array", items: instanceRef } },
    }),
    "/api/instances/{id}": read(
      "One instance: phases, benchmark per-proof records, the daemon's forwarded /status",
      { type: "object" },
      { parameters: idParam },
    ),
    "/api/instances/{id}/logs": read(
      "The instance's log tail: the newest lines its agent shipped (the daemon's output and its own), secrets redacted",
      {
        type: "object",
        required: ["instanceId", "lines"],
        properties: {
          instanceId: { type: "string" },
          lines: { type: "array", items: { $ref: "#/components/schemas/LogLine" } },
        },
      },
      { parameters: idParam },
    ),
    "/api/instances/{id}/logs/request": act(
      "Ask the instance's agent for its log tail: its next heartbeat is answered with the request (at most one shipment per 30 s)",
      { type: "object" },
      { parameters: idParam },
    ),
    "/api/events": read(
      "The event log (newest `limit` without `after`)",
      {
        type: "object",
        properties: { events: { type: "array", items: { $ref: "#/components/schemas/Event" } } },
      },
      {
        parameters: [
          { name: "after", in: "query", schema: { type: "integer" } },
          { name: "limit", in: "query", schema: { type: "integer", minimum: 1, maximum: 1000 } },
          { name: "instance", in: "query", schema: { type: "string" } },
        ],
      },
    ),
    "/api/host-performance": read("Every benchmark result with its host", { type: "object" }),
    "/api/proofs-per-hour": read(
      "Proofs/hour over time per instance and for the fleet (x in epoch seconds)",
      { type: "object" },
    ),
    "/api/spend": read(
      "The fleet's $/hour and $ per 1000 proofs over time (x in epoch seconds; null while it proves nothing)",
      {
        type: "object",
        required: ["times", "dollarsPerHour", "dollarsPer1000Proofs"],
        properties: {
          times: { type: "array", items: { type: "number" } },
          dollarsPerHour: { type: "array", items: { type: "number" } },
          dollarsPer1000Proofs: { type: "array", items: { type: ["number", "null"] } },
        },
      },
    ),
    "/api/offers": read(
      "Offers ranked by $ per 1000 proofs, with every estimate of their rate (as `cuzkit fleet offers --json`), and those left out",
      offersSchema,
      { responses: { "200": json(offersSchema), ...refusals, "502": json(error, "Vast.ai did not answer") } },
    ),
    "/api/stream": {
      get: {
        summary: "Server-sent events: `change` (new events, JSON array) and `tick`",
        security: [{ adminToken: [] }],
        responses: {
          "200": { description: "text/event-stream", content: { "text/event-stream": {} } },
          ...refusals,
        },
      },
    },
    "/api/deploy": act(
      "Rent an offer",
      { type: "object" },
      {
        requestBody: {
          required: true,
          content: {
            "application/json": {
              schema: { type: "object", required: ["offerId"], properties: { offerId: { type: "integer" } } },
            },
          },
        },
      },
    ),
    "/api/instances/{id}/destroy": act(
      "Destroy an instance from whatever state it is in",
      { type: "object" },
      { parameters: idParam },
    ),
    "/api/instances/{id}/cordon": act(
      "Keep the instance's machine out of later rentals",
      { type: "object" },
      { parameters: idParam },
    ),
    "/api/machines": read(
      "Every machine with its evidence (failures, deaths, operator actions, lifts), failure rate and exclusion (as `cuzkit fleet hosts --json`)",
      { type: "object" },
    ),
    "/api/machines/{machineId}/lift": act(
      "Lift a machine's exclusion (a lift row in its evidence, and an event)",
      { type: "object" },
      {
        parameters: [
          { name: "machineId", in: "path", required: true, schema: { type: "integer", minimum: 1 } },
        ],
        requestBody: {
          required: false,
          content: {
            "application/json": {
              schema: { type: "object", properties: { reason: { type: "string", maxLength: 200 } } },
            },
          },
        },
      },
    ),
    "/metrics": {
      get: {
        summary: "Prometheus metrics",
        security: [{ adminToken: [] }],
        responses: {
          "200": { description: "Prometheus text format", content: { "text/plain": {} } },
          ...refusals,
        },
      },
    },
    "/openapi.json": read("This document", { type: "object" }),
  },
} as const;
