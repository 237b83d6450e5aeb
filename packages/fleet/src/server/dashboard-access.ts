import type { FastifyReply, FastifyRequest } from "fastify";
import { adminTokenChecker, bearer } from "./admin-token.js";
import { loopbackHostAllowed } from "./host-check.js";

/** Who may do what on the dashboard: the checks its routes run before validation. */
export interface DashboardAccess {
  /** Whether every read needs the admin token (the manager listens beyond loopback). */
  readsNeedToken: boolean;
  /** The actions' check: the admin token, or 401. */
  admin: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;
  /** The reads' check: the token, or (reads open) a loopback or manager-URL Host, else 401 / 421. */
  reader: (request: FastifyRequest, reply: FastifyReply) => Promise<unknown>;
}

/** What the access checks are made from (the dashboard's options). */
export interface DashboardAccessOptions {
  /** The admin token. Required. */
  adminToken: string;
  /** Whether reads need the token. Default true. */
  readsNeedToken?: boolean | undefined;
  /** Hosts besides loopback that open reads may name. Default none. */
  allowedHosts?: readonly string[] | undefined;
}

function refuseUnauthenticated(reply: FastifyReply) {
  return reply.code(401).send({
    ok: false,
    error: "ADMIN_TOKEN_REQUIRED",
    message:
      "send the admin token as Authorization: Bearer <token> (printed by `cuzkit fleet serve`, kept in its state directory as admin-token)",
  });
}

/** The admin and reader checks over the admin token and the reads' rule. */
export function dashboardAccess(options: DashboardAccessOptions): DashboardAccess {
  const readsNeedToken = options.readsNeedToken ?? true;
  const tokenOk = adminTokenChecker(options.adminToken);
  // Both checks run before the request is validated (preValidation): no schema detail without the right.
  const admin = async (request: FastifyRequest, reply: FastifyReply) => {
    if (!tokenOk(bearer(request))) return refuseUnauthenticated(reply);
  };
  const reader = async (request: FastifyRequest, reply: FastifyReply) => {
    if (tokenOk(bearer(request))) return;
    if (readsNeedToken) return refuseUnauthenticated(reply);
    // Reads open on loopback: a DNS-rebinding page reaches them only under its own host name.
    if (!loopbackHostAllowed(request.headers.host, request.socket.localPort, options.allowedHosts)) {
      return reply.code(421).send({
        ok: false,
        error: "HOST_NOT_ALLOWED",
        message:
          "reads without the admin token answer only to Host localhost, 127.0.0.1 or [::1] at this port, or the manager URL's host",
      });
    }
  };
  return { readsNeedToken, admin, reader };
}
