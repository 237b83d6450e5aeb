import type { FastifyInstance, FastifyReply, FastifyRequest, preHandlerAsyncHookHandler } from "fastify";
import type { z } from "zod";
import { throughputBodySchema } from "../manager/agent-schemas.js";
import type { FleetManager } from "../manager/fleet-manager.js";

/** What the economics routes borrow from the server: its token check and body parser. */
export interface EconomicsRouteTools {
  authenticate: preHandlerAsyncHookHandler;
  parse<S extends z.ZodType>(schema: S, body: unknown, reply: FastifyReply): z.infer<S> | undefined;
  smallBodyLimitBytes: number;
}

/**
 * The agent's production report: `POST /v1/agent/:id/throughput` with `{ proofs, windowMs }`,
 * from an active machine only (409 otherwise). Each report is kept as host performance, so
 * calibration and ranking learn from production too, not only from the vetting benchmark.
 */
export function registerEconomicsRoutes(
  app: FastifyInstance,
  manager: FleetManager,
  tools: EconomicsRouteTools,
): void {
  app.post<{ Params: { id: string } }>(
    "/v1/agent/:id/throughput",
    { bodyLimit: tools.smallBodyLimitBytes, preHandler: tools.authenticate },
    async (request: FastifyRequest<{ Params: { id: string } }>, reply) => {
      const body = tools.parse(throughputBodySchema, request.body, reply);
      if (body === undefined) return reply;
      await manager.agent.throughput(request.params.id, body);
      return { ok: true };
    },
  );
}
