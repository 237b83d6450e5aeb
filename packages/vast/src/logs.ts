import { InvalidInputError } from "@cuzkit/core";
import { type CallOptions, malformedResponse } from "./call.js";
import { VastAbortedError, VastApiError, VastLogsTimeoutError, VastUnexpectedStatusError } from "./errors.js";
import { isObject } from "./guards.js";
import { checkInstanceId } from "./ids.js";
import type { Transport } from "./transport.js";

/** Options of `getLogs`. */
export interface GetLogsOptions extends CallOptions {
  /** Last lines to fetch. Default 1000 (the CLI's default). */
  tail?: number | undefined;
  /** A grep pattern the server applies. Default none. */
  filter?: string | undefined;
  /** Vast's daemon logs instead of the container's. Default false. */
  daemonLogs?: boolean | undefined;
  /** How long to wait for the log file to appear, in ms. Default 60000 (the official client gives up after ~9 s, too short for big logs). */
  pollTimeoutMs?: number | undefined;
  /** Wait between polls of the log file, in ms. Default 1000. */
  pollIntervalMs?: number | undefined;
}

/** Defaults of `getLogs`. */
export const defaultLogOptions = { tail: 1000, pollTimeoutMs: 60_000, pollIntervalMs: 1000 } as const;

/**
 * Fetches an instance's logs: asks for them (`PUT /api/v0/instances/request_logs/{id}/`),
 * then polls the S3 `result_url` WITHOUT the Authorization header (the key must not leave
 * for S3, and S3 rejects it) until it answers 200. 404/403/5xx and network errors mean "not
 * ready yet"; polling stops at `pollTimeoutMs` with VastLogsTimeoutError.
 */
export async function getLogs(
  transport: Transport,
  id: number,
  options: GetLogsOptions = {},
): Promise<string> {
  const { clock, sleep } = transport.options;
  const tail = options.tail ?? defaultLogOptions.tail;
  const pollTimeoutMs = options.pollTimeoutMs ?? defaultLogOptions.pollTimeoutMs;
  const pollIntervalMs = options.pollIntervalMs ?? defaultLogOptions.pollIntervalMs;
  if (!Number.isInteger(tail) || tail < 1)
    throw new InvalidInputError(`tail must be a whole number >= 1, got ${tail}`, { hint: "such as 200" });
  if (!(pollTimeoutMs >= 0) || !(pollIntervalMs > 0)) {
    throw new InvalidInputError("pollTimeoutMs must be >= 0 and pollIntervalMs > 0", {
      hint: "such as 60000 and 1000",
    });
  }
  const path = `/api/v0/instances/request_logs/${checkInstanceId(id)}/`;
  const body: Record<string, string> = { tail: String(tail) }; // the API wants a string
  if (options.filter !== undefined) body.filter = options.filter;
  if (options.daemonLogs === true) body.daemon_logs = "true";
  const answer = await transport.request({
    endpoint: "requestLogs",
    method: "PUT",
    path,
    body,
    idempotent: true,
    signal: options.signal,
    timeoutMs: options.timeoutMs,
  });
  const resultUrl = isObject(answer) ? answer.result_url : undefined;
  const target = parseHttpUrl(resultUrl);
  if (typeof resultUrl !== "string" || target === undefined) {
    throw malformedResponse("PUT", path, 'expected {"result_url": "https://..."}');
  }
  const endpoint = `GET ${target.origin}${target.pathname}`; // the query holds a presigned signature
  const deadline = clock.now() + pollTimeoutMs;
  let polls = 0;
  let lastState = "not polled";
  for (;;) {
    polls++;
    try {
      const response = await transport.fetchPublic(resultUrl, options.signal, options.timeoutMs);
      if (response.status === 200) return response.text;
      if (response.status !== 404 && response.status !== 403 && response.status < 500) {
        throw new VastUnexpectedStatusError(`the log file at ${endpoint} answered ${response.status}`, {
          endpoint,
          status: response.status,
        });
      }
      lastState = `status ${response.status}`;
    } catch (error) {
      if (error instanceof VastAbortedError || options.signal?.aborted) throw aborted(endpoint, error);
      if (error instanceof VastUnexpectedStatusError || !(error instanceof VastApiError) || !error.retryable)
        throw error;
      lastState = error.code;
    }
    if (clock.now() + pollIntervalMs > deadline) {
      throw new VastLogsTimeoutError(
        `the logs of instance ${id} were not ready after ${polls} polls in ${pollTimeoutMs} ms (last: ${lastState})`,
        { endpoint },
      );
    }
    transport.logger.debug("vast logs not ready, polling again", {
      endpoint,
      polls,
      last: lastState,
      waitMs: pollIntervalMs,
    });
    try {
      await sleep(pollIntervalMs, options.signal);
    } catch (error) {
      throw aborted(endpoint, error);
    }
  }
}

function aborted(endpoint: string, cause: unknown): VastAbortedError {
  if (cause instanceof VastAbortedError) return cause;
  return new VastAbortedError(`waiting for ${endpoint} was cancelled`, { endpoint });
}

function parseHttpUrl(value: unknown): URL | undefined {
  if (typeof value !== "string") return undefined;
  try {
    const url = new URL(value);
    return url.protocol === "https:" || url.protocol === "http:" ? url : undefined;
  } catch {
    return undefined;
  }
}
