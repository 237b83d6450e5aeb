import { CuzkitError } from "@cuzkit/core";
import { liftAnswerSchema, liftBody, machineIdParams, machinesReportSchema } from "./api-schemas.js";
import type { DashboardContext } from "./dashboard-context.js";
import { errorAnswers, type InvalidAnswer, jsonAnswer } from "./openapi.js";

/** The lift's 400 answer, as it always was. */
const invalidLift = {
  error: "INVALID_BODY",
  message:
    'the machine id is a positive whole number; the body is {} or { "reason": "<why, 200 characters at most>" }',
} as const satisfies InvalidAnswer;

/** The machines: their report (a read) and the lift of an exclusion (an action, the admin token). */
export function registerMachineRoutes(context: DashboardContext): void {
  const { typed, manager, read, readSchema, readRefusals, action, actionSchema, actionRefusals } = context;
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
      config: { invalid: invalidLift },
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
            400: `Malformed JSON, or ${invalidLift.message} (INVALID_BODY)`,
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
}
