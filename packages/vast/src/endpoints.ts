/**
 * The endpoints this client calls, by name. Rate limits and retries are set per name, since
 * Vast.ai enforces a minimum interval per endpoint and per key (thresholds not published).
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
 * Default limits. Vast.ai's 429 bodies name thresholds of 4.5 (create), 3.0 (destroy),
 * 2.0 (show instance) and 1.0 (manage, ssh); we space calls so a fleet poll stays under them.
 * `logResult` is the S3 log download, which Vast.ai does not limit.
 */
export const defaultEndpointLimits: Readonly<Record<VastEndpointName, EndpointLimit>> = {
  searchOffers: { minIntervalMs: 1000, concurrency: 1 },
  createInstance: { minIntervalMs: 1000, concurrency: 1 },
  showInstance: { minIntervalMs: 500, concurrency: 2 },
  listInstances: { minIntervalMs: 500, concurrency: 1 },
  manageInstance: { minIntervalMs: 1000, concurrency: 1 },
  destroyInstance: { minIntervalMs: 1000, concurrency: 1 },
  rebootInstance: { minIntervalMs: 1000, concurrency: 1 },
  requestLogs: { minIntervalMs: 1000, concurrency: 1 },
  logResult: { minIntervalMs: 0, concurrency: 4 },
  sshKeys: { minIntervalMs: 1000, concurrency: 1 },
  attachSshKey: { minIntervalMs: 1000, concurrency: 1 },
  currentUser: { minIntervalMs: 500, concurrency: 1 },
};
