import {
  type VastApiError,
  VastAuthError,
  VastBadRequestError,
  VastEndpointGoneError,
  type VastErrorDetails,
  VastInsufficientCreditError,
  VastNotFoundError,
  VastOfferGoneError,
  VastRateLimitedError,
  VastServerError,
  VastUnexpectedStatusError,
  VastUnsuccessfulError,
} from "./errors.js";
import { isObject } from "./guards.js";

/** What the classifier needs to know about one response. */
export interface ResponseFacts {
  /** Method and path, such as `PUT /api/v0/asks/123/`. */
  endpoint: string;
  /** HTTP status. */
  status: number;
  /** The parsed JSON body, or undefined when it was not JSON. */
  body: unknown;
  /** The raw body text (already redacted). */
  text: string;
  /** True for an instance create, where 404/410 mean "offer gone". */
  isCreate: boolean;
}

const maxMessageChars = 300;

/** The server's message from any of the shapes Vast.ai uses: `msg`, `message`, `detail`, or plain text. */
export function serverMessageOf(body: unknown, text: string): string | undefined {
  if (isObject(body)) {
    for (const key of ["msg", "message", "detail", "error"]) {
      const value = body[key];
      if (typeof value === "string" && value.trim() !== "") return clip(value.trim());
    }
    return undefined;
  }
  const trimmed = text.trim();
  if (trimmed === "" || trimmed.startsWith("<")) return undefined; // empty, or an HTML error page
  return clip(trimmed);
}

function clip(text: string): string {
  return text.length > maxMessageChars ? `${text.slice(0, maxMessageChars)}...` : text;
}

/** True when a body says `success: false`. */
export function saysUnsuccessful(body: unknown): boolean {
  return isObject(body) && body.success === false;
}

/**
 * Turns a failed response into the error class that says what it means, not just its status:
 * a 404 "Invalid user key" is an auth error, a 404/410 on create means the offer is gone, and
 * a 200 with `success:false` is an error too. Returns undefined for a successful response.
 */
export function classifyResponse(facts: ResponseFacts): VastApiError | undefined {
  const { status, body, endpoint, isCreate } = facts;
  const ok = status >= 200 && status < 300;
  if (ok && !saysUnsuccessful(body)) return undefined;
  const serverMessage = serverMessageOf(body, facts.text);
  const serverError = isObject(body) && typeof body.error === "string" ? body.error : undefined;
  const details: VastErrorDetails = { endpoint, status };
  if (serverMessage !== undefined) details.serverMessage = serverMessage;
  if (serverError !== undefined) details.serverError = serverError;
  const said = serverMessage ?? "";
  const message = `Vast.ai ${endpoint} failed with ${status}${serverError ? ` ${serverError}` : ""}${
    serverMessage ? `: ${serverMessage}` : ""
  }`;

  if (
    status === 401 ||
    status === 403 ||
    serverError === "auth_error" ||
    /invalid user key|session expired/i.test(said)
  ) {
    return new VastAuthError(message, details);
  }
  if (
    isCreate &&
    (status === 404 ||
      status === 410 ||
      serverError === "no_such_ask" ||
      /no longer available|is not available/i.test(said))
  ) {
    return new VastOfferGoneError(message, details);
  }
  if (status === 404) return new VastNotFoundError(message, details);
  // A 200 with success:false that says "not found" (logs of a destroyed instance) is a not-found.
  if (ok && /not found|no longer exists|does not exist/i.test(said))
    return new VastNotFoundError(message, details);
  if (status === 410) return new VastEndpointGoneError(message, details);
  if (
    status === 402 ||
    status === 411 ||
    serverError === "insufficient_credit" ||
    /insufficient credit/i.test(said)
  ) {
    return new VastInsufficientCreditError(message, details);
  }
  if (status === 429 || serverError === "rate_limit_exceeded") {
    return new VastRateLimitedError(message, { ...details, thresholdMs: rateLimitThresholdMs(facts.text) });
  }
  if (status >= 500) return new VastServerError(message, details);
  if (ok) return new VastUnsuccessfulError(message, details);
  if (status >= 400) return new VastBadRequestError(message, details);
  return new VastUnexpectedStatusError(message, details);
}

/**
 * The minimum interval a 429 body names, in ms: `API requests too frequent endpoint threshold=4.5`
 * (docs PR vast-ai/docs#61 says the number is seconds). Undefined when the body names none.
 */
export function rateLimitThresholdMs(text: string): number | undefined {
  const match = /threshold\s*[=:]\s*"?(\d+(?:\.\d+)?)/i.exec(text);
  if (!match) return undefined;
  const seconds = Number(match[1]);
  return Number.isFinite(seconds) && seconds > 0 && seconds <= 600 ? Math.round(seconds * 1000) : undefined;
}
