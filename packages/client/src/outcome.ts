import type { CuzkitError } from "@cuzkit/core";
import {
  AbortedError,
  awaitJobHint,
  type ClientErrorContext,
  type ClientSubclassOptions,
  DaemonFrozenError,
  DeadlineExceededError,
} from "./errors.js";
import { breakKindOf } from "./recovery.js";
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

/**
 * The same kind of error with a new message, context and hint, for a break (breakKindOf) or an
 * abort; errors of other kinds are returned unchanged.
 */
function rebuild(
  error: CuzkitError,
  message: string,
  context: ClientErrorContext,
  hint: string,
): CuzkitError {
  if (error instanceof DeadlineExceededError) {
    return new DeadlineExceededError(message, { ...context, timeoutMs: error.timeoutMs, hint });
  }
  if (breakKindOf(error) === undefined && !(error instanceof AbortedError)) return error;
  // Every break error and AbortedError takes (message, options).
  const kind = error.constructor as new (message: string, options: ClientSubclassOptions) => CuzkitError;
  return new kind(message, { ...context, hint });
}

function contextOf(error: CuzkitError, jobId: string, retryable: boolean): ClientSubclassOptions {
  return {
    rpc: (error as { rpc?: string }).rpc,
    address: (error as { address?: string }).address,
    jobId,
    cause: error,
    retryable,
  };
}

/** Rebuilds a transport failure of a submit with the job's fate in its message, retryable flag and hint. */
export function withUploadOutcome(
  error: CuzkitError,
  jobId: string,
  upload: UploadProgress,
  totalBytes: number,
): CuzkitError {
  const message = `${error.message}; ${uploadPhrase(upload, totalBytes)}`;
  // A caller's abort never invites a retry; otherwise only an upload that never got out does.
  const context = contextOf(error, jobId, !upload.complete && !(error instanceof AbortedError));
  if (upload.complete) {
    const hint = awaitJobHint(jobId);
    return rebuild(
      error,
      message,
      context,
      error instanceof DaemonFrozenError ? `${error.hint}; ${hint}` : hint,
    );
  }
  const resend = `send the request again (request id ${JSON.stringify(jobId)} never reached the daemon, so reusing it is safe)`;
  if (error instanceof DeadlineExceededError) {
    return rebuild(
      error,
      message,
      context,
      `${resend}; a link slower than the submit allowance needs a larger deadlines.submitPerMiBMs (or timeoutMs)`,
    );
  }
  if (error instanceof DaemonFrozenError || error instanceof AbortedError) {
    return rebuild(error, message, context, error.hint);
  }
  return rebuild(error, message, context, resend);
}

/** Rebuilds a failure that left a submitted job running: it names the job, is not retryable, and points to awaitProof. */
export function withJobRunning(error: CuzkitError, jobId: string): CuzkitError {
  return rebuild(
    error,
    `${error.message}; job ${jobId} was submitted and may still be running`,
    contextOf(error, jobId, false),
    awaitJobHint(jobId),
  );
}
