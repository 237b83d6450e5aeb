/**
 * The endpoints this client calls, by name. Rate limits and retries are set per name, since
 * Vast.ai enforces a minimum interval per endpoint and per key.
 */
export type VastEndpointName =
  | "searchOffers"
  | "createInstance"
  | "showInstance"
  | "listInstances"
  | "manageInstance"
  | "destroyInstance"
  | "rebootInstance"
  | "requestLogs"
  | "logResult"
  | "sshKeys"
  | "attachSshKey"
  | "currentUser";

/** Spacing and concurrency for one endpoint. */
export interface EndpointLimit {
  /** Minimum time between the starts of two calls, in ms. */
  minIntervalMs: number;
  /** Calls in flight at once. */
  concurrency: number;
}

/**
 * Default limits, at or above the thresholds Vast.ai's 429 bodies name (`threshold=4.5` for
 * create, 3.0 for destroy, 2.0 for show instance, 1.0 for the v1 list: the OAS examples in
 * vast-ai/docs, PR #61 says seconds). Unpublished endpoints get 1 s or more. One call per
 * endpoint at a time, so spacing is start to start. `logResult` is the S3 log download, which
 * Vast.ai does not limit.
 */
export const defaultEndpointLimits: Readonly<Record<VastEndpointName, EndpointLimit>> = {
  searchOffers: { minIntervalMs: 1000, concurrency: 1 },
  createInstance: { minIntervalMs: 4500, concurrency: 1 },
  showInstance: { minIntervalMs: 2000, concurrency: 1 },
  listInstances: { minIntervalMs: 1000, concurrency: 1 },
  manageInstance: { minIntervalMs: 2000, concurrency: 1 },
  destroyInstance: { minIntervalMs: 3000, concurrency: 1 },
  rebootInstance: { minIntervalMs: 2000, concurrency: 1 },
  requestLogs: { minIntervalMs: 1000, concurrency: 1 },
  logResult: { minIntervalMs: 0, concurrency: 4 },
  sshKeys: { minIntervalMs: 1000, concurrency: 1 },
  attachSshKey: { minIntervalMs: 1000, concurrency: 1 },
  currentUser: { minIntervalMs: 1000, concurrency: 1 },
};
