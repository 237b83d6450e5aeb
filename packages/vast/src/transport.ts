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
import { createRateLimiter, type RateLimiter } from "./rate-limit.js";
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

/** What the transport's steps share: the options, the key found so far, the redactor, the logger and the pacing. */
interface TransportContext {
  options: ResolvedVastOptions;
  /** The API key, once found (also what `redact` removes). */
  key: string | undefined;
  /** Where the key came from, once found. */
  source: ApiKeySource | undefined;
  /** The key search under way or done; cleared when it found none, so the next call searches again. */
  keyLookup: Promise<ApiKeyResolution> | undefined;
  redact: (text: string) => string;
  logger: Logger;
  limiter: RateLimiter;
}

/** The API key, searched for at the first call and kept; throws VastMissingApiKeyError when there is none. */
async function apiKey(ctx: TransportContext, endpoint: string): Promise<string> {
  if (ctx.key !== undefined) return ctx.key;
  const { options } = ctx;
  ctx.keyLookup ??= resolveApiKey({ apiKey: options.apiKey, env: options.env, homeDir: options.homeDir });
  const found = await ctx.keyLookup;
  if (found.key === undefined) {
    ctx.keyLookup = undefined; // a key file written later is picked up by the next call
    throw new VastMissingApiKeyError(`no Vast.ai API key found (looked in: ${found.searched.join(", ")})`, {
      endpoint,
      searched: found.searched,
    });
  }
  ctx.key = found.key;
  ctx.source = found.source;
  ctx.logger.debug("vast api key resolved", { source: ctx.source });
  return ctx.key;
}

/** The body as JSON, or undefined when it is empty or not JSON. */
function parseJson(text: string): unknown {
  if (text.trim() === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** One authenticated attempt of `request`: sends it, classifies the answer, returns its JSON body. */
async function attempt(ctx: TransportContext, request: ApiRequest, attemptNumber: number): Promise<unknown> {
  const { options, logger } = ctx;
  const endpoint = describeEndpoint(request.method, request.path);
  const secret = await apiKey(ctx, endpoint);
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
    ctx,
    endpoint,
    url,
    { method: request.method, headers, body },
    request.signal,
    request.timeoutMs ?? options.timeoutMs,
  );
  const safeText = ctx.redact(text);
  const parsed = parseJson(safeText);
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

/** The typed, redacted error of a fetch that failed before a response: cancelled, timed out, or a network failure. */
function sendFailure(
  ctx: TransportContext,
  endpoint: string,
  error: unknown,
  cancelled: boolean,
  timedOut: boolean,
  timeoutMs: number,
): VastApiError {
  const cause = sanitizeCause(error, ctx.redact);
  if (cancelled) return new VastAbortedError(`Vast.ai ${endpoint} was cancelled`, { endpoint, cause });
  if (timedOut) {
    return new VastTimeoutError(`Vast.ai ${endpoint} got no answer within ${timeoutMs} ms`, {
      endpoint,
      cause,
    });
  }
  const code = systemCode(error);
  const reason = ctx.redact(error instanceof Error ? error.message : String(error));
  return new VastNetworkError(
    `Vast.ai ${endpoint} failed before a response: ${reason}${code ? ` (${code})` : ""}`,
    { endpoint, cause },
  );
}

/** One fetch with the attempt timeout; maps every failure to a typed, redacted error. */
async function send(
  ctx: TransportContext,
  endpoint: string,
  url: string,
  init: { method: string; headers: Record<string, string>; body: string | undefined },
  userSignal: AbortSignal | undefined,
  timeoutMs: number,
): Promise<PublicResponse> {
  const timeout = AbortSignal.timeout(timeoutMs);
  const linked = linkSignals(userSignal, timeout);
  try {
    const response = await ctx.options.fetch(url, {
      method: init.method,
      headers: init.headers,
      body: init.body ?? null,
      signal: linked.signal,
      redirect: "manual", // a redirect must not carry the key to another host
    });
    const text = await response.text();
    return { status: response.status, text };
  } catch (error) {
    throw sendFailure(ctx, endpoint, error, userSignal?.aborted === true, timeout.aborted, timeoutMs);
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

/** Sends `request` paced by its endpoint's limit, repeating it under the retry policy when it may be. */
async function sendRequest(ctx: TransportContext, request: ApiRequest): Promise<unknown> {
  const { options, logger } = ctx;
  const endpoint = describeEndpoint(request.method, request.path);
  const once = (attemptNumber: number) =>
    ctx.limiter.schedule(request.endpoint, () => attempt(ctx, request, attemptNumber), request.signal);
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
        cause: sanitizeCause(error, ctx.redact),
      });
    }
    throw error;
  }
}

/** GETs a URL without the Authorization header, paced as a log fetch. One attempt. */
function fetchPublic(
  ctx: TransportContext,
  url: string,
  signal: AbortSignal | undefined,
  timeoutMs: number | undefined,
): Promise<PublicResponse> {
  const { options } = ctx;
  const parsed = new URL(url);
  const endpoint = describeEndpoint("GET", `${parsed.origin}${parsed.pathname}`);
  return ctx.limiter.schedule(
    "logResult",
    () =>
      send(
        ctx,
        endpoint,
        url,
        { method: "GET", headers: { "User-Agent": options.userAgent }, body: undefined },
        signal,
        timeoutMs ?? options.timeoutMs,
      ),
    signal,
  );
}

/** Builds the transport from resolved options. The key is looked up at the first authenticated call. */
export function createTransport(options: ResolvedVastOptions): Transport {
  const redact = createRedactor(() => (ctx.key === undefined ? [] : [ctx.key]));
  const logger = redactingLogger(options.logger, redact);
  const ctx: TransportContext = {
    options,
    key: undefined,
    source: undefined,
    keyLookup: undefined,
    redact,
    logger,
    limiter: createRateLimiter(options.limits, options.clock, options.sleep, (endpoint, waitMs) =>
      logger.debug("vast pacing: waiting before the next call", { endpoint, waitMs }),
    ),
  };
  return {
    request: (request) => sendRequest(ctx, request),
    fetchPublic: (url, signal, timeoutMs) => fetchPublic(ctx, url, signal, timeoutMs),
    redact,
    keySource: () => ctx.source,
    options,
    logger,
  };
}
