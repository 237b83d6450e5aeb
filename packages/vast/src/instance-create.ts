import { InvalidInputError } from "@cuzkit/core";
import { type CallOptions, malformedResponse } from "./call.js";
import {
  VastAbortedError,
  VastApiError,
  VastCreateUncertainError,
  VastMalformedResponseError,
  VastNetworkError,
  VastOfferGoneError,
  VastServerError,
  VastTimeoutError,
} from "./errors.js";
import { isObject, numberField } from "./guards.js";
import { callOptionsOf, findByLabel } from "./instance-read.js";
import type { CreatedInstance } from "./instance-types.js";
import type { buildCreateInstanceRequest, CreateInstanceOptions, VastInstance } from "./instances.js";
import type { searchApi } from "./search.js";
import type { Transport } from "./transport.js";

// One create of an instance, sent once: checks before (the label is free, the offer still
// rentable), the PUT, and after an ambiguous failure the look-up by the unique label.

/** One create: what is rented, how, and where it is sent. */
export interface CreateCall {
  readonly transport: Transport;
  readonly search: Pick<ReturnType<typeof searchApi>, "findRentableOffer">;
  readonly offerId: number;
  readonly create: CreateInstanceOptions & CallOptions;
  readonly request: ReturnType<typeof buildCreateInstanceRequest>;
  /** The endpoint, for messages. */
  readonly endpoint: string;
}

/** A failure after which the create may or may not have happened on the server. */
function isAmbiguous(error: unknown): boolean {
  return (
    error instanceof VastNetworkError ||
    error instanceof VastTimeoutError ||
    error instanceof VastServerError ||
    error instanceof VastMalformedResponseError ||
    error instanceof VastAbortedError
  );
}

/** Refuses a label already in use (recovery finds by label) and an offer no longer rentable. */
async function checkBeforeCreate(c: CreateCall, interruptible: boolean): Promise<void> {
  const { create, request, offerId } = c;
  if (create.label !== undefined) {
    // Recovery finds the instance by label, so a label already in use could "find" an older one.
    const existing = await findByLabel(c.transport, request.label, callOptionsOf(create));
    if (existing !== undefined) {
      throw new InvalidInputError(`label "${request.label}" is already used by instance ${existing.id}`, {
        hint: "give each rental a unique label (or none, for a generated cuzkit-<random> one): it is how a create whose answer was lost is found",
      });
    }
  }
  if (create.recheckOffer !== false) {
    // Offers are rented out from under you; a create of a rented offer can still be accepted.
    const offer = await c.search.findRentableOffer(offerId, {
      ...callOptionsOf(create),
      allowRented: interruptible,
    });
    if (offer === undefined) {
      throw new VastOfferGoneError(
        `offer ${offerId} is no longer rentable (checked just before renting; nothing was rented)`,
        { endpoint: c.endpoint, serverError: "not_rentable" },
      );
    }
  }
}

/** The PUT; its answer as a created instance (the per-instance key kept non-enumerable). */
async function sendCreate(c: CreateCall, interruptible: boolean): Promise<CreatedInstance> {
  const { request, create, offerId } = c;
  const body = await c.transport.request({
    endpoint: "createInstance",
    method: "PUT",
    path: request.path,
    body: request.body,
    idempotent: false,
    isCreate: true,
    signal: create.signal,
    timeoutMs: create.timeoutMs,
  });
  const instanceId = isObject(body) ? numberField(body, "new_contract") : undefined;
  if (!isObject(body) || instanceId === undefined) {
    throw malformedResponse("PUT", request.path, 'expected {"success": true, "new_contract": <id>}');
  }
  const { instance_api_key: instanceApiKey, ...raw } = body;
  const created: CreatedInstance = {
    instanceId,
    label: request.label,
    offerId,
    interruptible,
    recoveredByLabel: false,
    raw,
  };
  if (typeof instanceApiKey === "string") {
    Object.defineProperty(created, "instanceApiKey", { value: instanceApiKey, enumerable: false });
  }
  c.transport.logger.info("vast instance created", {
    instanceId,
    offerId,
    label: request.label,
    interruptible,
  });
  return created;
}

/** Looks the instance up by label a few times after an ambiguous create; undefined when not found. */
async function recoverByLabel(c: CreateCall, original: unknown): Promise<VastInstance | undefined> {
  const { logger, options } = c.transport;
  const { label } = c.request;
  const { endpoint } = c;
  const { attempts, delayMs } = options.createRecovery;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    logger.info("vast create: waiting before looking the instance up by label", {
      label,
      attempt,
      of: attempts,
      waitMs: delayMs,
    });
    await options.sleep(delayMs);
    try {
      const found = await findByLabel(c.transport, label, {});
      if (found !== undefined) return found;
    } catch (lookupError) {
      logger.warn("vast label look-up failed", {
        endpoint,
        label,
        attempt,
        code: lookupError instanceof VastApiError ? lookupError.code : "UNKNOWN",
      });
      if (attempt === attempts) {
        throw new VastCreateUncertainError(
          `the create failed ambiguously and looking up label ${label} failed too; it may or may not have happened`,
          { label, endpoint, cause: original },
        );
      }
    }
  }
  return undefined;
}

/** After an ambiguous failure: the instance found by its label, else VastCreateUncertainError. */
async function afterAmbiguousCreate(
  c: CreateCall,
  interruptible: boolean,
  error: unknown,
): Promise<CreatedInstance> {
  const { request, create, offerId, endpoint } = c;
  const { logger } = c.transport;
  if (error instanceof VastAbortedError || create.signal?.aborted) {
    throw new VastCreateUncertainError(
      `the create of offer ${offerId} was cancelled after it was sent; it may or may not have happened (label ${request.label})`,
      { label: request.label, endpoint, cause: error },
    );
  }
  logger.warn("vast create failed ambiguously; looking the instance up by label", {
    endpoint,
    label: request.label,
    code: (error as VastApiError).code,
  });
  const recovered = await recoverByLabel(c, error);
  if (recovered !== undefined) {
    logger.info("vast create recovered by label", { instanceId: recovered.id, label: request.label });
    return {
      instanceId: recovered.id,
      label: request.label,
      offerId,
      interruptible,
      recoveredByLabel: true,
      raw: recovered.raw,
    };
  }
  const reason = error instanceof VastApiError ? error.message : String(error);
  throw new VastCreateUncertainError(
    `the create of offer ${offerId} failed ambiguously (${reason}) and no instance labelled ${request.label} was found; it may or may not have happened`,
    {
      label: request.label,
      endpoint,
      cause: error,
      status: error instanceof VastApiError ? error.status : undefined,
    },
  );
}

/** Rents once: checks, the PUT, and recovery by label after an ambiguous failure (nothing is replayed). */
export async function createOnce(c: CreateCall): Promise<CreatedInstance> {
  const interruptible = c.request.body.price !== undefined;
  await checkBeforeCreate(c, interruptible);
  try {
    return await sendCreate(c, interruptible);
  } catch (error) {
    if (!isAmbiguous(error)) throw error;
    return afterAmbiguousCreate(c, interruptible, error);
  }
}
