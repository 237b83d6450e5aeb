import { CuzkitError } from "@cuzkit/core";
import { z } from "zod";
import type { FleetManager } from "../manager/fleet-manager.js";
import { okSchema } from "../protocol/answers.js";
import { cordonAnswerSchema, deployBody, instanceActionSchema, instanceIdParams } from "./api-schemas.js";
import type { DashboardContext } from "./dashboard-context.js";
import { instanceView } from "./dashboard-views.js";
import { errorAnswers, type InvalidAnswer, jsonAnswer } from "./openapi.js";

/** The deploy's 400 answer, as it always was. */
const invalidDeploy = {
  error: "INVALID_BODY",
  message: 'send { "offerId": <a Vast offer id> }',
} as const satisfies InvalidAnswer;

const notFound = "No such instance (FLEET_INSTANCE_NOT_FOUND)";

/**
 * The admin actions on instances (deploy, destroy, ask for logs, cordon): always the admin token,
 * in the order the OpenAPI document lists them.
 */
export function registerInstanceActionRoutes(context: DashboardContext): void {
  registerDeploy(context);
  registerDestroy(context);
  registerLogsRequest(context);
  registerCordon(context);
}

function registerDeploy({ typed, manager, store, action, actionSchema, actionRefusals }: DashboardContext) {
  typed.post(
    "/api/deploy",
    {
      ...action,
      config: { invalid: invalidDeploy },
      schema: {
        ...actionSchema("deployOffer", "Rent an offer"),
        body: deployBody,
        response: {
          200: jsonAnswer(instanceActionSchema),
          ...errorAnswers({
            ...actionRefusals,
            400: `Malformed JSON, or ${invalidDeploy.message} (INVALID_BODY)`,
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
}

function registerDestroy(context: DashboardContext) {
  const { typed, manager, action, actionSchema, actionRefusals, requireInstance } = context;
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
            404: notFound,
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
}

function registerLogsRequest(context: DashboardContext) {
  const { typed, logRequests, action, actionSchema, actionRefusals, requireInstance } = context;
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
          ...errorAnswers({ ...actionRefusals, 404: notFound }),
        },
      },
    },
    async (request) => {
      const record = await requireInstance(request.params.id);
      logRequests.ask(record.id);
      return { ok: true as const, instanceId: record.id };
    },
  );
}

function registerCordon(context: DashboardContext) {
  const { typed, store, action, actionSchema, actionRefusals, requireInstance } = context;
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
            404: notFound,
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
}
