import { CuzkitError } from "@cuzkit/core";

/** Stable codes of the Vast.ai client's errors (ABORTED and DEADLINE_EXCEEDED shared with the other packages). */
export const vastErrorCodes = [
  "ABORTED",
  "VAST_AUTH",
  "VAST_BAD_REQUEST",
  "VAST_CREATE_UNCERTAIN",
  "VAST_DUPLICATE_RENT",
  "VAST_ENDPOINT_GONE",
  "VAST_INSTANCE_FAILED",
  "VAST_INSUFFICIENT_CREDIT",
  "VAST_LOGS_TIMEOUT",
  "VAST_MALFORMED_RESPONSE",
  "VAST_NETWORK",
  "VAST_NOT_FOUND",
  "VAST_NO_API_KEY",
  "VAST_OFFER_GONE",
  "VAST_RATE_LIMITED",
  "VAST_SERVER_ERROR",
  "DEADLINE_EXCEEDED",
  "VAST_UNEXPECTED_STATUS",
  "VAST_UNSUCCESSFUL",
  "VAST_WAIT_TIMEOUT",
] as const;
/** A stable code of a Vast.ai client error. */
export type VastErrorCode = (typeof vastErrorCodes)[number];

/** What every Vast.ai error carries besides code, message, hint and retryable. */
export interface VastErrorDetails {
  /** Method and path of the call, without query string: `PUT /api/v0/asks/123/`. */
  endpoint: string;
  /** HTTP status, when a response arrived. */
  status?: number | undefined;
  /** The server's `msg` (or `message`/`detail`/plain-text body), with secrets removed. */
  serverMessage?: string | undefined;
  /** The server's machine code (`error` field), such as `no_such_ask` or `auth_error`. */
  serverError?: string | undefined;
  /** Overrides the class's default hint. */
  hint?: string | undefined;
  /** Overrides the class's default retryable flag. */
  retryable?: boolean | undefined;
  /** The underlying error (already sanitised: no secrets). */
  cause?: unknown | undefined;
}

/**
 * Base class of every error from a Vast.ai call. Branch on the subclass or on `code`; both
 * are stable. Nothing in it ever holds the API key.
 */
export class VastApiError<Code extends VastErrorCode = VastErrorCode> extends CuzkitError<Code> {
  /** Method and path of the call, without query string. */
  readonly endpoint: string;
  /** HTTP status, when a response arrived. */
  readonly status: number | undefined;
  /** The server's message, secrets removed. */
  readonly serverMessage: string | undefined;
  /** The server's machine code (`error` field). */
  readonly serverError: string | undefined;

  constructor(message: string, options: VastErrorDetails & { code: Code }) {
    super(message, options);
    this.endpoint = options.endpoint;
    this.status = options.status;
    this.serverMessage = options.serverMessage;
    this.serverError = options.serverError;
  }
}

/** A subclass's options: its code, and its default hint and retryable unless the caller gave them. */
function classDefaults<Code extends VastErrorCode>(
  details: VastErrorDetails,
  code: Code,
  defaults: ErrorDefaults,
): VastErrorDetails & { code: Code } {
  return {
    ...details,
    code,
    hint: details.hint ?? defaults.hint ?? "",
    retryable: details.retryable ?? defaults.retryable ?? false,
  };
}

interface ErrorDefaults {
  hint?: string | undefined;
  retryable?: boolean | undefined;
}

const keyHowTo =
  "pass the apiKey option, set VAST_API_KEY, or save the key with `vastai set api-key KEY` (it writes " +
  "$XDG_CONFIG_HOME/vastai/vast_api_key, default ~/.config/vastai/vast_api_key)";

/** No API key in the options, VAST_API_KEY, or the key files. Raised at the first call that needs one. */
export class VastMissingApiKeyError extends VastApiError<"VAST_NO_API_KEY"> {
  /** Where the key was looked for, in order. */
  readonly searched: readonly string[];

  constructor(message: string, details: VastErrorDetails & { searched: readonly string[] }) {
    super(message, classDefaults(details, "VAST_NO_API_KEY", { hint: keyHowTo }));
    this.searched = details.searched;
  }
}

/** 401/403, or the 404 "Invalid user key" / `auth_error` some endpoints send for a bad key. */
export class VastAuthError extends VastApiError<"VAST_AUTH"> {
  constructor(message: string, details: VastErrorDetails) {
    super(
      message,
      classDefaults(details, "VAST_AUTH", {
        hint: `check the API key (wrong, revoked, or missing a permission such as instance_write): ${keyHowTo}`,
      }),
    );
  }
}

/** 404 for an id that does not exist (or no longer does). */
export class VastNotFoundError extends VastApiError<"VAST_NOT_FOUND"> {
  constructor(message: string, details: VastErrorDetails) {
    super(
      message,
      classDefaults(details, "VAST_NOT_FOUND", {
        hint: "check the id; the instance may have been destroyed (listInstances() lists yours)",
      }),
    );
  }
}

/** Create failed because the offer is gone (404/410, `no_such_ask`, "no longer available"). */
export class VastOfferGoneError extends VastApiError<"VAST_OFFER_GONE"> {
  constructor(message: string, details: VastErrorDetails) {
    super(
      message,
      classDefaults(details, "VAST_OFFER_GONE", {
        hint: "the offer was rented or withdrawn: search again (searchOffers()) and pick another; do not retry the same offer",
      }),
    );
  }
}

/** A create of an offer this client is already renting (in flight, or rented and not destroyed). */
export class VastDuplicateRentError extends VastApiError<"VAST_DUPLICATE_RENT"> {
  /** The offer asked for twice. */
  readonly offerId: number;
  /** The instance this client already rented from it, when the first create has finished. */
  readonly instanceId: number | undefined;
  constructor(
    message: string,
    details: VastErrorDetails & { offerId: number; instanceId?: number | undefined },
  ) {
    const { offerId, instanceId } = details;
    super(
      message,
      classDefaults(details, "VAST_DUPLICATE_RENT", {
        hint:
          instanceId === undefined
            ? "another create of this offer is in flight in this process; wait for it instead of renting twice (Vast.ai would accept both and bill both)"
            : `this client already rented instance ${instanceId} from this offer; use it, or destroy it first (destroyInstance(${instanceId}))`,
      }),
    );
    this.offerId = offerId;
    this.instanceId = instanceId;
  }
}

/** 410 on an endpoint Vast.ai has retired (such as the v0 instance list). */
export class VastEndpointGoneError extends VastApiError<"VAST_ENDPOINT_GONE"> {
  constructor(message: string, details: VastErrorDetails) {
    super(
      message,
      classDefaults(details, "VAST_ENDPOINT_GONE", {
        hint: "Vast.ai retired this endpoint; upgrade @cuzkit/vast",
      }),
    );
  }
}

/** 400, 483 and other 4xx: the request was invalid (`invalid_args`, `invalid_price`, ...). */
export class VastBadRequestError extends VastApiError<"VAST_BAD_REQUEST"> {
  constructor(message: string, details: VastErrorDetails) {
    super(
      message,
      classDefaults(details, "VAST_BAD_REQUEST", {
        hint: "Vast.ai rejected the arguments; read its message and fix the request",
      }),
    );
  }
}

/** 411 (or 402): the account lacks credit. */
export class VastInsufficientCreditError extends VastApiError<"VAST_INSUFFICIENT_CREDIT"> {
  constructor(message: string, details: VastErrorDetails) {
    super(
      message,
      classDefaults(details, "VAST_INSUFFICIENT_CREDIT", {
        hint: "add credit to the Vast.ai account (https://cloud.vast.ai/billing/), then try again",
      }),
    );
  }
}

/** 429: too many calls to this endpoint. Vast.ai sends no Retry-After; the body may name a `threshold=` in seconds. */
export class VastRateLimitedError extends VastApiError<"VAST_RATE_LIMITED"> {
  /** The minimum interval the 429 body named (`threshold=4.5` is 4500), in ms, when it named one. */
  readonly thresholdMs: number | undefined;
  constructor(message: string, details: VastErrorDetails & { thresholdMs?: number | undefined }) {
    super(
      message,
      classDefaults(details, "VAST_RATE_LIMITED", {
        retryable: true,
        hint: "Vast.ai limits calls per endpoint and key; wait a few seconds, or space calls further apart (rateLimit minIntervalMs)",
      }),
    );
    this.thresholdMs = details.thresholdMs;
  }
}

/** HTTP statuses after which a call is worth repeating: the gateway or the server was briefly unavailable. */
const transientServerStatuses: readonly number[] = [502, 503, 504];

/** 5xx. 502/503/504 are retryable; 500 (a deterministic server bug so far), 501 and others are not. */
export class VastServerError extends VastApiError<"VAST_SERVER_ERROR"> {
  constructor(message: string, details: VastErrorDetails) {
    super(
      message,
      classDefaults(details, "VAST_SERVER_ERROR", {
        retryable: details.status !== undefined && transientServerStatuses.includes(details.status),
        hint:
          details.status === 501
            ? "Vast.ai does not implement this call (501); upgrade @cuzkit/vast, or report it"
            : "Vast.ai had a server problem; try again later",
      }),
    );
  }
}

/** A 2xx whose body says `success: false`. */
export class VastUnsuccessfulError extends VastApiError<"VAST_UNSUCCESSFUL"> {
  constructor(message: string, details: VastErrorDetails) {
    super(
      message,
      classDefaults(details, "VAST_UNSUCCESSFUL", {
        hint: "Vast.ai answered but refused the operation; read its message",
      }),
    );
  }
}

/** A body that is not JSON, or not of the documented shape. */
export class VastMalformedResponseError extends VastApiError<"VAST_MALFORMED_RESPONSE"> {
  constructor(message: string, details: VastErrorDetails) {
    super(
      message,
      classDefaults(details, "VAST_MALFORMED_RESPONSE", {
        hint: "the API answered in an unexpected shape (it may have changed); report it with the endpoint name",
      }),
    );
  }
}

/** A 3xx or other status with no meaning here. */
export class VastUnexpectedStatusError extends VastApiError<"VAST_UNEXPECTED_STATUS"> {
  constructor(message: string, details: VastErrorDetails) {
    super(
      message,
      classDefaults(details, "VAST_UNEXPECTED_STATUS", {
        hint: "check the baseUrl option or VAST_URL (it should be https://console.vast.ai) and keep trailing slashes on paths",
      }),
    );
  }
}

/** The connection failed (refused, reset, DNS) before a response arrived. */
export class VastNetworkError extends VastApiError<"VAST_NETWORK"> {
  constructor(message: string, details: VastErrorDetails) {
    super(
      message,
      classDefaults(details, "VAST_NETWORK", {
        retryable: true,
        hint: "check the network and the baseUrl option or VAST_URL; reads are retried automatically",
      }),
    );
  }
}

/** No response within `timeoutMs`. */
export class VastTimeoutError extends VastApiError<"DEADLINE_EXCEEDED"> {
  constructor(message: string, details: VastErrorDetails) {
    super(
      message,
      classDefaults(details, "DEADLINE_EXCEEDED", {
        retryable: true,
        hint: "Vast.ai did not answer in time; try again, or raise timeoutMs",
      }),
    );
  }
}

/** The caller's AbortSignal fired. */
export class VastAbortedError extends VastApiError<"ABORTED"> {
  constructor(message: string, details: VastErrorDetails) {
    super(message, classDefaults(details, "ABORTED", { hint: "the call was cancelled by its caller" }));
  }
}

/**
 * A create failed ambiguously (network error, timeout, 5xx) and no instance with its label
 * was found afterwards: it may or may not have been rented. Never retried automatically.
 */
export class VastCreateUncertainError extends VastApiError<"VAST_CREATE_UNCERTAIN"> {
  /** The unique label the create used; look for it before renting again. */
  readonly label: string;
  constructor(message: string, details: VastErrorDetails & { label: string }) {
    const { label } = details;
    super(
      message,
      classDefaults(details, "VAST_CREATE_UNCERTAIN", {
        hint: `the rental may or may not have happened: look for it with listInstances({ label: "${label}" }) before renting again, and destroy any duplicate`,
      }),
    );
    this.label = label;
  }
}

/** An instance reached a state it will not recover from (exited, unknown, offline) or vanished. */
export class VastInstanceFailedError extends VastApiError<"VAST_INSTANCE_FAILED"> {
  /** The instance's `actual_status` when it failed (null when it vanished). */
  readonly actualStatus: string | null;
  constructor(message: string, details: VastErrorDetails & { actualStatus: string | null }) {
    const { actualStatus } = details;
    super(
      message,
      classDefaults(details, "VAST_INSTANCE_FAILED", {
        hint: "destroy the instance (destroyInstance(id)) and rent another offer; its statusMsg says why it failed",
      }),
    );
    this.actualStatus = actualStatus;
  }
}

/** waitForStatus ran out of time. */
export class VastWaitTimeoutError extends VastApiError<"VAST_WAIT_TIMEOUT"> {
  constructor(message: string, details: VastErrorDetails) {
    super(
      message,
      classDefaults(details, "VAST_WAIT_TIMEOUT", {
        hint: "the instance is still starting (large images can take long): check it with showInstance(id), wait longer (waitForStatus timeoutMs), or destroy it and rent another",
      }),
    );
  }
}

/** The log file behind `result_url` was not ready within `pollTimeoutMs`. */
export class VastLogsTimeoutError extends VastApiError<"VAST_LOGS_TIMEOUT"> {
  constructor(message: string, details: VastErrorDetails) {
    super(
      message,
      classDefaults(details, "VAST_LOGS_TIMEOUT", {
        retryable: true,
        hint: "the logs were not ready in time; try again, or raise pollTimeoutMs",
      }),
    );
  }
}
