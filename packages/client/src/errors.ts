import { CuzkitError, type CuzkitErrorOptions } from "@cuzkit/core";
import type { StuckSample } from "./stuck.js";

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
}

/** What to check when a daemon may have been OOM-killed, and what to lower if it was. */
const oomEvidence =
  "check `dmesg` (or `journalctl -k`) for 'Out of memory: Killed process' and the supervisor's log " +
  "(`journalctl -u cuzk`, `systemctl status cuzk`); if it was, lower the partition workers / concurrency " +
  "(pipeline.max_parallel_synthesis, fewer proofs in flight); @cuzkit/tuner picks values that fit the machine";

/** Hint for a daemon that restarted: an OOM kill is the usual cause, the kernel log says. */
export const oomHint = `the daemon may have been OOM-killed; ${oomEvidence}`;

/** Hint for a daemon that refused connections and never came back: one possibility among several. */
export const unreachableHint =
  "the daemon process may have died (an OOM kill is the common cause) or something between you and it " +
  `(an SSH tunnel, a port mapping, a firewall) went away; to know which, ${oomEvidence}`;

/** The hint of an error raised after the request may have reached the daemon. */
export function awaitJobHint(jobId: string): string {
  return (
    `the job may still be running on the daemon: wait for it with awaitProof("${jobId}"); ` +
    "do not submit the same request id again (the daemon does not deduplicate: the work would run twice)"
  );
}

/** What every client error takes: `new XError(message, { hint?, retryable?, cause?, rpc?, jobId?, address? })`. */
export type ClientErrorOptions<Code extends ClientErrorCode = ClientErrorCode> = CuzkitErrorOptions<Code> &
  ClientErrorContext;

/** Base of the client's errors: a CuzkitError with the RPC, job id and address attached. */
export class CuzkClientError<Code extends ClientErrorCode = ClientErrorCode> extends CuzkitError<Code> {
  /** The RPC that failed, when known. */
  readonly rpc: string | undefined;
  /** The job id (request id of the attempt), when known. */
  readonly jobId: string | undefined;
  /** The daemon address, when known. */
  readonly address: string | undefined;

  constructor(message: string, options: ClientErrorOptions<Code> = {}) {
    super(message, options);
    this.rpc = options.rpc;
    this.jobId = options.jobId;
    this.address = options.address;
  }
}

/** A subclass's options: its code, and its default hint and retryable unless the caller gave them. */
function classDefaults<Code extends ClientErrorCode>(
  options: Omit<ClientErrorOptions, "code">,
  code: Code,
  retryable: boolean,
  hint: string,
): ClientErrorOptions<Code> {
  return { ...options, code, retryable: options.retryable ?? retryable, hint: options.hint ?? hint };
}

/** Options of a subclass (its code is its own). */
export type ClientSubclassOptions = Omit<ClientErrorOptions, "code">;

/** The daemon cannot be reached: connection refused, socket missing, or it never answered. */
export class DaemonUnavailableError extends CuzkClientError<"DAEMON_UNAVAILABLE"> {
  constructor(message: string, options: ClientSubclassOptions = {}) {
    super(
      message,
      classDefaults(
        options,
        "DAEMON_UNAVAILABLE",
        true,
        "check that the cuzk daemon is running and listening on this address (`ss -ltnpx | grep cuzk`); " +
          "after a start it can take minutes to load parameters before it listens (use waitForReady)",
      ),
    );
  }
}

/** An open call lost its connection: the daemon died, froze (no PING answer) or the network broke. */
export class ConnectionLostError extends CuzkClientError<"CONNECTION_LOST"> {
  constructor(message: string, options: ClientSubclassOptions = {}) {
    super(
      message,
      classDefaults(
        options,
        "CONNECTION_LOST",
        true,
        "the connection to the daemon broke during the call (the daemon exited, or a proxy, tunnel or network " +
          `in between closed it); if the daemon restarted, ${oomHint}`,
      ),
    );
  }
}

/** The daemon restarted while a job was in flight; the job and its result are gone. */
export class DaemonRestartedError extends CuzkClientError<"DAEMON_RESTARTED"> {
  constructor(message: string, options: ClientSubclassOptions = {}) {
    super(
      message,
      classDefaults(
        options,
        "DAEMON_RESTARTED",
        true,
        `${oomHint}; resubmit the proof (prove(request, { resubmit: true }))`,
      ),
    );
  }
}

/** The daemon stopped answering (no HTTP/2 PING answer, probes unanswered) while its process may be alive. */
export class DaemonFrozenError extends CuzkClientError<"DAEMON_FROZEN"> {
  constructor(message: string, options: ClientSubclassOptions = {}) {
    super(
      message,
      classDefaults(
        options,
        "DAEMON_FROZEN",
        false,
        "the daemon stopped answering while its port still accepts connections: stopped (SIGSTOP), swapping, " +
          "a hung GPU driver, or a network that drops packets; check `top`/`vmstat`/`nvidia-smi` on the host and " +
          "the daemon's log, then restart the daemon if it stays stuck",
      ),
    );
  }
}

/** Hint for a job the daemon holds without progress. */
export const stuckHint =
  "the daemon answers but finishes nothing: check its log for the job id and `nvidia-smi` on the host (a GPU " +
  "call or driver that never returns, a wedged synthesis); restart the daemon if it stays so (its jobs are " +
  "lost then; resubmit after), or raise the stuck window (stuck.marginFactor / stuck.afterMs) if proofs on " +
  "this machine are legitimately slower. The job was not resubmitted";

/** The evidence of a stuck job: what the daemon reported while the job made no progress. */
export interface StuckEvidence {
  /** How long the job went without progress, ms (client clock, monotonic). */
  noProgressForMs: number;
  /** The window it was allowed, ms (the model's ETA x margin, at least the floor; or the fixed stuck.afterMs). */
  windowMs: number;
  /** The model's expected duration of the proof in ms; undefined when a fixed window was given. */
  etaMs: number | undefined;
  /** The margin factor applied to the ETA; undefined when a fixed window was given. */
  marginFactor: number | undefined;
  /** The GPU names GetStatus reported (the ETA assumes the slowest the catalog knows, else a slow default). */
  gpuNames: string[];
  /** The last GetStatus seen: the progress sample, with the daemon's uptime in seconds. */
  lastStatus: Omit<StuckSample, "atMs"> & { uptimeSeconds: number };
  /** GetStatus answers seen while awaiting the job. */
  samples: number;
}

/** The daemon answers GetStatus but the job made no progress for longer than its expected duration x a margin. */
export class DaemonStuckError extends CuzkClientError<"DAEMON_STUCK"> {
  /** What was seen, when known. */
  readonly evidence: StuckEvidence | undefined;

  constructor(
    message: string,
    options: ClientSubclassOptions & { evidence?: StuckEvidence | undefined } = {},
  ) {
    super(message, classDefaults(options, "DAEMON_STUCK", false, stuckHint));
    this.evidence = options.evidence;
  }
}

/** A fault of this client's own HTTP/2 connection (ENHANCE_YOUR_CALM, a session this side destroyed): no evidence about the daemon. */
export class LocalTransportError extends CuzkClientError<"LOCAL_TRANSPORT"> {
  constructor(message: string, options: ClientSubclassOptions = {}) {
    super(
      message,
      classDefaults(
        options,
        "LOCAL_TRANSPORT",
        true,
        "this client's own HTTP/2 connection failed (not the daemon); the client opened a fresh one, call again",
      ),
    );
  }
}

/** submitProof/proveOnce were given a request id this client already sent (message: `requestIdReusedMessage`). */
export class RequestIdReusedError extends CuzkClientError<"REQUEST_ID_REUSED"> {
  /** The id that was refused. */
  readonly requestId: string;

  constructor(message: string, options: ClientSubclassOptions & { requestId: string }) {
    super(
      message,
      classDefaults(
        { ...options, jobId: options.jobId ?? options.requestId },
        "REQUEST_ID_REUSED",
        false,
        `wait for the first submission with awaitProof("${options.requestId}"), or use a new request id; pass ` +
          "allowReusedId: true only if you know the first one never ran",
      ),
    );
    this.requestId = options.requestId;
  }
}

/** The message of a RequestIdReusedError. */
export function requestIdReusedMessage(requestId: string): string {
  return (
    `request id ${JSON.stringify(requestId)} was already sent by this client; the daemon does not deduplicate ` +
    "request ids, so a second submission runs the work twice and can mix the partitions of two proofs"
  );
}

/** The call's deadline passed. For a proof, the job may still be running on the daemon. */
export class DeadlineExceededError extends CuzkClientError<"DEADLINE_EXCEEDED"> {
  /** The deadline that passed, in milliseconds, when known. */
  readonly timeoutMs: number | undefined;

  constructor(message: string, options: ClientSubclassOptions & { timeoutMs?: number | undefined } = {}) {
    super(
      message,
      classDefaults(
        options,
        "DEADLINE_EXCEEDED",
        true,
        "the daemon did not answer in time; a proof job keeps running after a deadline, so await it again " +
          "with awaitProof(jobId), or raise the deadline (timeoutMs)",
      ),
    );
    this.timeoutMs = options.timeoutMs;
  }
}

/** The daemon ran the proof and reported FAILED; `daemonMessage` carries the daemon's own text. */
export class ProofFailedError extends CuzkClientError<"PROOF_FAILED"> {
  /** The daemon's error_message, verbatim. */
  readonly daemonMessage: string;

  constructor(message: string, options: ClientSubclassOptions & { daemonMessage: string }) {
    super(
      message,
      classDefaults(
        options,
        "PROOF_FAILED",
        false,
        "the daemon rejected or could not prove this input; check its log for the job id. A bad input " +
          "(C1 file, vanilla proofs, registered proof) fails the same way every time",
      ),
    );
    this.daemonMessage = options.daemonMessage;
  }
}

/** The request is invalid: found by the client before sending, or rejected by the daemon. */
export class InvalidRequestError extends CuzkClientError<"INVALID_REQUEST"> {
  constructor(message: string, options: ClientSubclassOptions = {}) {
    super(message, classDefaults(options, "INVALID_REQUEST", false, ""));
  }
}

/** The encoded request exceeds the daemon's message cap (128 MiB). */
export class PayloadTooLargeError extends CuzkClientError<"PAYLOAD_TOO_LARGE"> {
  /** Encoded size of the request in bytes, when known. */
  readonly sizeBytes: number | undefined;
  /** The cap in bytes. */
  readonly limitBytes: number;

  constructor(
    message: string,
    options: ClientSubclassOptions & { sizeBytes?: number | undefined; limitBytes: number },
  ) {
    super(
      message,
      classDefaults(
        options,
        "PAYLOAD_TOO_LARGE",
        false,
        "the daemon accepts at most 128 MiB per message; check the input file (a 32 GiB PoRep C1 is about 51 MB) " +
          "or split WindowPoSt sectors over more partitions",
      ),
    );
    this.sizeBytes = options.sizeBytes;
    this.limitBytes = options.limitBytes;
  }
}

/** The daemon does not know this job id: never submitted, or lost in a daemon restart. */
export class JobNotFoundError extends CuzkClientError<"JOB_NOT_FOUND"> {
  constructor(message: string, options: ClientSubclassOptions = {}) {
    super(
      message,
      classDefaults(
        options,
        "JOB_NOT_FOUND",
        false,
        "the daemon keeps jobs only in memory: after a restart every job is gone and must be resubmitted " +
          "with a new request id",
      ),
    );
  }
}

/** The caller aborted (its AbortSignal fired) or closed the client. */
export class AbortedError extends CuzkClientError<"ABORTED"> {
  constructor(message: string, options: ClientSubclassOptions = {}) {
    super(
      message,
      classDefaults(
        options,
        "ABORTED",
        false,
        "the caller cancelled the call; note that the daemon cannot cancel a proof (CancelProof is a no-op), " +
          "so a submitted job keeps running",
      ),
    );
  }
}

/** A daemon address the client cannot use. */
export class InvalidAddressError extends CuzkClientError<"INVALID_ADDRESS"> {
  constructor(message: string, options: ClientSubclassOptions = {}) {
    super(
      message,
      classDefaults(
        options,
        "INVALID_ADDRESS",
        false,
        "write the address as `unix:///run/curio/cuzk.sock`, `127.0.0.1:9820`, `[::1]:9820`, `localhost:9820` " +
          "or `http://127.0.0.1:9820`",
      ),
    );
  }
}

/** The daemon answered with an internal error, or with something the client cannot read. */
export class DaemonInternalError extends CuzkClientError<"DAEMON_INTERNAL"> {
  constructor(message: string, options: ClientSubclassOptions = {}) {
    super(
      message,
      classDefaults(
        options,
        "DAEMON_INTERNAL",
        false,
        "the daemon reported an internal error; check its log (and its version against this client's)",
      ),
    );
  }
}

/** Stable codes of the client's errors. */
export const clientErrorCodes = [
  "DAEMON_UNAVAILABLE",
  "CONNECTION_LOST",
  "DAEMON_RESTARTED",
  "DAEMON_FROZEN",
  "DAEMON_STUCK",
  "LOCAL_TRANSPORT",
  "REQUEST_ID_REUSED",
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
