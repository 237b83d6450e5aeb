import type { FastifyReply, FastifyRequest } from "fastify";
import type { FleetManager } from "../manager/fleet-manager.js";
import { okSchema } from "../protocol/answers.js";
import { throughputBodySchema } from "../protocol/requests.js";
import type { instanceIdParams } from "./api-schemas.js";
import { type errorAnswers, jsonAnswer, type ZodApp } from "./openapi.js";

/** An agent route's shared options (token check, body limit, its 400 answer, params, security) and error answers. */
export interface AgentRoute {
  options: {
    bodyLimit: number;
    preValidation: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;
    config: { invalid: { error: string; message: string } };
    schema: {
      operationId: string;
      summary: string;
      tags: string[];
      security: Record<string, string[]>[];
      params: typeof instanceIdParams;
    };
  };
  errors: ReturnType<typeof errorAnswers>;
}

/**
 * The agent's production report: `POST /v1/agent/:id/throughput` with `{ proofs, windowMs }`,
 * from an active machine only (409 otherwise). Each report is kept as host performance, so
 * calibration and ranking learn from production too, not only from the vetting benchmark.
 */
export function registerEconomicsRoutes(app: ZodApp, manager: FleetManager, route: AgentRoute): void {
  app.post(
    "/v1/agent/:id/throughput",
    {
      ...route.options,
      schema: {
        ...route.options.schema,
        body: throughputBodySchema,
        response: { 200: jsonAnswer(okSchema), ...route.errors },
      },
    },
    async (request) => {
      await manager.agent.throughput(request.params.id, request.body);
      return { ok: true as const };
    },
  );
}
