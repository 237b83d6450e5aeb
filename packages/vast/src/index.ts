// @cuzkit/vast: a typed, safe Vast.ai API client.
export type { VastSshKey, VastUser } from "./account.js";
export { checkPublicKey } from "./account.js";
export {
  type ApiKeyResolution,
  type ApiKeySearch,
  type ApiKeySource,
  resolveApiKey,
} from "./api-key.js";
export type { CallOptions } from "./call.js";
export { createVastClient, type VastClient } from "./client.js";
export { defaultEndpointLimits, type EndpointLimit, type VastEndpointName } from "./endpoints.js";
export {
  VastAbortedError,
  VastApiError,
  VastAuthError,
  VastBadRequestError,
  VastCreateUncertainError,
  VastDuplicateRentError,
  VastEndpointGoneError,
  type VastErrorCode,
  type VastErrorDetails,
  VastInstanceFailedError,
  VastInsufficientCreditError,
  VastLogsTimeoutError,
  VastMalformedResponseError,
  VastMissingApiKeyError,
  VastNetworkError,
  VastNotFoundError,
  VastOfferGoneError,
  VastRateLimitedError,
  VastServerError,
  VastTimeoutError,
  VastUnexpectedStatusError,
  VastUnsuccessfulError,
  VastWaitTimeoutError,
  vastErrorCodes,
} from "./errors.js";
export type { CreatedInstance, ListInstancesOptions } from "./instance-api.js";
export {
  buildCreateInstanceRequest,
  type CreateInstanceOptions,
  type CreateInstanceRequest,
  instanceSshEndpoint,
  type PortBinding,
  redactCreateBody,
  type SshEndpoint,
  terminalFailureStatuses,
  type VastInstance,
  type VastInstanceStatus,
  type VastRuntype,
} from "./instances.js";
export { defaultLogOptions, type GetLogsOptions } from "./logs.js";
export {
  buildOfferQuery,
  type Condition,
  defaultDiskGb,
  type OfferDefaults,
  type OfferField,
  type OfferFilters,
  type OfferQuery,
  type OfferQueryBody,
  type OfferType,
  offerFields,
  type QueryOperator,
} from "./offer-query.js";
export { normaliseOffer, offerHardware, type VastOffer } from "./offers.js";
export {
  defaultCreateRecovery,
  defaultRetry,
  defaultTimeoutMs,
  defaultVastBaseUrl,
  type VastClientOptions,
  type VastCreateRecoveryOptions,
  type VastRateLimitOptions,
  type VastRetryOptions,
} from "./options.js";
export { type ParsedOfferQuery, parseOfferQuery } from "./query-language.js";
export {
  bytesToVastDisk,
  bytesToVastMemory,
  gpuMemoryClassTolerance,
  vastDiskToBytes,
  vastDiskUnitBytes,
  vastMemoryToBytes,
  vastMemoryUnitBytes,
} from "./units.js";
export { defaultWaitOptions, type WaitForStatusOptions } from "./wait.js";
