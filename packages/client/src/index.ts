// @cuzkit/client: a cuzk daemon client that survives long proofs and names every failure.
export { type DaemonAddress, formatDaemonAddress, parseDaemonAddress } from "./address.js";
export type { Admission } from "./admission.js";
export {
  type CallOptions,
  type CuzkClient,
  createCuzkClient,
  type ProofCallOptions,
  type ProveOnceOptions,
  type SubmitOptions,
  type SubmitProofInput,
  type WaitForReadyOptions,
} from "./client.js";
export { type EncodedChunks, encodeSubmitFrame, proveRequestBytes, submitRequestBytes } from "./encode.js";
export {
  AbortedError,
  awaitJobHint,
  type ClientErrorCode,
  type ClientErrorContext,
  ConnectionLostError,
  CuzkClientError,
  clientErrorCodes,
  DaemonFrozenError,
  DaemonInternalError,
  DaemonRestartedError,
  DaemonUnavailableError,
  DeadlineExceededError,
  InvalidAddressError,
  InvalidRequestError,
  JobNotFoundError,
  LocalTransportError,
  oomHint,
  PayloadTooLargeError,
  ProofFailedError,
  RequestIdReusedError,
  unreachableHint,
} from "./errors.js";
export type { ProveEvent, ProveEventType } from "./events.js";
export { isLocalTransportFault, type MapErrorContext, toCuzkError } from "./map-error.js";
export { type DaemonMetrics, type KindMetrics, type MetricFamily, parseDaemonMetrics } from "./metrics.js";
export {
  type CuzkClientOptions,
  type DeadlineOptions,
  defaultDeadlines,
  defaultKeepalive,
  defaultMaxInFlight,
  defaultReconnect,
  defaultResubmit,
  type KeepaliveOptions,
  type ReconnectOptions,
  type ResolvedClientOptions,
  resolveClientOptions,
} from "./options.js";
export { defaultRequestIdBase, type ProofResult, type ProofTimings, type ProveOptions } from "./prove.js";
export {
  type BreakKind,
  decideRecovery,
  type ProbeResult,
  type RecoveryDecision,
  type RecoveryEvidence,
  type StatusSample,
  uptimeSlackSeconds,
} from "./recovery.js";
export {
  type Bytes32,
  type BytesOrFile,
  type CommonRequestInput,
  type PorepRequestInput,
  parseBytes32,
  parseVanillaProofsFile,
  porepRequest,
  type SnapRequestInput,
  snapRequest,
  type VanillaProofsInput,
  type WindowPostRequestInput,
  type WinningPostRequestInput,
  windowPostRequest,
  winningPostRequest,
} from "./requests.js";
export {
  type DaemonStatus,
  type GpuStatus,
  type LoadedSrs,
  normalizeStatus,
  type QueueStatus,
} from "./status.js";
export {
  type DaemonStatusJson,
  type FetchStatusJsonOptions,
  fetchStatusJson,
  type PartitionState,
  parseStatusJson,
  type StatusAllocation,
  type StatusGpuWorker,
  type StatusPartition,
  type StatusPipeline,
} from "./status-json.js";
export { validateSubmitRequest } from "./validate.js";
