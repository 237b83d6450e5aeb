import { CuzkitError } from "@cuzkit/core";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import {
  FleetCurioNodeError,
  FleetInstanceNotFoundError,
  FleetInstanceNotLiveError,
  FleetLeaseLostError,
  FleetLogTailTooLargeError,
  FleetTransitionError,
} from "../errors.js";
import { invalidAnswerBody } from "./openapi.js";

/** An error as Fastify hands it to the error handler: a schema failure carries `validation`. */
type FastifyRouteError = Error & {
  statusCode?: number;
  code?: string;
  validation?: { instancePath?: string; message?: string }[];
};

/** A 4xx answer with a stable code; nothing was changed. */
export function refuse(
  reply: FastifyReply,
  status: number,
  code: string,
  message: string,
  extra: object = {},
) {
  return reply.code(status).send({ ok: false, error: code, message, ...extra });
}

/**
 * The server's error handler: a schema failure answers the route's own 400, Fastify's refusals
 * keep their status, the fleet's typed errors map to 409 / 404 / 413 / 503, anything else is a
 * 500 that says nothing of its cause.
 */
export function handleRouteError(error: FastifyRouteError, request: FastifyRequest, reply: FastifyReply) {
  const status = error.statusCode;
  if (error.validation !== undefined && status === 400) {
    // The route's params, query or body do not match its schema: its own code and message.
    return reply.code(400).send(invalidAnswerBody(request.routeOptions.config.invalid, error.validation));
  }
  if (status !== undefined && status >= 400 && status < 500) {
    // Fastify's own refusals: malformed JSON (400), too large (413), wrong content type (415).
    return refuse(reply, status, error.code ?? "BAD_REQUEST", error.message);
  }
  // A Curio node that cannot be told apart: the destroy is refused, nothing cordoned; the hint says what to fix.
  if (
    error instanceof FleetTransitionError ||
    error instanceof FleetInstanceNotLiveError ||
    error instanceof FleetCurioNodeError
  ) {
    return refuse(reply, 409, error.code, error.message, { hint: error.hint });
  }
  if (error instanceof FleetInstanceNotFoundError) return refuse(reply, 404, error.code, error.message);
  // A log shipment beyond the bounds: refused whole, nothing kept.
  if (error instanceof FleetLogTailTooLargeError) {
    return refuse(reply, 413, error.code, error.message, { hint: error.hint, bound: error.bound });
  }
  if (error instanceof FleetLeaseLostError) {
    // This manager lost the writer lease mid-request: nothing was written; the caller retries
    // and reaches the manager that holds it (or this one once it leads again).
    reply.header("retry-after", "5");
    return refuse(reply, 503, error.code, error.message, { hint: error.hint });
  }
  const code = CuzkitError.is(error) ? error.code : "INTERNAL";
  return reply
    .code(500)
    .send({ ok: false, error: code, message: "the manager failed to handle the request" });
}

/** While `isLeader()` is false, every write answers 503 FLEET_NOT_LEADER with Retry-After; reads are served. */
export function addLeaderGate(app: FastifyInstance, isLeader: () => boolean): void {
  app.addHook("onRequest", async (request, reply) => {
    if (request.method === "GET" || request.method === "HEAD" || isLeader()) return;
    // A follower replica: the leader acts; the caller retries (an agent's next attempt may
    // reach the leader, or this replica once it has taken over).
    return reply.code(503).header("retry-after", "5").send({
      ok: false,
      error: "FLEET_NOT_LEADER",
      message: "this fleet replica is following; another replica acts",
      hint: "send writes to the leading replica (cuzkit fleet status shows the store), or retry",
    });
  });
}
