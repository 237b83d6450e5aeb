import { htmlNotFound } from "./replies.js";
import { addSshKey, currentUser, listSshKeys, searchBundles } from "./routes/account.js";
import {
  attachSshKey,
  changeInstance,
  createInstance,
  destroyInstance,
  listInstances,
  listInstancesV0,
  otherInstanceMethod,
  rebootInstance,
  showInstance,
} from "./routes/instances.js";
import { downloadLog, requestLogs } from "./routes/logs.js";
import type { RouteHandler, RouteRequest } from "./routes/request.js";
import { type FakeVastState, rateLimited } from "./state.js";
import type { FakeRateLimitedEndpoint, Reply } from "./types.js";

/** One row of the route table. */
interface Route {
  /** HTTP method, or "*" for any. */
  method: string;
  /** Matched against the whole path (without query). */
  pattern: RegExp;
  handler: RouteHandler;
  /** The endpoint whose rate limit applies. Default none. */
  limit?: FakeRateLimitedEndpoint;
  /** False for the one route outside the API (the S3-like log URL): no key, no rate limit. Default true. */
  api?: false;
}

/** The routes, first match wins. */
const routes: readonly Route[] = [
  { method: "GET", pattern: /^\/s3\/logs\/([\w-]+)$/, handler: downloadLog, api: false },
  { method: "POST", pattern: /^\/api\/v0\/bundles\/$/, handler: searchBundles },
  { method: "PUT", pattern: /^\/api\/v0\/asks\/(\d+)\/$/, handler: createInstance, limit: "createInstance" },
  { method: "GET", pattern: /^\/api\/v0\/instances\/$/, handler: listInstancesV0 },
  { method: "GET", pattern: /^\/api\/v1\/instances\/$/, handler: listInstances, limit: "listInstances" },
  { method: "PUT", pattern: /^\/api\/v0\/instances\/reboot\/(\d+)\/$/, handler: rebootInstance },
  { method: "PUT", pattern: /^\/api\/v0\/instances\/request_logs\/(\d+)\/$/, handler: requestLogs },
  { method: "POST", pattern: /^\/api\/v0\/instances\/(\d+)\/ssh\/$/, handler: attachSshKey },
  { method: "GET", pattern: /^\/api\/v0\/instances\/(\d+)\/$/, handler: showInstance, limit: "showInstance" },
  { method: "PUT", pattern: /^\/api\/v0\/instances\/(\d+)\/$/, handler: changeInstance },
  {
    method: "DELETE",
    pattern: /^\/api\/v0\/instances\/(\d+)\/$/,
    handler: destroyInstance,
    limit: "destroyInstance",
  },
  { method: "*", pattern: /^\/api\/v0\/instances\/(\d+)\/$/, handler: otherInstanceMethod },
  { method: "GET", pattern: /^\/api\/v0\/ssh\/$/, handler: listSshKeys },
  { method: "POST", pattern: /^\/api\/v0\/ssh\/$/, handler: addSshKey },
  { method: "GET", pattern: /^\/api\/v0\/users\/current\/?$/, handler: currentUser },
];

/** The first route for the request, with its match. */
function findRoute(method: string, path: string): { route: Route; match: RegExpExecArray } | undefined {
  for (const route of routes) {
    if (route.method !== "*" && route.method !== method) continue;
    const match = route.pattern.exec(path);
    if (match) return { route, match };
  }
  return undefined;
}

/** Answers a request as the API would: the log URL without auth; under /api/ the key, then the rate limit, then the route. */
export function dispatch(state: FakeVastState, request: RouteRequest): Reply {
  const { method, path, headers } = request;
  const found = findRoute(method, path);
  if (found?.route.api === false) return found.route.handler(state, request, found.match);
  if (!path.startsWith("/api/")) return htmlNotFound();
  if (headers.authorization !== `Bearer ${state.apiKey}`) {
    // A bad key on /bundles/ comes back as 404, elsewhere as 401.
    const status = path === "/api/v0/bundles/" ? 404 : 401;
    return { status, body: { success: false, error: "auth_error", msg: "Invalid user key" } };
  }
  const limited = rateLimited(state, found?.route.limit);
  if (limited) return limited;
  return found ? found.route.handler(state, request, found.match) : htmlNotFound();
}
