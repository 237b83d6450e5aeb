import type { IncomingHttpHeaders } from "node:http";
import type { FakeVastState } from "../state.js";
import type { Reply } from "../types.js";

/** A parsed request as route handlers see it. */
export interface RouteRequest {
  method: string;
  /** Path without query. */
  path: string;
  query: Record<string, string>;
  /** Parsed JSON body, or undefined. */
  body: unknown;
  headers: IncomingHttpHeaders;
}

/** Answers a request that matched a route; `match` holds the path pattern's groups. */
export type RouteHandler = (state: FakeVastState, request: RouteRequest, match: RegExpExecArray) => Reply;
