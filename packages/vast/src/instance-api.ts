import type { CallOptions } from "./call.js";
import { VastAbortedError, VastDuplicateRentError } from "./errors.js";
import { createOnce } from "./instance-create.js";
import { destroyInstance, labelInstance, manageInstance, rebootInstance } from "./instance-manage.js";
import { listInstances, showInstance } from "./instance-read.js";
import type { CreatedInstance, ListInstancesOptions } from "./instance-types.js";
import { buildCreateInstanceRequest, type CreateInstanceOptions } from "./instances.js";
import type { searchApi } from "./search.js";
import { describeEndpoint, type Transport } from "./transport.js";

// Instance operations: reads (instance-read.ts), the create with its double-rent guard and
// recovery by label (instance-create.ts), and start/stop/label/destroy/reboot here.

export type { CreatedInstance, ListInstancesOptions } from "./instance-types.js";

/** Instance operations over a transport; `search` re-checks an offer right before a create. */
export function instanceApi(
  transport: Transport,
  search: Pick<ReturnType<typeof searchApi>, "findRentableOffer">,
) {
  const { options } = transport;
  // Offers this client is renting: in flight (undefined) or rented (the instance id), until that
  // instance is destroyed through this client. Vast.ai accepts two purchases of one offer and
  // bills both (SkyPilot PR #9117 added a lock for the same reason).
  const renting = new Map<number, number | undefined>();

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
      const created = await createOnce({ transport, search, offerId, create, request, endpoint });
      rentedId = created.instanceId;
      return created;
    } finally {
      if (rentedId === undefined) renting.delete(offerId);
      else renting.set(offerId, rentedId);
    }
  }

  /** Drops the double-rent guard of an offer once its instance is destroyed. */
  function forget(instanceId: number): void {
    for (const [offerId, rented] of renting) if (rented === instanceId) renting.delete(offerId);
  }

  return {
    showInstance: (id: number, call: CallOptions = {}) => showInstance(transport, id, call),
    listInstances: (list: ListInstancesOptions = {}) => listInstances(transport, list),
    createInstance,
    /** Starts a stopped instance (`{"state":"running"}`); retried, as it is idempotent. */
    startInstance: (id: number, call: CallOptions = {}) =>
      manageInstance(transport, id, { state: "running" }, call),
    /** Stops an instance; its disk is still billed. Retried, as it is idempotent. */
    stopInstance: (id: number, call: CallOptions = {}) =>
      manageInstance(transport, id, { state: "stopped" }, call),
    /** Sets an instance's label (max 1024 chars). Retried, as it is idempotent. */
    labelInstance: (id: number, label: string, call: CallOptions = {}) =>
      labelInstance(transport, id, label, call),
    /**
     * Destroys an instance, ending all billing. Retried; a 404 (already gone, possibly by an
     * earlier attempt whose answer was lost) counts as success with `alreadyGone: true`.
     */
    async destroyInstance(id: number, call: CallOptions = {}): Promise<{ alreadyGone: boolean }> {
      const result = await destroyInstance(transport, id, call);
      forget(id);
      return result;
    },
    /** Reboots an instance. Not retried (a replay would reboot twice). */
    rebootInstance: (id: number, call: CallOptions = {}) => rebootInstance(transport, id, call),
  };
}
