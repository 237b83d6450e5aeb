import fastifyCompress from "@fastify/compress";
import type { FastifyInstance } from "fastify";
import { registerInstanceActionRoutes } from "./dashboard-action-routes.js";
import { createDashboardContext, type DashboardOptions } from "./dashboard-context.js";
import { registerMachineRoutes } from "./dashboard-machine-routes.js";
import { registerMetaRoutes } from "./dashboard-meta-routes.js";
import { registerPageRoutes } from "./dashboard-page-routes.js";
import { registerReadRoutes } from "./dashboard-read-routes.js";
import { registerStreamRoute } from "./dashboard-stream-route.js";
import { addPageHooks } from "./event-stream.js";

export type { DashboardOptions } from "./dashboard-context.js";

/**
 * The dashboard pages (`/`, `/instances/:id`), their JSON (`/api/...`), the live stream
 * (`/api/stream`, server-sent events), the admin actions (deploy, destroy, cordon, lift: always the
 * admin token), `/metrics` and `/openapi.json`. Every answer carries a CSP; views pick their
 * fields, so no token or key reaches them. The groups register in the order the OpenAPI document
 * lists them; each takes the shared context (dashboard-context.ts).
 */
export async function dashboardPlugin(app: FastifyInstance, options: DashboardOptions): Promise<void> {
  const context = createDashboardContext(app, options);
  const streams = addPageHooks(app);
  // gzip or brotli for the bundle and the JSON (the event stream is taken over, never compressed).
  await app.register(fastifyCompress, { global: true, threshold: 1024 });
  registerPageRoutes(context);
  registerReadRoutes(context);
  registerStreamRoute(context, streams);
  registerInstanceActionRoutes(context);
  registerMachineRoutes(context);
  registerMetaRoutes(context);
}
