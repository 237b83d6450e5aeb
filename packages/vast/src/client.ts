import { accountApi, type VastSshKey, type VastUser } from "./account.js";
import type { ApiKeySource } from "./api-key.js";
import { type CallOptions, malformedResponse } from "./call.js";
import { isObject } from "./guards.js";
import { type CreatedInstance, instanceApi, type ListInstancesOptions } from "./instance-api.js";
import type { CreateInstanceOptions, VastInstance, VastInstanceStatus } from "./instances.js";
import { type GetLogsOptions, getLogs } from "./logs.js";
import { buildOfferQuery, type OfferQuery } from "./offer-query.js";
import { normaliseOffer, type VastOffer } from "./offers.js";
import { resolveVastOptions, type VastClientOptions } from "./options.js";
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
  /** Rents an offer (`PUT /api/v0/asks/{id}/`). Never replayed; see README "Creates". */
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
  const instances = instanceApi(transport);
  const account = accountApi(transport);

  async function searchOffers(query: OfferQuery = {}, call: CallOptions = {}): Promise<VastOffer[]> {
    const path = "/api/v0/bundles/";
    const body = await transport.request({
      endpoint: "searchOffers",
      method: "POST",
      path,
      body: buildOfferQuery(query),
      idempotent: true, // a search changes nothing
      signal: call.signal,
      timeoutMs: call.timeoutMs,
    });
    if (!isObject(body) || !Array.isArray(body.offers))
      throw malformedResponse("POST", path, 'expected {"offers": [...]}');
    const offers: VastOffer[] = [];
    let skipped = 0;
    for (const record of body.offers) {
      const offer = normaliseOffer(record);
      if (offer === undefined) skipped++;
      else offers.push(offer);
    }
    if (skipped > 0) {
      transport.logger.warn(
        "vast search skipped offers missing id, gpu_name, num_gpus, gpu_ram, cpu_ram or dph_total",
        {
          skipped,
        },
      );
    }
    return offers;
  }

  return {
    baseUrl: resolved.baseUrl,
    apiKeySource: transport.keySource,
    searchOffers,
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
        { showInstance: instances.showInstance, clock: resolved.clock, sleep: resolved.sleep },
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
