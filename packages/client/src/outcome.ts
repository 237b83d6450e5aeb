import type { CuzkitError } from "@cuzkit/core";
import {
  AbortedError,
  awaitJobHint,
  type ClientErrorContext,
  ConnectionLostError,
  DaemonFrozenError,
  DaemonUnavailableError,
  DeadlineExceededError,
  LocalTransportError,
} from "./errors.js";
import type { UploadProgress } from "./transport.js";

// What a failed submit means for its job, told from how far the upload got: a request whose
// body was not completely written cannot have reached the daemon (nothing runs; sending it
// again is safe), while one that was written may have been accepted (the job may be running:
// await it, never submit it again under the same id).

/** A fresh upload tracker. */
export function newUpload(): UploadProgress {
  return { sentBytes: 0, complete: false };
}

const mb = (bytes: number) => `${(bytes / 1e6).toFixed(1)} MB`;

/** What the upload says about the job, as a phrase for messages. */
export function uploadPhrase(upload: UploadProgress, totalBytes: number): string {
  return upload.complete
    ? "the request was sent in full, so the daemon may have accepted it: the job may still be running"
    : `the upload stopped after ${mb(upload.sentBytes)} of ${mb(totalBytes)}: not accepted; nothing is running`;
}

/** Rebuilds a transport failure of a submit with the job's fate in its message, retryable flag and hint. */
export function withUploadOutcome(
  error: CuzkitError,
  jobId: string,
  upload: UploadProgress,
  totalBytes: number,
): CuzkitError {
  const message = `${error.message}; ${uploadPhrase(upload, totalBytes)}`;
  const context: ClientErrorContext = {
    rpc: (error as { rpc?: string }).rpc,
    address: (error as { address?: string }).address,
    jobId,
    cause: error,
    retryable: !upload.complete,
  };
  const hint = upload.complete
    ? awaitJobHint(jobId)
    : `send the request again (request id ${JSON.stringify(jobId)} never reached the daemon, so reusing it is safe)`;
  if (error instanceof DaemonFrozenError) {
    return new DaemonFrozenError(message, context, upload.complete ? `${error.hint}; ${hint}` : error.hint);
  }
  if (error instanceof LocalTransportError) return new LocalTransportError(message, context, hint);
  if (error instanceof ConnectionLostError) return new ConnectionLostError(message, context, hint);
  if (error instanceof DaemonUnavailableError) return new DaemonUnavailableError(message, context, hint);
  if (error instanceof DeadlineExceededError) {
    const slow = upload.complete
      ? hint
      : `${hint}; a link slower than the submit allowance needs a larger deadlines.submitPerMiBMs (or timeoutMs)`;
    return new DeadlineExceededError(message, { ...context, timeoutMs: error.timeoutMs }, slow);
  }
  if (error instanceof AbortedError) {
    return new AbortedError(message, { ...context, retryable: false }, upload.complete ? hint : error.hint);
  }
  return error;
}
