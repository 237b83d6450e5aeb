import type { FastifyReply, FastifyRequest } from "fastify";
import { isInstanceId } from "../manager/config.js";
import type { FleetManager } from "../manager/fleet-manager.js";
import { agentTokenMatches } from "../tokens.js";
import { refuse } from "./server-errors.js";

function bearerToken(request: FastifyRequest): string | undefined {
  const header = request.headers.authorization;
  if (typeof header !== "string") return undefined;
  const match = /^Bearer ([A-Za-z0-9_-]{16,128})$/.exec(header);
  return match?.[1];
}

/**
 * The agent routes' token check: only this instance's own token opens its endpoints (401 / 403).
 * The manager's store is read per request: a caller may hand in a manager it binds later.
 */
export function agentAuthenticator(manager: FleetManager) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const { id } = request.params as { id: string };
    const token = bearerToken(request);
    if (token === undefined) {
      return refuse(
        reply,
        401,
        "UNAUTHENTICATED",
        "send the instance's token as Authorization: Bearer CUZKIT_FLEET_TOKEN",
      );
    }
    const tokenHash = isInstanceId(id) ? await manager.store.tokenHash(id) : undefined;
    // An unknown id and a wrong token answer alike, so ids cannot be probed.
    if (tokenHash === undefined || !agentTokenMatches(token, tokenHash)) {
      return refuse(reply, 403, "FORBIDDEN", "this token is not valid for this instance");
    }
  };
}
