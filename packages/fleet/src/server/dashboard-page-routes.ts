import { z } from "zod";
import { instanceIdParams } from "./api-schemas.js";
import type { DashboardContext } from "./dashboard-context.js";
import { errorAnswers, security, textAnswer } from "./openapi.js";
import { pageHtml, serveDashboardAssets } from "./web-assets.js";

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

/** The page shells (`/`, `/instances/:id`) and the bundle: no data in them, so no token. */
export function registerPageRoutes({ typed }: DashboardContext): void {
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
}
