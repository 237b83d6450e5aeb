import { InvalidInputError } from "@cuzkit/core";
import { type CallOptions, malformedResponse } from "./call.js";
import {
  VastAbortedError,
  VastApiError,
  VastCreateUncertainError,
  VastDuplicateRentError,
  VastMalformedResponseError,
  VastNetworkError,
  VastNotFoundError,
  VastOfferGoneError,
  VastServerError,
  VastTimeoutError,
} from "./errors.js";
import { isObject, type JsonObject, numberField } from "./guards.js";
import { checkInstanceId } from "./ids.js";
import {
  buildCreateInstanceRequest,
  type CreateInstanceOptions,
  normaliseInstance,
  type VastInstance,
} from "./instances.js";
import type { searchApi } from "./search.js";
import { describeEndpoint, type Transport } from "./transport.js";

/** The result of a create. */
export interface CreatedInstance {
  /** The new instance id (the API's `new_contract`). */
  instanceId: number;
  /** The unique label the instance was created with. */
  label: string;
  /** The offer rented. */
  offerId: number;
  /** True when a bid price was sent (interruptible); false means on-demand. */
  interruptible: boolean;
  /** True when the create failed ambiguously and the instance was then found by its label. */
  recoveredByLabel: boolean;
  /**
   * The per-instance key (`instance_api_key`) that can start/stop/destroy only this instance.
   * Non-enumerable, so JSON.stringify and console.log do not print it. Undefined when recovered.
   */
  readonly instanceApiKey?: string | undefined;
  /** The API response, without `instance_api_key`. */
  raw: JsonObject;
}

/** Options of `listInstances`. */
export interface ListInstancesOptions extends CallOptions {
  /** Only instances with exactly this label. */
  label?: string | undefined;
  /** Instances per page, 1..25 (the API's maximum). Default 25. */
  pageSize?: number | undefined;
  /** Extra raw `select_filters` conditions on contract columns, such as `{ actual_status: { eq: "running" } }`. */
  filters?: Record<string, Record<string, unknown>> | undefined;
}

/** Instance operations over a transport; `search` re-checks an offer right before a create. */
export function instanceApi(
  transport: Transport,
  search: Pick<ReturnType<typeof searchApi>, "findRentableOffer">,
) {
  const { logger, options } = transport;
  // Offers this client is renting: in flight (undefined) or rented (the instance id), until that
  // instance is destroyed through this client. Vast.ai accepts two purchases of one offer and
  // bills both (SkyPilot PR #9117 added a lock for the same reason).
  const renting = new Map<number, number | undefined>();

  async function showInstance(id: number, call: CallOptions = {}): Promise<VastInstance | null> {
    const path = `/api/v0/instances/${checkInstanceId(id)}/`;
    let body: unknown;
    try {
      body = await transport.request({
        endpoint: "showInstance",
        method: "GET",
        path,
        query: { owner: "me" },
        idempotent: true,
        signal: call.signal,
        timeoutMs: call.timeoutMs,
      });
    } catch (error) {
      if (isInstanceGone(error)) return null;
      throw error;
    }
    if (!isObject(body) || !("instances" in body)) {
      throw malformedResponse("GET", path, 'expected {"instances": {...}}');
    }
    // One object under a plural key; null (or any non-object) once the instance is gone.
    if (!isObject(body.instances)) return null;
    const instance = normaliseInstance(body.instances);
    if (instance === undefined) throw malformedResponse("GET", path, "the instance has no numeric id");
    return instance;
  }

  async function* listInstances(
    list: ListInstancesOptions = {},
  ): AsyncGenerator<VastInstance, void, undefined> {
    const pageSize = list.pageSize ?? 25;
    if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 25) {
      throw new InvalidInputError(`pageSize must be 1..25, got ${pageSize}`, {
        hint: "the v1 list returns at most 25 per page",
      });
    }
    const selectFilters: Record<string, unknown> = { ...list.filters };
    if (list.label !== undefined) selectFilters.label = { in: [list.label] };
    const path = "/api/v1/instances/";
    const seenTokens = new Set<string>();
    let afterToken: string | undefined;
    do {
      const body = await transport.request({
        endpoint: "listInstances",
        method: "GET",
        path,
        query: {
          select_filters: Object.keys(selectFilters).length > 0 ? selectFilters : undefined,
          order_by: [{ col: "id", dir: "asc" }],
          limit: pageSize,
          after_token: afterToken,
        },
        idempotent: true,
        signal: list.signal,
        timeoutMs: list.timeoutMs,
      });
      if (!isObject(body) || !Array.isArray(body.instances)) {
        throw malformedResponse("GET", path, 'expected {"instances": [...], "next_token": ...}');
      }
      for (const record of body.instances) {
        const instance = normaliseInstance(record);
        if (instance === undefined) {
          logger.warn("vast list skipped an instance without a numeric id", { endpoint: `GET ${path}` });
          continue;
        }
        yield instance;
      }
      const next = body.next_token;
      afterToken = typeof next === "string" && next !== "" ? next : undefined;
      if (afterToken !== undefined) {
        if (seenTokens.has(afterToken))
          throw malformedResponse("GET", path, "the server repeated a next_token");
        seenTokens.add(afterToken);
      }
    } while (afterToken !== undefined);
  }

  async function findByLabel(label: string, call: CallOptions): Promise<VastInstance | undefined> {
    const found: VastInstance[] = [];
    for await (const instance of listInstances({ label, ...call })) {
      if (instance.label === label) found.push(instance);
    }
    if (found.length > 1) {
      logger.warn("vast found several instances with one label; a duplicate rental may exist", {
        label,
        ids: found.map((i) => i.id),
      });
    }
    return found.sort((a, b) => a.id - b.id)[0];
  }

  /**
   * Rents an offer. Refuses (VastDuplicateRentError) an offer this client is already renting,
   * and re-checks that the offer is still rentable. A 429 is retried (it was not executed);
   * nothing else is replayed: Vast.ai accepts duplicate purchases, so after an ambiguous failure
   * it looks the instance up by its unique label, and returns it or throws
   * VastCreateUncertainError. A definite refusal (offer gone, credit, auth) is thrown as is.
   */
  async function createInstance(
    offerId: number,
    create: CreateInstanceOptions & CallOptions,
  ): Promise<CreatedInstance> {
    const request = buildCreateInstanceRequest(offerId, create, options.random);
    const endpoint = describeEndpoint(request.method, request.path);
    if (create.signal?.aborted) {
      throw new VastAbortedError(`Vast.ai ${endpoint} was cancelled before it was sent`, { endpoint });
    }
    if (renting.has(offerId)) {
      const instanceId = renting.get(offerId);
      throw new VastDuplicateRentError(
        instanceId === undefined
          ? `offer ${offerId} is already being rented by this client; refusing a second create`
          : `this client already rented offer ${offerId} as instance ${instanceId}; refusing a second create`,
        { offerId, instanceId, endpoint },
      );
    }
    renting.set(offerId, undefined); // before any await, so a concurrent create sees it
    let rentedId: number | undefined;
    try {
      const created = await createOnce(offerId, create, request, endpoint);
      rentedId = created.instanceId;
      return created;
    } finally {
      if (rentedId === undefined) renting.delete(offerId);
      else renting.set(offerId, rentedId);
    }
  }

  async function createOnce(
    offerId: number,
    create: CreateInstanceOptions & CallOptions,
    request: ReturnType<typeof buildCreateInstanceRequest>,
    endpoint: string,
  ): Promise<CreatedInstance> {
    if (create.label !== undefined) {
      // Recovery finds the instance by label, so a label already in use could "find" an older one.
      const existing = await findByLabel(request.label, callOptionsOf(create));
      if (existing !== undefined) {
        throw new InvalidInputError(`label "${request.label}" is already used by instance ${existing.id}`, {
          hint: "give each rental a unique label (or none, for a generated cuzkit-<random> one): it is how a create whose answer was lost is found",
        });
      }
    }
    const interruptible = request.body.price !== undefined;
    if (create.recheckOffer !== false) {
      // Offers are rented out from under you; a create of a rented offer can still be accepted.
      const offer = await search.findRentableOffer(offerId, {
        ...callOptionsOf(create),
        allowRented: interruptible,
      });
      if (offer === undefined) {
        throw new VastOfferGoneError(
          `offer ${offerId} is no longer rentable (checked just before renting; nothing was rented)`,
          { endpoint, serverError: "not_rentable" },
        );
      }
    }
    let body: unknown;
    try {
      body = await transport.request({
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
      logger.info("vast instance created", { instanceId, offerId, label: request.label, interruptible });
      return created;
    } catch (error) {
      if (!isAmbiguous(error)) throw error;
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
      const recovered = await recoverByLabel(request.label, endpoint, error);
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
  }

  async function recoverByLabel(
    label: string,
    endpoint: string,
    original: unknown,
  ): Promise<VastInstance | undefined> {
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
        const found = await findByLabel(label, {});
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

  /** Drops the double-rent guard of an offer once its instance is destroyed. */
  function forget(instanceId: number): void {
    for (const [offerId, rented] of renting) if (rented === instanceId) renting.delete(offerId);
  }

  async function manage(id: number, body: JsonObject, call: CallOptions): Promise<void> {
    await transport.request({
      endpoint: "manageInstance",
      method: "PUT",
      path: `/api/v0/instances/${checkInstanceId(id)}/`,
      body,
      idempotent: true,
      signal: call.signal,
      timeoutMs: call.timeoutMs,
    });
  }

  return {
    showInstance,
    listInstances,
    createInstance,
    /** Starts a stopped instance (`{"state":"running"}`); retried, as it is idempotent. */
    startInstance: (id: number, call: CallOptions = {}) => manage(id, { state: "running" }, call),
    /** Stops an instance; its disk is still billed. Retried, as it is idempotent. */
    stopInstance: (id: number, call: CallOptions = {}) => manage(id, { state: "stopped" }, call),
    /** Sets an instance's label (max 1024 chars). Retried, as it is idempotent. */
    labelInstance: (id: number, label: string, call: CallOptions = {}) => {
      if (typeof label !== "string" || label.length > 1024) {
        throw new InvalidInputError("a label is a string of at most 1024 characters", {
          hint: "shorten the label",
        });
      }
      return manage(id, { label }, call);
    },
    /**
     * Destroys an instance, ending all billing. Retried; a 404 (already gone, possibly by an
     * earlier attempt whose answer was lost) counts as success with `alreadyGone: true`.
     */
    async destroyInstance(id: number, call: CallOptions = {}): Promise<{ alreadyGone: boolean }> {
      try {
        await transport.request({
          endpoint: "destroyInstance",
          method: "DELETE",
          path: `/api/v0/instances/${checkInstanceId(id)}/`,
          body: {},
          idempotent: true,
          signal: call.signal,
          timeoutMs: call.timeoutMs,
        });
        forget(id);
        return { alreadyGone: false };
      } catch (error) {
        if (isInstanceGone(error)) {
          forget(id);
          return { alreadyGone: true };
        }
        throw error;
      }
    },
    /** Reboots an instance. Not retried (a replay would reboot twice). */
    async rebootInstance(id: number, call: CallOptions = {}): Promise<void> {
      await transport.request({
        endpoint: "rebootInstance",
        method: "PUT",
        path: `/api/v0/instances/reboot/${checkInstanceId(id)}/`,
        body: {},
        idempotent: false,
        signal: call.signal,
        timeoutMs: call.timeoutMs,
      });
    },
  };
}

function callOptionsOf(options: CallOptions): CallOptions {
  const call: CallOptions = {};
  if (options.signal !== undefined) call.signal = options.signal;
  if (options.timeoutMs !== undefined) call.timeoutMs = options.timeoutMs;
  return call;
}

/**
 * A 404 that really says "no such instance" (`not_found`, or a message about the instance).
 * A bare 404 page (wrong base URL, proxy) is not proof that an instance is gone: a destroy
 * must not report success while the machine keeps billing.
 */
function isInstanceGone(error: unknown): boolean {
  return (
    error instanceof VastNotFoundError &&
    (error.serverError === "not_found" || /instance/i.test(error.serverMessage ?? ""))
  );
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
