import { type Logger, linkSignals, retry } from "@cuzkit/core";
import { type ApiKeyResolution, type ApiKeySource, resolveApiKey } from "./api-key.js";
import { classifyResponse } from "./classify.js";
import type { VastEndpointName } from "./endpoints.js";
import {
  VastAbortedError,
  VastApiError,
  VastMalformedResponseError,
  VastMissingApiKeyError,
  VastNetworkError,
  VastRateLimitedError,
  VastTimeoutError,
} from "./errors.js";
import type { ResolvedVastOptions } from "./options.js";
import { createRateLimiter } from "./rate-limit.js";
import { createRedactor, redactingLogger, sanitizeCause, systemCode } from "./redact.js";

/** HTTP methods the API uses. */
export type HttpMethod = "GET" | "POST" | "PUT" | "DELETE";

/** One API call. */
export interface ApiRequest {
  /** Which endpoint, for rate limits and logs. */
  endpoint: VastEndpointName;
  method: HttpMethod;
  /** Path with its trailing slash, such as `/api/v0/instances/1/`. */
  path: string;
  /** Query parameters; non-strings are sent as JSON, as the API expects. */
  query?: Record<string, unknown> | undefined;
  /** JSON body. */
  body?: unknown | undefined;
  /** Whether the call may be replayed after any retryable failure. Never true for a create (a 429 is still retried: it was not executed). */
  idempotent: boolean;
  /** Classify 404/410 as "offer gone" (instance create only). */
  isCreate?: boolean | undefined;
  /** Cancels the call (and its retries). */
  signal?: AbortSignal | undefined;
  /** Per-attempt timeout in ms; default the client's timeoutMs. */
  timeoutMs?: number | undefined;
}

/** A response from an unauthenticated URL (the S3 log file). */
export interface PublicResponse {
  status: number;
  text: string;
}

/** The client's HTTP machinery: key, rate limits, timeouts, retries, classification. */
export interface Transport {
  /** Sends an authenticated API call and returns the parsed JSON body of a successful response. */
  request(request: ApiRequest): Promise<unknown>;
  /** GETs a URL WITHOUT the Authorization header (S3 result URLs reject it). One attempt. */
  fetchPublic(url: string, signal?: AbortSignal, timeoutMs?: number): Promise<PublicResponse>;
  /** Removes secrets from a text. */
  redact(text: string): string;
  /** Where the key came from, once resolved. */
  keySource(): ApiKeySource | undefined;
  /** The options in effect. */
  options: ResolvedVastOptions;
  /** The caller's logger, with secrets removed from every line. */
  logger: Logger;
}

/** Method and path, without query: what errors and logs call an endpoint. */
export function describeEndpoint(method: string, path: string): string {
  return `${method} ${path.split("?")[0]}`;
}

/** Serialises query parameters the way the API reads them: JSON for anything that is not a string. */
export function encodeQuery(query: Record<string, unknown> | undefined): string {
  if (query === undefined) return "";
  const parts: string[] = [];
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    const text = typeof value === "string" ? value : JSON.stringify(value);
    parts.push(`${encodeURIComponent(key)}=${encodeURIComponent(text)}`);
  }
  return parts.length === 0 ? "" : `?${parts.join("&")}`;
}

/** Builds the transport from resolved options. The key is looked up at the first authenticated call. */
export function createTransport(options: ResolvedVastOptions): Transport {
  let key: string | undefined;
  let source: ApiKeySource | undefined;
  let keyLookup: Promise<ApiKeyResolution> | undefined;
  const redact = createRedactor(() => (key === undefined ? [] : [key]));
  const logger = redactingLogger(options.logger, redact);
  const limiter = createRateLimiter(options.limits, options.clock, options.sleep, (endpoint, waitMs) =>
    logger.debug("vast pacing: waiting before the next call", { endpoint, waitMs }),
  );

  async function apiKey(endpoint: string): Promise<string> {
    if (key !== undefined) return key;
    keyLookup ??= resolveApiKey({ apiKey: options.apiKey, env: options.env, homeDir: options.homeDir });
    const found = await keyLookup;
    if (found.key === undefined) {
      keyLookup = undefined; // a key file written later is picked up by the next call
      throw new VastMissingApiKeyError(`no Vast.ai API key found (looked in: ${found.searched.join(", ")})`, {
        endpoint,
        searched: found.searched,
      });
    }
    key = found.key;
    source = found.source;
    logger.debug("vast api key resolved", { source });
    return key;
  }

  async function attempt(request: ApiRequest, attemptNumber: number): Promise<unknown> {
    const endpoint = describeEndpoint(request.method, request.path);
    const secret = await apiKey(endpoint);
    const headers: Record<string, string> = {
      Authorization: `Bearer ${secret}`,
      Accept: "application/json",
      "User-Agent": options.userAgent,
    };
    let body: string | undefined;
    if (request.body !== undefined) {
      headers["Content-Type"] = "application/json";
      body = JSON.stringify(request.body);
    }
    const url = `${options.baseUrl}${request.path}${encodeQuery(request.query)}`;
    logger.debug("vast request", { endpoint, attempt: attemptNumber });
    const { status, text } = await send(
      endpoint,
      url,
      { method: request.method, headers, body },
      request.signal,
      request.timeoutMs ?? options.timeoutMs,
    );
    const safeText = redact(text);
    let parsed: unknown;
    if (safeText.trim() !== "") {
      try {
        parsed = JSON.parse(safeText);
      } catch {
        parsed = undefined;
      }
    }
    logger.debug("vast response", { endpoint, status });
    const failure = classifyResponse({
      endpoint,
      status,
      body: parsed,
      text: safeText,
      isCreate: request.isCreate === true,
    });
    if (failure) throw failure;
    if (parsed === undefined) {
      throw new VastMalformedResponseError(`Vast.ai ${endpoint} answered ${status} without a JSON body`, {
        endpoint,
        status,
      });
    }
    return parsed;
  }

  /** One fetch with the attempt timeout; maps every failure to a typed, redacted error. */
  async function send(
    endpoint: string,
    url: string,
    init: { method: string; headers: Record<string, string>; body: string | undefined },
    userSignal: AbortSignal | undefined,
    timeoutMs: number,
  ): Promise<PublicResponse> {
    const timeout = AbortSignal.timeout(timeoutMs);
    const linked = linkSignals(userSignal, timeout);
    try {
      const response = await options.fetch(url, {
        method: init.method,
        headers: init.headers,
        body: init.body ?? null,
        signal: linked.signal,
        redirect: "manual", // a redirect must not carry the key to another host
      });
      const text = await response.text();
      return { status: response.status, text };
    } catch (error) {
      if (userSignal?.aborted) {
        throw new VastAbortedError(`Vast.ai ${endpoint} was cancelled`, {
          endpoint,
          cause: sanitizeCause(error, redact),
        });
      }
      if (timeout.aborted) {
        throw new VastTimeoutError(`Vast.ai ${endpoint} got no answer within ${timeoutMs} ms`, {
          endpoint,
          cause: sanitizeCause(error, redact),
        });
      }
      const code = systemCode(error);
      const reason = redact(error instanceof Error ? error.message : String(error));
      throw new VastNetworkError(
        `Vast.ai ${endpoint} failed before a response: ${reason}${code ? ` (${code})` : ""}`,
        {
          endpoint,
          cause: sanitizeCause(error, redact),
        },
      );
    } finally {
      linked.dispose();
    }
  }

  /**
   * Whether a failed attempt is repeated. A retryable error is, on an idempotent call; a 429 is
   * on every call, a create included, since Vast.ai did not execute it (vast-cli retries it too).
   */
  function mayRepeat(request: ApiRequest, error: unknown): error is VastApiError {
    if (!(error instanceof VastApiError) || !error.retryable) return false;
    return request.idempotent || error instanceof VastRateLimitedError;
  }

  async function request(request: ApiRequest): Promise<unknown> {
    const endpoint = describeEndpoint(request.method, request.path);
    const once = (attemptNumber: number) =>
      limiter.schedule(request.endpoint, () => attempt(request, attemptNumber), request.signal);
    const policy = options.retry;
    try {
      if (policy === false || policy.retries === 0) return await once(1);
      return await retry(once, {
        ...policy,
        maxAttempts: policy.retries + 1,
        shouldRetry: (error) => mayRepeat(request, error),
        // Wait at least the interval a 429 names: retrying sooner only earns another 429.
        delayFor: (error, backoffMs) =>
          Math.max(backoffMs, error instanceof VastRateLimitedError ? (error.thresholdMs ?? 0) : 0),
        onRetry: ({ error, attempt, maxAttempts, delayMs }) => {
          const failed = error as VastApiError;
          logger.warn("vast call failed, retrying", {
            endpoint,
            code: failed.code,
            status: failed.status,
            attempt,
            of: maxAttempts,
            delayMs,
            thresholdMs: error instanceof VastRateLimitedError ? error.thresholdMs : undefined,
          });
        },
        signal: request.signal,
        clock: options.clock,
        sleep: options.sleep,
        random: options.random,
      });
    } catch (error) {
      if (error instanceof VastApiError) throw error;
      if (request.signal?.aborted) {
        throw new VastAbortedError(`Vast.ai ${endpoint} was cancelled`, {
          endpoint,
          cause: sanitizeCause(error, redact),
        });
      }
      throw error;
    }
  }

  async function fetchPublic(url: string, signal?: AbortSignal, timeoutMs?: number): Promise<PublicResponse> {
    const parsed = new URL(url);
    const endpoint = describeEndpoint("GET", `${parsed.origin}${parsed.pathname}`);
    return limiter.schedule(
      "logResult",
      () =>
        send(
          endpoint,
          url,
          { method: "GET", headers: { "User-Agent": options.userAgent }, body: undefined },
          signal,
          timeoutMs ?? options.timeoutMs,
        ),
      signal,
    );
  }

  return { request, fetchPublic, redact, keySource: () => source, options, logger };
}
