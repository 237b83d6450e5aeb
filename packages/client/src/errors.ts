import { CuzkitError } from "@cuzkit/core";

// The client's error model: one class per failure an operator must tell apart. Every error
// carries a stable `code`, `retryable`, a `hint` saying what to do, and the original `cause`.

/** Where a client error happened; every field is optional and only set when known. */
export interface ClientErrorContext {
  /** The RPC that failed, such as `AwaitProof`. */
  rpc?: string | undefined;
  /** The daemon's job id (= the request id of the attempt). */
  jobId?: string | undefined;
  /** The daemon address as the client was given it. */
  address?: string | undefined;
  /** The underlying error. */
  cause?: unknown;
}

/** Hint for a connection that broke and a daemon that then refused or restarted. */
export const oomHint =
  "the daemon was probably OOM-killed; check `dmesg` (or `journalctl -k`) for 'Out of memory: Killed process', " +
  "and lower the partition workers / concurrency (pipeline.max_parallel_synthesis, fewer proofs in flight), see `cuzkit tune`";

/** Base of the client's errors: a CuzkitError with the RPC, job id and address attached. */
export class CuzkClientError extends CuzkitError {
  /** The RPC that failed, when known. */
  readonly rpc: string | undefined;
  /** The job id (request id of the attempt), when known. */
  readonly jobId: string | undefined;
  /** The daemon address, when known. */
  readonly address: string | undefined;

  constructor(code: string, message: string, retryable: boolean, hint: string, context: ClientErrorContext) {
    super(code, message, { hint, retryable, cause: context.cause });
    this.rpc = context.rpc;
    this.jobId = context.jobId;
    this.address = context.address;
  }
}

/** The daemon cannot be reached: connection refused, socket missing, or it never answered. */
export class DaemonUnavailableError extends CuzkClientError {
  constructor(message: string, context: ClientErrorContext = {}, hint?: string) {
    super(
      "DAEMON_UNAVAILABLE",
      message,
      true,
      hint ??
        "check that the cuzk daemon is running and listening on this address (`ss -ltnpx | grep cuzk`); " +
          "after a start it can take minutes to load parameters before it listens (use waitForReady)",
      context,
    );
  }
}

/** An open call lost its connection: the daemon died, froze (no PING answer) or the network broke. */
export class ConnectionLostError extends CuzkClientError {
  constructor(message: string, context: ClientErrorContext = {}, hint?: string) {
    super(
      "CONNECTION_LOST",
      message,
      true,
      hint ??
        "the connection to the daemon broke during the call; if the daemon process is gone or restarted, " +
          oomHint,
      context,
    );
  }
}

/** The daemon restarted while a job was in flight; the job and its result are gone. */
export class DaemonRestartedError extends CuzkClientError {
  constructor(message: string, context: ClientErrorContext = {}, hint?: string) {
    super(
      "DAEMON_RESTARTED",
      message,
      true,
      hint ?? `${oomHint}; resubmit the proof (prove with resubmit)`,
      context,
    );
  }
}

/** The call's deadline passed. For a proof, the job may still be running on the daemon. */
export class DeadlineExceededError extends CuzkClientError {
  /** The deadline that passed, in milliseconds, when known. */
  readonly timeoutMs: number | undefined;

  constructor(
    message: string,
    context: ClientErrorContext & { timeoutMs?: number | undefined } = {},
    hint?: string,
  ) {
    super(
      "DEADLINE_EXCEEDED",
      message,
      true,
      hint ??
        "the daemon did not answer in time; a proof job keeps running after a deadline, so await it again " +
          "with awaitProof(jobId), or raise the deadline (a first proof without caches needs 2-3x longer: use warmup)",
      context,
    );
    this.timeoutMs = context.timeoutMs;
  }
}

/** The daemon ran the proof and reported FAILED; `message` carries the daemon's own text. */
export class ProofFailedError extends CuzkClientError {
  /** The daemon's error_message, verbatim. */
  readonly daemonMessage: string;

  constructor(daemonMessage: string, context: ClientErrorContext = {}) {
    super(
      "PROOF_FAILED",
      `the daemon failed the proof${context.jobId ? ` ${context.jobId}` : ""}: ${daemonMessage || "(no message)"}`,
      false,
      "the daemon rejected or could not prove this input; check its log for the job id. A bad input " +
        "(C1 file, vanilla proofs, registered proof) fails the same way every time",
      context,
    );
    this.daemonMessage = daemonMessage;
  }
}

/** The request is invalid: found by the client before sending, or rejected by the daemon. */
export class InvalidRequestError extends CuzkClientError {
  constructor(message: string, hint: string, context: ClientErrorContext = {}) {
    super("INVALID_REQUEST", message, false, hint, context);
  }
}

/** The encoded request exceeds the daemon's message cap (128 MiB). */
export class PayloadTooLargeError extends CuzkClientError {
  /** Encoded size of the request in bytes, when known. */
  readonly sizeBytes: number | undefined;
  /** The cap in bytes. */
  readonly limitBytes: number;

  constructor(
    message: string,
    sizeBytes: number | undefined,
    limitBytes: number,
    context: ClientErrorContext = {},
  ) {
    super(
      "PAYLOAD_TOO_LARGE",
      message,
      false,
      "the daemon accepts at most 128 MiB per message; check the input file (a 32 GiB PoRep C1 is about 51 MB) " +
        "or split WindowPoSt sectors over more partitions",
      context,
    );
    this.sizeBytes = sizeBytes;
    this.limitBytes = limitBytes;
  }
}

/** The daemon does not know this job id: never submitted, or lost in a daemon restart. */
export class JobNotFoundError extends CuzkClientError {
  constructor(message: string, context: ClientErrorContext = {}) {
    super(
      "JOB_NOT_FOUND",
      message,
      false,
      "the daemon keeps jobs only in memory: after a restart every job is gone and must be resubmitted " +
        "with a new request id",
      context,
    );
  }
}

/** The caller aborted (its AbortSignal fired) or closed the client. */
export class AbortedError extends CuzkClientError {
  constructor(message: string, context: ClientErrorContext = {}) {
    super(
      "ABORTED",
      message,
      false,
      "the caller cancelled the call; note that the daemon cannot cancel a proof (CancelProof is a no-op), " +
        "so a submitted job keeps running",
      context,
    );
  }
}

/** A daemon address the client cannot use. */
export class InvalidAddressError extends CuzkClientError {
  constructor(message: string, context: ClientErrorContext = {}) {
    super(
      "INVALID_ADDRESS",
      message,
      false,
      "write the address as `unix:///run/curio/cuzk.sock`, `127.0.0.1:9820`, `[::1]:9820`, `localhost:9820` " +
        "or `http://127.0.0.1:9820`",
      context,
    );
  }
}

/** The daemon answered with an internal error, or with something the client cannot read. */
export class DaemonInternalError extends CuzkClientError {
  constructor(message: string, context: ClientErrorContext = {}, hint?: string, retryable = false) {
    super(
      "DAEMON_INTERNAL",
      message,
      retryable,
      hint ?? "the daemon reported an internal error; check its log (and its version against this client's)",
      context,
    );
  }
}

/** Stable codes of the client's errors. */
export const clientErrorCodes = [
  "DAEMON_UNAVAILABLE",
  "CONNECTION_LOST",
  "DAEMON_RESTARTED",
  "DEADLINE_EXCEEDED",
  "PROOF_FAILED",
  "INVALID_REQUEST",
  "PAYLOAD_TOO_LARGE",
  "JOB_NOT_FOUND",
  "ABORTED",
  "INVALID_ADDRESS",
  "DAEMON_INTERNAL",
] as const;
/** A stable client error code. */
export type ClientErrorCode = (typeof clientErrorCodes)[number];
