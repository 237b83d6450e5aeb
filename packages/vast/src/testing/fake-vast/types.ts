import type { IncomingHttpHeaders } from "node:http";

// The public shapes of the fake Vast.ai server: its options, the server handle, scripted
// failures, recorded requests, and the rate limits it enforces.

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

/** One answer of the fake. */
export interface Reply {
  status: number;
  body: unknown;
  text?: string | undefined;
  contentType?: string | undefined;
}
