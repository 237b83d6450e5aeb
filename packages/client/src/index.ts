// @cuzkit/client: a cuzk daemon client that survives long proofs and names every failure.
export { type DaemonAddress, formatDaemonAddress, parseDaemonAddress } from "./address.js";
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
export {
  AbortedError,
  type ClientErrorCode,
  ConnectionLostError,
  CuzkClientError,
  clientErrorCodes,
  DaemonFrozenError,
  DaemonInternalError,
  DaemonRestartedError,
  DaemonStuckError,
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
  type StuckEvidence,
} from "./errors.js";
export type { ProveEvent, ProveEventType } from "./events.js";
export {
  maxProofInputFileBytes,
  maxVanillaProofsFileBytes,
  type ReadProofInputFileOptions,
  readProofInputFile,
} from "./input-file.js";
export type { DaemonMetrics, KindMetrics, MetricFamily } from "./metrics.js";
export {
  type CuzkClientOptions,
  type DeadlineOptions,
  defaultDeadlines,
  defaultKeepalive,
  defaultMaxInFlight,
  defaultReconnect,
  defaultResubmit,
  defaultStuck,
  type KeepaliveOptions,
  type ReconnectOptions,
  type StuckOptions,
} from "./options.js";
export type { ProofResult, ProofTimings, ProveOptions } from "./prove.js";
export {
  type Bytes32,
  type BytesOrFile,
  type CommonRequestInput,
  type PorepRequestInput,
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
export type {
  DaemonStatus,
  GpuStatus,
  LoadedSrs,
  QueueStatus,
} from "./status.js";
export {
  type DaemonStatusJson,
  type FetchStatusJsonOptions,
  fetchStatusJson,
  type PartitionState,
  type StatusAllocation,
  type StatusGpuWorker,
  type StatusPartition,
  type StatusPipeline,
} from "./status-json.js";
export { expectedProofMs } from "./stuck.js";
