import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { withDefaults } from "@cuzkit/core";
import { sampleOffers } from "./sample-offers.js";

// A fake Vast.ai HTTP API for tests, examples and demos, built from the facts in the research
// brief: response envelopes, MiB memory and GB disk units, v1 paging tokens, 200 with success:false, 404 for a
// bad key on /bundles/, 410 on the retired v0 list, no_such_ask, 411, 429 in plain text with
// no Retry-After, per-endpoint minimum intervals enforced on its own (the thresholds the real
// 429 bodies name), an S3-like log URL that 404s a few times and rejects an Authorization
// header, 200 success:false "Instance not found" for logs of a gone instance, `reliability2`
// beside `reliability`, and acceptance of duplicate purchases. Loopback only.

/** A scripted failure for the next matching requests. */
export interface ScriptedFailure {
  /** HTTP method to match; default any. */
  method?: string | undefined;
  /** Path to match: exact pathname (such as "/api/v0/asks/1001/") or a RegExp on it. */
  path: string | RegExp;
  /** How many matching requests it applies to. Default 1. */
  times?: number | undefined;
  /**
   * - "respond" (default): answer `status` with `body` instead of handling the request.
   * - "drop-before": close the connection without handling the request.
   * - "drop-after": handle the request (state changes happen), then close the connection
   *   instead of answering: a create that succeeded server-side but whose answer was lost.
   * - "hang": never answer (until the server closes).
   */
  mode?: "respond" | "drop-before" | "drop-after" | "hang" | undefined;
  /** Status for "respond". Default 500. */
  status?: number | undefined;
  /**
   * Body for "respond": an object (sent as JSON) or text (sent as text/plain). The text
   * `{{key}}` is replaced by the bearer token the request carried, to test redaction of echoes.
   */
  body?: string | Record<string, unknown> | undefined;
}

/** One request the server received. */
export interface RecordedRequest {
  method: string;
  /** Path without query. */
  path: string;
  /** The full URL path with query string as received. */
  url: string;
  /** Query parameters (raw strings). */
  query: Record<string, string>;
  headers: IncomingHttpHeaders;
  /** Parsed JSON body, or undefined. */
  body: unknown;
  /** When it arrived, by the server's `now`. */
  at: number;
}

/** The endpoints the fake rate-limits, by name. */
export type FakeRateLimitedEndpoint = "createInstance" | "destroyInstance" | "showInstance" | "listInstances";

/**
 * The minimum interval per endpoint and key, in seconds, that the real 429 bodies name
 * (`threshold=4.5` create, 3.0 destroy, 2.0 show, 1.0 the v1 list; vast-ai/docs OAS examples).
 */
export const fakeRateLimitSeconds: Readonly<Record<FakeRateLimitedEndpoint, number>> = {
  createInstance: 4.5,
  destroyInstance: 3.0,
  showInstance: 2.0,
  listInstances: 1.0,
};

/** Options of the fake server. */
export interface FakeVastServerOptions {
  /**
   * Per-endpoint minimum intervals in seconds, checked against `now`: a call sooner than that
   * after the previous accepted one answers 429 `API requests too frequent endpoint threshold=X`.
   * `false` turns it off. Default `fakeRateLimitSeconds`.
   */
  rateLimits?: Partial<Record<FakeRateLimitedEndpoint, number | undefined>> | false | undefined;
  /** The server's clock in ms, for rate limits; pass a test's manual clock. Default `Date.now`. */
  now?: (() => number) | undefined;
  /** The only key it accepts. Default "fake-vast-key-5f1c0d9e8b7a6c5d". */
  apiKey?: string | undefined;
  /** Offer records in API units. Default `sampleOffers()`. */
  offers?: Record<string, unknown>[] | undefined;
  /** Account balance in USD; a create with balance <= 0 answers 411. Default 100. */
  balance?: number | undefined;
  /** `actual_status` an instance shows on its 1st, 2nd, ... show; the last repeats. Default [null, "loading", "running"]. */
  bootSequence?: (string | null)[] | undefined;
  /** Polls of a log URL that answer 404 before it answers 200. Default 3. */
  logNotReadyPolls?: number | undefined;
  /** The log text. Default a few daemon lines. */
  logText?: string | undefined;
}

/** A running fake server. */
export interface FakeVastServer {
  /** Base URL, such as http://127.0.0.1:41234. */
  url: string;
  /** The accepted API key. */
  apiKey: string;
  /** Every request received, in order. */
  requests: RecordedRequest[];
  /** Offers (mutable). */
  offers: Record<string, unknown>[];
  /** Instances by id, in API shape (mutable). */
  instances: Map<number, Record<string, unknown>>;
  /** Queues a scripted failure. */
  failNext(failure: ScriptedFailure): void;
  /** Adds an instance record and returns its id. */
  addInstance(record?: Record<string, unknown>): number;
  /** Sets an instance's `actual_status` (and `status_msg`) and stops its boot sequence. */
  setInstanceStatus(id: number, status: string | null, statusMsg?: string): void;
  /** Requests to a path (exact pathname or RegExp), optionally by method. */
  requestsTo(path: string | RegExp, method?: string): RecordedRequest[];
  /**
   * Resolves once `count` (default 1) requests to `path` (by `method`, when given) have been
   * received, those before the call included; for tests: wait on this instead of sleeping.
   */
  whenRequested(
    path: string | RegExp,
    options?: { method?: string | undefined; count?: number | undefined },
  ): Promise<void>;
  /** Stops the server and drops open connections. */
  close(): Promise<void>;
}

interface Reply {
  status: number;
  body: unknown;
  text?: string | undefined;
  contentType?: string | undefined;
}

const defaultKey = "fake-vast-key-5f1c0d9e8b7a6c5d";

/** Starts the fake API on 127.0.0.1 with an ephemeral port. */
export async function startFakeVastServer(options: FakeVastServerOptions = {}): Promise<FakeVastServer> {
  const apiKey = options.apiKey ?? defaultKey;
  const offers = options.offers ?? sampleOffers();
  const bootSequence = options.bootSequence ?? [null, "loading", "running"];
  const logNotReadyPolls = options.logNotReadyPolls ?? 3;
  const logText = options.logText ?? "cuzk daemon starting\nloading SRS params\nready on 0.0.0.0:9820\n";
  const balance = options.balance ?? 100;
  // An endpoint given as undefined keeps its default interval; `false` turns them all off.
  const rateLimits: Partial<Record<FakeRateLimitedEndpoint, number>> =
    options.rateLimits === false ? {} : withDefaults(fakeRateLimitSeconds, options.rateLimits);
  const now = options.now ?? Date.now;
  const lastAccepted = new Map<FakeRateLimitedEndpoint, number>();
  const requests: RecordedRequest[] = [];
  /** Waits of whenRequested; each checks itself after every recorded request. */
  const requestWaiters = new Set<() => boolean>();
  const failures: (ScriptedFailure & { left: number })[] = [];
  const instances = new Map<number, Record<string, unknown>>();
  const bootStep = new Map<number, number>();
  const sshKeys: Record<string, unknown>[] = [];
  const logPolls = new Map<string, number>();
  let nextInstanceId = 7_000_001;
  let nextKeyId = 1;
  let nextLogToken = 1;
  let url = "";

  function addInstance(record: Record<string, unknown> = {}): number {
    const id = typeof record.id === "number" ? record.id : nextInstanceId++;
    instances.set(id, {
      id,
      label: null,
      actual_status: "running",
      intended_status: "running",
      cur_state: "running",
      status_msg: "success, running",
      machine_id: 501,
      gpu_name: "RTX 4090",
      num_gpus: 1,
      gpu_ram: 24564,
      gpu_totalram: 24564,
      cpu_ram: 125_000,
      cpu_cores_effective: 8,
      disk_space: 50,
      dph_total: 0.4,
      is_bid: false,
      ssh_host: "ssh5.vast.ai",
      ssh_port: 30000 + (id % 10000),
      public_ipaddr: "203.0.113.7",
      ports: { "22/tcp": [{ HostIp: "0.0.0.0", HostPort: "40022" }] },
      image_uuid: "ubuntu:22.04",
      start_date: 1_760_000_000,
      ...record,
    });
    return id;
  }

  function authorised(headers: IncomingHttpHeaders): boolean {
    return headers.authorization === `Bearer ${apiKey}`;
  }

  function handle(
    method: string,
    path: string,
    query: Record<string, string>,
    body: unknown,
    headers: IncomingHttpHeaders,
  ): Reply {
    // The S3-like log download: no API auth, and an Authorization header is an error.
    const logMatch = /^\/s3\/logs\/([\w-]+)$/.exec(path);
    if (logMatch && method === "GET") {
      if (headers.authorization !== undefined) {
        return s3Error(
          400,
          "InvalidArgument",
          "Only one auth mechanism allowed; only the X-Amz-Algorithm query parameter...",
        );
      }
      const token = logMatch[1]!;
      if (!logPolls.has(token)) return s3Error(403, "AccessDenied", "Access Denied");
      const polls = (logPolls.get(token) ?? 0) + 1;
      logPolls.set(token, polls);
      if (polls <= logNotReadyPolls) return s3Error(404, "NoSuchKey", "The specified key does not exist.");
      return { status: 200, body: undefined, text: logText, contentType: "text/plain" };
    }
    if (!path.startsWith("/api/"))
      return { status: 404, body: undefined, text: "<html>Not Found</html>", contentType: "text/html" };
    if (!authorised(headers)) {
      // A bad key on /bundles/ comes back as 404, elsewhere as 401.
      const status = path === "/api/v0/bundles/" ? 404 : 401;
      return { status, body: { success: false, error: "auth_error", msg: "Invalid user key" } };
    }

    const limited = rateLimited(method, path);
    if (limited) return limited;

    if (method === "POST" && path === "/api/v0/bundles/")
      return { status: 200, body: { offers: searchOffers(body) } };

    const ask = /^\/api\/v0\/asks\/(\d+)\/$/.exec(path);
    if (ask && method === "PUT") return createInstance(Number(ask[1]), body);

    if (path === "/api/v0/instances/" && method === "GET") {
      return {
        status: 410,
        body: {
          success: false,
          error: "deprecated_endpoint",
          msg: "/api/v0/instances/ is deprecated. Use /api/v1/instances/ instead.",
        },
      };
    }
    if (path === "/api/v1/instances/" && method === "GET") return listInstances(query);

    const reboot = /^\/api\/v0\/instances\/reboot\/(\d+)\/$/.exec(path);
    if (reboot && method === "PUT") {
      const record = instances.get(Number(reboot[1]));
      if (!record) return notFound();
      record.actual_status = "running";
      return { status: 200, body: { success: true } };
    }
    const logs = /^\/api\/v0\/instances\/request_logs\/(\d+)\/$/.exec(path);
    if (logs && method === "PUT") {
      // The real API answers 200 with success:false for a gone instance here.
      if (!instances.has(Number(logs[1])))
        return { status: 200, body: { success: false, msg: "Instance not found" } };
      const token = `log-${nextLogToken++}`;
      logPolls.set(token, 0);
      return {
        status: 200,
        body: {
          success: true,
          result_url: `${url}/s3/logs/${token}?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=0123abcd`,
          msg: "Logs request queued",
        },
      };
    }
    const attach = /^\/api\/v0\/instances\/(\d+)\/ssh\/$/.exec(path);
    if (attach && method === "POST") {
      if (!instances.has(Number(attach[1]))) return notFound();
      return { status: 200, body: { success: true, msg: "SSH key attached" } };
    }
    const one = /^\/api\/v0\/instances\/(\d+)\/$/.exec(path);
    if (one) {
      const id = Number(one[1]);
      const record = instances.get(id);
      if (method === "GET") {
        if (record && bootStep.has(id)) {
          const step = bootStep.get(id)!;
          record.actual_status = bootSequence[Math.min(step, bootSequence.length - 1)] ?? null;
          bootStep.set(id, step + 1);
        }
        return { status: 200, body: { instances: record ?? null } };
      }
      if (!record) return notFound();
      if (method === "PUT") {
        const change = isRecord(body) ? body : {};
        if (typeof change.state === "string") {
          record.intended_status = change.state;
          record.actual_status = change.state;
          bootStep.delete(id);
        }
        if (typeof change.label === "string") record.label = change.label;
        return { status: 200, body: { success: true } };
      }
      if (method === "DELETE") {
        instances.delete(id);
        return { status: 200, body: { success: true } };
      }
    }
    if (path === "/api/v0/ssh/" && method === "GET") return { status: 200, body: sshKeys };
    if (path === "/api/v0/ssh/" && method === "POST") {
      const text = isRecord(body) ? body.ssh_key : undefined;
      if (typeof text !== "string")
        return { status: 400, body: { success: false, error: "invalid_args", msg: "ssh_key required" } };
      const key = {
        id: nextKeyId++,
        user_id: 42,
        public_key: text,
        created_at: "2026-01-01T00:00:00Z",
        deleted_at: null,
      };
      sshKeys.push(key);
      return { status: 200, body: { success: true, key } };
    }
    if ((path === "/api/v0/users/current/" || path === "/api/v0/users/current") && method === "GET") {
      return {
        status: 200,
        body: {
          id: 42,
          email: "operator@example.com",
          balance,
          credit: 5,
          api_key: apiKey,
          sid: "s-1",
          username: "op",
        },
      };
    }
    return { status: 404, body: undefined, text: "<html>Not Found</html>", contentType: "text/html" };
  }

  function rateLimitedEndpoint(method: string, path: string): FakeRateLimitedEndpoint | undefined {
    if (method === "PUT" && /^\/api\/v0\/asks\/\d+\/$/.test(path)) return "createInstance";
    if (/^\/api\/v0\/instances\/\d+\/$/.test(path)) {
      if (method === "DELETE") return "destroyInstance";
      if (method === "GET") return "showInstance";
    }
    if (method === "GET" && path === "/api/v1/instances/") return "listInstances";
    return undefined;
  }

  function rateLimited(method: string, path: string): Reply | undefined {
    const endpoint = rateLimitedEndpoint(method, path);
    const seconds = endpoint === undefined ? undefined : rateLimits[endpoint];
    if (endpoint === undefined || seconds === undefined || seconds <= 0) return undefined;
    const at = now();
    const last = lastAccepted.get(endpoint);
    if (last !== undefined && at - last < seconds * 1000) {
      return {
        status: 429,
        body: undefined,
        text: `API requests too frequent endpoint threshold=${seconds.toFixed(1)}`,
        contentType: "text/plain",
      };
    }
    lastAccepted.set(endpoint, at);
    return undefined;
  }

  function notFound(): Reply {
    return { status: 404, body: { success: false, error: "not_found", msg: "Instance not found" } };
  }

  function searchOffers(query: unknown): Record<string, unknown>[] {
    const q = isRecord(query) ? query : {};
    let result = offers.filter((offer) =>
      matchesAll(offerView(offer), q, ["order", "type", "limit", "allocated_storage", "disable_bundling"]),
    );
    const order = Array.isArray(q.order) ? (q.order as [string, string][]) : [["score", "desc"]];
    result = [...result].sort((a, b) => {
      for (const [field, dir] of order) {
        const x = a[String(field)] as number;
        const y = b[String(field)] as number;
        if (x !== y) return (x < y ? -1 : 1) * (dir === "desc" ? -1 : 1);
      }
      return 0;
    });
    if (typeof q.limit === "number") result = result.slice(0, q.limit);
    return result;
  }

  function createInstance(offerId: number, body: unknown): Reply {
    const offer = offers.find((o) => o.id === offerId);
    if (!offer) {
      return {
        status: 404,
        body: {
          success: false,
          error: "no_such_ask",
          msg: `Instance type by id ${offerId} is not available.`,
        },
      };
    }
    if (balance <= 0)
      return {
        status: 411,
        body: { success: false, error: "insufficient_credit", msg: "Insufficient credit" },
      };
    const request = isRecord(body) ? body : {};
    if (typeof request.image !== "string" || request.image === "") {
      return { status: 400, body: { success: false, error: "invalid_args", msg: "image is required" } };
    }
    // Vast.ai accepts a second purchase of the same offer: no check of `rented` here.
    offer.rented = true;
    const id = addInstance({
      label: typeof request.label === "string" ? request.label : null,
      actual_status: bootSequence[0] ?? null,
      status_msg: "pulling image",
      machine_id: offer.machine_id,
      gpu_name: offer.gpu_name,
      num_gpus: offer.num_gpus,
      gpu_ram: offer.gpu_ram,
      cpu_ram: offer.cpu_ram,
      disk_space: request.disk,
      dph_total: offer.dph_total,
      is_bid: typeof request.price === "number",
      image_uuid: request.image,
      extra_env: isRecord(request.env) ? Object.entries(request.env) : [],
    });
    bootStep.set(id, 0);
    return { status: 200, body: { success: true, new_contract: id, instance_api_key: `inst-key-${id}` } };
  }

  function listInstances(query: Record<string, string>): Reply {
    let filters: unknown = {};
    let afterId = 0;
    try {
      if (query.select_filters) filters = JSON.parse(query.select_filters);
      if (query.after_token) {
        const decoded = /^after:(\d+)$/.exec(Buffer.from(query.after_token, "base64url").toString("utf8"));
        if (!decoded) throw new Error("bad token");
        afterId = Number(decoded[1]);
      }
    } catch {
      return {
        status: 400,
        body: { success: false, error: "invalid_args", msg: "bad select_filters or after_token" },
      };
    }
    let limit = query.limit === undefined ? 25 : Number(query.limit);
    if (!(limit > 0)) limit = 5;
    limit = Math.min(limit, 25);
    const all = [...instances.values()].sort((a, b) => (a.id as number) - (b.id as number));
    const matching = all.filter((record) => matchesAll(record, isRecord(filters) ? filters : {}, []));
    const after = matching.filter((r) => (r.id as number) > afterId);
    const page = after.slice(0, limit);
    const more = after.length > page.length;
    const labelCounts: Record<string, number> = {};
    for (const r of all) {
      const label = typeof r.label === "string" ? r.label : "";
      labelCounts[label] = (labelCounts[label] ?? 0) + 1;
    }
    const last = page.at(-1);
    return {
      status: 200,
      body: {
        success: true,
        instances_found: matching.length,
        total_instances: all.length,
        label_counts: labelCounts,
        next_token: more && last ? Buffer.from(`after:${last.id}`).toString("base64url") : null,
        instances: page,
      },
    };
  }

  function takeFailure(method: string, path: string): ScriptedFailure | undefined {
    const index = failures.findIndex(
      (f) =>
        (f.method === undefined || f.method.toUpperCase() === method) &&
        (typeof f.path === "string" ? f.path === path : f.path.test(path)),
    );
    if (index < 0) return undefined;
    const failure = failures[index]!;
    failure.left--;
    if (failure.left <= 0) failures.splice(index, 1);
    return failure;
  }

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const method = req.method ?? "GET";
      const parsed = new URL(req.url ?? "/", "http://fake");
      const text = Buffer.concat(chunks).toString("utf8");
      let body: unknown;
      try {
        body = text === "" ? undefined : JSON.parse(text);
      } catch {
        body = undefined;
      }
      const query = Object.fromEntries(parsed.searchParams.entries());
      requests.push({
        method,
        path: parsed.pathname,
        url: req.url ?? "/",
        query,
        headers: req.headers,
        body,
        at: now(),
      });
      for (const satisfied of [...requestWaiters]) if (satisfied()) requestWaiters.delete(satisfied);
      const failure = takeFailure(method, parsed.pathname);
      const mode = failure?.mode ?? "respond";
      if (failure && mode === "hang") return;
      if (failure && mode === "drop-before") {
        req.socket.destroy();
        return;
      }
      if (failure && mode === "respond") {
        const token = (req.headers.authorization ?? "").replace(/^Bearer\s+/i, "");
        const payload = failure.body ?? {
          success: false,
          error: "server_error",
          msg: "Internal Server Error",
        };
        const raw = typeof payload === "string" ? payload : JSON.stringify(payload);
        send(res, {
          status: failure.status ?? 500,
          body: undefined,
          text: raw.split("{{key}}").join(token),
          contentType: typeof payload === "string" ? "text/plain" : "application/json",
        });
        return;
      }
      const reply = handle(method, parsed.pathname, query, body, req.headers);
      if (failure && mode === "drop-after") {
        req.socket.destroy();
        return;
      }
      send(res, reply);
    });
  });

  const requestsTo = (path: string | RegExp, method?: string) =>
    requests.filter(
      (r) =>
        (method === undefined || r.method === method) &&
        (typeof path === "string" ? r.path === path : path.test(r.path)),
    );

  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address() as AddressInfo;
  url = `http://127.0.0.1:${address.port}`;

  return {
    url,
    apiKey,
    requests,
    offers,
    instances,
    failNext(failure) {
      failures.push({ ...failure, left: failure.times ?? 1 });
    },
    addInstance,
    setInstanceStatus(id, status, statusMsg) {
      const record = instances.get(id);
      if (!record) throw new Error(`no instance ${id}`);
      record.actual_status = status;
      if (statusMsg !== undefined) record.status_msg = statusMsg;
      bootStep.delete(id);
    },
    requestsTo,
    whenRequested(path, options = {}) {
      const wanted = options.count ?? 1;
      const satisfied = () => requestsTo(path, options.method).length >= wanted;
      if (satisfied()) return Promise.resolve();
      return new Promise<void>((resolve) => {
        requestWaiters.add(() => {
          if (!satisfied()) return false;
          resolve();
          return true;
        });
      });
    },
    close() {
      return new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      });
    },
  };
}

function send(res: ServerResponse, reply: Reply): void {
  const text = reply.text ?? JSON.stringify(reply.body);
  res.writeHead(reply.status, { "Content-Type": reply.contentType ?? "application/json" });
  res.end(text);
}

function s3Error(status: number, code: string, message: string): Reply {
  return {
    status,
    body: undefined,
    text: `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`,
    contentType: "application/xml",
  };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Offer columns the server computes: `verified` and `datacenter`. */
function offerView(offer: Record<string, unknown>): Record<string, unknown> {
  return {
    ...offer,
    verified: offer.verification === "verified",
    datacenter: offer.hosting_type === 1,
    reliability: offer.reliability ?? offer.reliability2,
  };
}

function matchesAll(
  record: Record<string, unknown>,
  query: Record<string, unknown>,
  reserved: string[],
): boolean {
  for (const [field, condition] of Object.entries(query)) {
    if (reserved.includes(field) || !isRecord(condition)) continue;
    if (!(field in record)) continue; // a column this record lacks: the fake ignores it
    const value = record[field];
    for (const [op, operand] of Object.entries(condition)) {
      if (!compare(value, op, operand)) return false;
    }
  }
  return true;
}

function compare(value: unknown, op: string, operand: unknown): boolean {
  switch (op) {
    case "eq":
      return value === operand;
    case "neq":
      return value !== operand;
    case "gt":
      return (value as number) > (operand as number);
    case "gte":
      return (value as number) >= (operand as number);
    case "lt":
      return (value as number) < (operand as number);
    case "lte":
      return (value as number) <= (operand as number);
    case "in":
      return Array.isArray(operand) && operand.includes(value);
    case "notin":
      return Array.isArray(operand) && !operand.includes(value);
    default:
      return false;
  }
}
