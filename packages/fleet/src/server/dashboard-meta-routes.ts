import { z } from "zod";
import { openApiAnswerSchema } from "./api-schemas.js";
import type { DashboardContext } from "./dashboard-context.js";
import { createFleetMetrics } from "./metrics.js";
import { errorAnswers, jsonAnswer, openApiDocumentFor, textAnswer } from "./openapi.js";

/** `/metrics` (Prometheus) and `/openapi.json` (this document): reads. */
export function registerMetaRoutes(context: DashboardContext): void {
  const { app, typed, manager, store, clock, read, readRefusals } = context;
  const registry = createFleetMetrics(store, manager.config.fleet, () => clock.now());
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
