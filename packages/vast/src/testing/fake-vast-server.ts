import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { send } from "./fake-vast/replies.js";
import { dispatch } from "./fake-vast/routes.js";
import {
  addInstance,
  createFakeVastState,
  type FakeVastState,
  failNext,
  recordRequest,
  requestsTo,
  setInstanceStatus,
  takeFailure,
  whenRequested,
} from "./fake-vast/state.js";
import type { FakeVastServer, FakeVastServerOptions, ScriptedFailure } from "./fake-vast/types.js";

// A fake Vast.ai HTTP API for tests, examples and demos, built from the facts in the research
// brief: response envelopes, MiB memory and GB disk units, v1 paging tokens, 200 with success:false, 404 for a
// bad key on /bundles/, 410 on the retired v0 list, no_such_ask, 411, 429 in plain text with
// no Retry-After, per-endpoint minimum intervals enforced on its own (the thresholds the real
// 429 bodies name), an S3-like log URL that 404s a few times and rejects an Authorization
// header, 200 success:false "Instance not found" for logs of a gone instance, `reliability2`
// beside `reliability`, and acceptance of duplicate purchases. Loopback only.

// The server is a state module (fake-vast/state.ts: instances, offers, scripted failures, rate
// limits, requests) and a route table (fake-vast/routes.ts: method + path pattern -> handler
// module under fake-vast/routes/).

export {
  type FakeRateLimitedEndpoint,
  type FakeVastServer,
  type FakeVastServerOptions,
  fakeRateLimitSeconds,
  type RecordedRequest,
  type ScriptedFailure,
} from "./fake-vast/types.js";

/** Reads a request's JSON body (undefined when empty or not JSON). */
function readBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  return new Promise((resolve) => {
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const text = Buffer.concat(chunks).toString("utf8");
      try {
        resolve(text === "" ? undefined : JSON.parse(text));
      } catch {
        resolve(undefined);
      }
    });
  });
}

/** Answers a scripted "respond" failure: its status and body, `{{key}}` replaced by the request's bearer token. */
function sendScripted(req: IncomingMessage, res: ServerResponse, failure: ScriptedFailure): void {
  const token = (req.headers.authorization ?? "").replace(/^Bearer\s+/i, "");
  const payload = failure.body ?? { success: false, error: "server_error", msg: "Internal Server Error" };
  const raw = typeof payload === "string" ? payload : JSON.stringify(payload);
  send(res, {
    status: failure.status ?? 500,
    body: undefined,
    text: raw.split("{{key}}").join(token),
    contentType: typeof payload === "string" ? "text/plain" : "application/json",
  });
}

/** Records the request, applies a scripted failure if one matches, else answers through the route table. */
async function serve(state: FakeVastState, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const body = await readBody(req);
  const method = req.method ?? "GET";
  const parsed = new URL(req.url ?? "/", "http://fake");
  const path = parsed.pathname;
  const query = Object.fromEntries(parsed.searchParams.entries());
  recordRequest(state, {
    method,
    path,
    url: req.url ?? "/",
    query,
    headers: req.headers,
    body,
    at: state.now(),
  });
  const failure = takeFailure(state, method, path);
  const mode = failure?.mode ?? "respond";
  if (failure && mode === "hang") return;
  if (failure && mode === "drop-before") {
    req.socket.destroy();
    return;
  }
  if (failure && mode === "respond") {
    sendScripted(req, res, failure);
    return;
  }
  const reply = dispatch(state, { method, path, query, body, headers: req.headers });
  if (failure && mode === "drop-after") {
    req.socket.destroy();
    return;
  }
  send(res, reply);
}

/** Starts the fake API on 127.0.0.1 with an ephemeral port. */
export async function startFakeVastServer(options: FakeVastServerOptions = {}): Promise<FakeVastServer> {
  const state = createFakeVastState(options);
  const server = createServer((req, res) => void serve(state, req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address() as AddressInfo;
  state.url = `http://127.0.0.1:${address.port}`;
  return {
    url: state.url,
    apiKey: state.apiKey,
    requests: state.requests,
    offers: state.offers,
    instances: state.instances,
    failNext: (failure) => failNext(state, failure),
    addInstance: (record) => addInstance(state, record),
    setInstanceStatus: (id, status, statusMsg) => setInstanceStatus(state, id, status, statusMsg),
    requestsTo: (path, method) => requestsTo(state, path, method),
    whenRequested: (path, whenOptions = {}) => whenRequested(state, path, whenOptions),
    close() {
      return new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  };
}
