import { accountApi, type VastSshKey, type VastUser } from "./account.js";
import type { ApiKeySource } from "./api-key.js";
import type { CallOptions } from "./call.js";
import { type CreatedInstance, instanceApi, type ListInstancesOptions } from "./instance-api.js";
import type { CreateInstanceOptions, VastInstance, VastInstanceStatus } from "./instances.js";
import { type GetLogsOptions, getLogs } from "./logs.js";
import type { OfferQuery } from "./offer-query.js";
import type { VastOffer } from "./offers.js";
import { resolveVastOptions, type VastClientOptions } from "./options.js";
import { searchApi } from "./search.js";
import { createTransport } from "./transport.js";
import { type WaitForStatusOptions, waitForStatus } from "./wait.js";

/** A typed Vast.ai client. Every method rejects only with VastApiError subclasses or InvalidInputError. */
export interface VastClient {
  /** The API host in use. */
  readonly baseUrl: string;
  /** Where the API key came from, once a call has needed it. */
  apiKeySource(): ApiKeySource | undefined;
  /** Searches offers (`POST /api/v0/bundles/`); units normalised, raw record kept. Records missing core fields are skipped with a warning. */
  searchOffers(query?: OfferQuery, call?: CallOptions): Promise<VastOffer[]>;
  /**
   * The offer with this id if it can be rented now (rentable, not rented; verified or not), else
   * undefined: what a rent prompt shows. `allowRented` for a bid that may outbid the tenant.
   */
  getOffer(
    offerId: number,
    call?: CallOptions & { allowRented?: boolean | undefined },
  ): Promise<VastOffer | undefined>;
  /**
   * Rents an offer (`PUT /api/v0/asks/{id}/`). Refuses an offer this client is already renting,
   * re-checks that the offer is still rentable, retries only a 429, and after an ambiguous
   * failure finds the instance by its label; see README "Creates".
   */
  createInstance(offerId: number, options: CreateInstanceOptions & CallOptions): Promise<CreatedInstance>;
  /** One instance, or null when it does not exist (any more). */
  showInstance(id: number, call?: CallOptions): Promise<VastInstance | null>;
  /** All your instances through the v1 list, page by page (`for await`). */
  listInstances(options?: ListInstancesOptions): AsyncIterable<VastInstance>;
  /** Starts a stopped instance. */
  startInstance(id: number, call?: CallOptions): Promise<void>;
  /** Stops an instance (its disk is still billed; only destroy ends billing). */
  stopInstance(id: number, call?: CallOptions): Promise<void>;
  /** Sets an instance's label. */
  labelInstance(id: number, label: string, call?: CallOptions): Promise<void>;
  /** Destroys an instance; `alreadyGone` when it did not exist. */
  destroyInstance(id: number, call?: CallOptions): Promise<{ alreadyGone: boolean }>;
  /** Reboots an instance (not retried). */
  rebootInstance(id: number, call?: CallOptions): Promise<void>;
  /** Polls until `actual_status` is `target`; exited/unknown/offline fail at once. */
  waitForStatus(
    id: number,
    target: VastInstanceStatus,
    options?: WaitForStatusOptions,
  ): Promise<VastInstance>;
  /** An instance's logs (request, then poll the S3 result URL without the key). */
  getLogs(id: number, options?: GetLogsOptions): Promise<string>;
  /** The account's SSH keys. */
  listSshKeys(call?: CallOptions): Promise<VastSshKey[]>;
  /** Registers an SSH public key on the account. */
  createSshKey(publicKey: string, call?: CallOptions): Promise<VastSshKey>;
  /** Adds an SSH public key to one instance. */
  attachSshKey(instanceId: number, publicKey: string, call?: CallOptions): Promise<void>;
  /** The account with balance and credit (USD). */
  getCurrentUser(call?: CallOptions): Promise<VastUser>;
}

/**
 * Creates a client. Nothing is read or sent yet: the API key is looked up at the first call
 * that needs it (option, VAST_API_KEY, then the CLI's key files), so a missing key surfaces as
 * VastMissingApiKeyError from that call, and dry runs work without one.
 */
export function createVastClient(options: VastClientOptions = {}): VastClient {
  const resolved = resolveVastOptions(options);
  const transport = createTransport(resolved);
  const search = searchApi(transport);
  const instances = instanceApi(transport, search);
  const account = accountApi(transport);

  return {
    baseUrl: resolved.baseUrl,
    apiKeySource: transport.keySource,
    searchOffers: search.searchOffers,
    getOffer: (offerId, call) => search.findRentableOffer(offerId, call),
    createInstance: instances.createInstance,
    showInstance: instances.showInstance,
    listInstances: instances.listInstances,
    startInstance: instances.startInstance,
    stopInstance: instances.stopInstance,
    labelInstance: instances.labelInstance,
    destroyInstance: instances.destroyInstance,
    rebootInstance: instances.rebootInstance,
    waitForStatus: (id, target, wait) =>
      waitForStatus(
        {
          showInstance: instances.showInstance,
          clock: resolved.clock,
          sleep: resolved.sleep,
          logger: transport.logger,
        },
        id,
        target,
        wait,
      ),
    getLogs: (id, logOptions) => getLogs(transport, id, logOptions),
    listSshKeys: account.listSshKeys,
    createSshKey: account.createSshKey,
    attachSshKey: account.attachSshKey,
    getCurrentUser: account.getCurrentUser,
  };
}
