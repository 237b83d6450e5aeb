import { VastMalformedResponseError } from "./errors.js";

/** Options every call takes. */
export interface CallOptions {
  /** Cancels the call, its retries and its waits. */
  signal?: AbortSignal | undefined;
  /** Timeout of each HTTP attempt of this call, in ms. Default: the client's `timeoutMs` (60000). */
  timeoutMs?: number | undefined;
}

/** The error for a body that is not of the documented shape. */
export function malformedResponse(
  method: string,
  path: string,
  expected: string,
): VastMalformedResponseError {
  const endpoint = `${method} ${path.split("?")[0]}`;
  return new VastMalformedResponseError(`Vast.ai ${endpoint} answered in an unexpected shape: ${expected}`, {
    endpoint,
  });
}
