import { Code, ConnectError } from "@connectrpc/connect";
import { CuzkitError, daemonMaxMessageBytes } from "@cuzkit/core";
import {
  AbortedError,
  type ClientErrorContext,
  type ClientSubclassOptions,
  ConnectionLostError,
  DaemonFrozenError,
  DaemonInternalError,
  DaemonUnavailableError,
  DeadlineExceededError,
  InvalidRequestError,
  JobNotFoundError,
  LocalTransportError,
  PayloadTooLargeError,
} from "./errors.js";

/** What the mapper needs to know besides the error itself. */
export interface MapErrorContext extends ClientErrorContext {
  /** The caller's own AbortSignal: if it fired, any failure is the caller's abort. */
  callerSignal?: AbortSignal | undefined;
  /** True when the client was closed while the call was open. */
  clientClosed?: boolean | undefined;
  /** The deadline the call ran under, in ms. */
  timeoutMs?: number | undefined;
}

/** Node error codes that mean "nobody is listening there" (the process is gone or not started). */
const unreachableCodes = new Set([
  "ECONNREFUSED",
  "ENOENT",
  "ENOTFOUND",
  "EAI_AGAIN",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EACCES",
  "ENOTSOCK",
]);

interface NodeErrorProps {
  code?: string | undefined;
  syscall?: string | undefined;
}

function errorChain(value: unknown): NodeErrorProps[] {
  const chain: NodeErrorProps[] = [];
  const seen = new Set<unknown>();
  let current: unknown = value;
  while (current instanceof Error && !seen.has(current)) {
    seen.add(current);
    const { code, syscall } = current as { code?: unknown; syscall?: unknown };
    chain.push({
      code: typeof code === "string" ? code : undefined,
      syscall: typeof syscall === "string" ? syscall : undefined,
    });
    current = (current as { cause?: unknown }).cause;
  }
  return chain;
}

/** The Node error code that says the daemon cannot be reached, if the chain holds one. */
export function unreachableCode(error: unknown): string | undefined {
  for (const props of errorChain(error)) {
    if (props.code === undefined || !unreachableCodes.has(props.code)) continue;
    // ENOENT/EACCES also come from file reads; only a failed connect() means "no daemon there".
    if ((props.code === "ENOENT" || props.code === "EACCES") && props.syscall !== undefined) {
      if (props.syscall !== "connect") continue;
    }
    return props.code;
  }
  return undefined;
}

function unreachableMessage(code: string, context: MapErrorContext): string {
  const where = context.address ? ` at ${context.address}` : "";
  switch (code) {
    case "ECONNREFUSED":
      return `the daemon${where} refused the connection (nothing listens there)`;
    case "ENOENT":
      return `the daemon's socket${where} does not exist (daemon not running, or a different listen path)`;
    case "EACCES":
      return `permission denied on the daemon's socket${where}`;
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `cannot resolve the daemon's host${where}`;
    default:
      return `cannot reach the daemon${where} (${code})`;
  }
}

/** Node HTTP/2 error codes raised by this side's own session, never by the daemon. */
const localSessionCodes = new Set(["ERR_HTTP2_INVALID_SESSION"]);

/**
 * True for a fault of this client's own HTTP/2 session: Node refusing streams with
 * ENHANCE_YOUR_CALM (its session memory cap, hit after an upload was cut) or a session this
 * side destroyed. These say nothing about the daemon.
 */
export function isLocalTransportFault(error: unknown): boolean {
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current instanceof Error && !seen.has(current)) {
    seen.add(current);
    const { code } = current as { code?: unknown };
    if (typeof code === "string" && localSessionCodes.has(code)) return true;
    if (/ENHANCE_YOUR_CALM|session has been destroyed|expected open session/i.test(current.message))
      return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** One failure being mapped: the error, its context, the typed errors' options and the " (Rpc)" suffix. */
interface Mapping {
  error: unknown;
  context: MapErrorContext;
  ctx: ClientSubclassOptions;
  on: string;
}

/**
 * Turns anything a call can throw (ConnectError, Node errors, abort reasons) into one of the
 * client's typed errors. Raw gRPC/connect errors never leave the client; the original is kept
 * as `cause`. A caller abort wins over everything: connect-node reports a daemon killed
 * mid-call as Canceled too, so the caller's own signal is what tells the two apart.
 */
export function toCuzkError(error: unknown, context: MapErrorContext = {}): CuzkitError {
  // Already typed (by an inner layer that knew more, e.g. whether the job may be running).
  if (CuzkitError.is(error)) return error;
  const m: Mapping = {
    error,
    context,
    ctx: { rpc: context.rpc, jobId: context.jobId, address: context.address, cause: error },
    on: context.rpc ? ` (${context.rpc})` : "",
  };
  // The order is the precedence: the caller's abort, then this side's own faults, then the daemon's answer.
  const early = callerAbortError(m) ?? thisSideError(m);
  if (early !== undefined) return early;
  if (!(error instanceof ConnectError)) return nonConnectError(m);
  return connectionFault(error, m) ?? callFault(error, m) ?? daemonFault(error, m);
}

/** The caller's signal fired: an AbortSignal.timeout() is the caller's deadline, anything else an abort. */
function callerAbortError({ error, context, ctx, on }: Mapping): CuzkitError | undefined {
  if (!context.callerSignal?.aborted) return undefined;
  const reason: unknown = context.callerSignal.reason;
  // AbortSignal.timeout() is a deadline the caller chose, not a cancellation.
  if (reason instanceof Error && reason.name === "TimeoutError") {
    return new DeadlineExceededError(`the caller's deadline (AbortSignal.timeout) passed${on}`, {
      ...ctx,
      cause: reason,
      timeoutMs: context.timeoutMs,
    });
  }
  return new AbortedError(`aborted by the caller${on}`, { ...ctx, cause: reason ?? error });
}

/** Failures on this side of the wire: the client closed, its own session's fault, or no daemon to dial. */
function thisSideError({ error, context, ctx, on }: Mapping): CuzkitError | undefined {
  if (context.clientClosed) return new AbortedError(`the client was closed${on}`, { ...ctx });
  if (isLocalTransportFault(error)) {
    return new LocalTransportError(
      `this client's HTTP/2 connection failed on its own side${on}: ${error instanceof Error ? error.message : String(error)}`,
      { ...ctx },
    );
  }

  const unreachable = unreachableCode(error);
  if (unreachable !== undefined) {
    const hint =
      unreachable === "EACCES"
        ? "run as a user that may open the daemon's socket, or fix its permissions"
        : undefined;
    return new DaemonUnavailableError(`${unreachableMessage(unreachable, context)}${on}`, { ...ctx, hint });
  }
  return undefined;
}

/** Anything that is not a ConnectError: an abort or timeout reason, else a bug of ours. */
function nonConnectError({ error, context, ctx, on }: Mapping): CuzkitError {
  if (error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError")) {
    return error.name === "TimeoutError"
      ? new DeadlineExceededError(`deadline exceeded${on}`, { ...ctx, timeoutMs: context.timeoutMs })
      : new AbortedError(`aborted${on}`, { ...ctx });
  }
  const message = error instanceof Error ? error.message : String(error);
  return new DaemonInternalError(`unexpected error${on}: ${message}`, {
    ...ctx,
    hint: "this is probably a bug in cuzkit; please report it with the stack trace",
  });
}

/** The codes of a connection that closed, reset or stopped answering; undefined for the others. */
function connectionFault(error: ConnectError, { ctx, on }: Mapping): CuzkitError | undefined {
  const raw = error.rawMessage;
  switch (error.code) {
    case Code.Canceled:
      // Not the caller (checked above): the other end closed the stream. That is what a
      // killed daemon looks like, and also a proxy or tunnel that went away: claim no more.
      return new ConnectionLostError(
        `the connection closed mid-call${on} (the daemon exited, or a proxy or tunnel in between closed it): ${raw}`,
        { ...ctx },
      );
    case Code.Aborted:
      return new ConnectionLostError(`the connection was reset${on}: ${raw}`, { ...ctx });
    case Code.Unavailable:
      if (/ping timed out/i.test(raw)) {
        return new DaemonFrozenError(
          `the daemon stopped answering HTTP/2 PINGs${on}: it is frozen, stopped, or the network in between drops packets`,
          { ...ctx },
        );
      }
      return new ConnectionLostError(`the connection to the daemon broke${on}: ${raw}`, { ...ctx });
    default:
      return undefined;
  }
}

/** The codes about this call: its deadline, its request, its job, its size; undefined for the others. */
function callFault(error: ConnectError, { context, ctx, on }: Mapping): CuzkitError | undefined {
  const raw = error.rawMessage;
  switch (error.code) {
    case Code.DeadlineExceeded:
      return new DeadlineExceededError(
        `deadline exceeded${context.timeoutMs !== undefined ? ` after ${context.timeoutMs} ms` : ""}${on}`,
        { ...ctx, timeoutMs: context.timeoutMs },
      );
    case Code.InvalidArgument:
      return new InvalidRequestError(`the daemon rejected the request${on}: ${raw}`, {
        hint: "fix the request (proof kind, request fields); the daemon validates little, so check the input as well",
        ...ctx,
      });
    case Code.NotFound:
      return new JobNotFoundError(`the daemon does not know this job${on}: ${raw}`, { ...ctx });
    case Code.OutOfRange:
      return new PayloadTooLargeError(`the daemon refused the request size${on}: ${raw}`, {
        limitBytes: daemonMaxMessageBytes,
        ...ctx,
      });
    case Code.ResourceExhausted:
      // ENHANCE_YOUR_CALM (this side's own session cap) was taken above as a local fault.
      if (/larger than max|too large/i.test(raw)) {
        return new PayloadTooLargeError(`the request is too large${on}: ${raw}`, {
          limitBytes: daemonMaxMessageBytes,
          ...ctx,
        });
      }
      return new DaemonInternalError(`the daemon is out of a resource${on}: ${raw}`, {
        ...ctx,
        retryable: true,
      });
    default:
      return undefined;
  }
}

/** The remaining codes: the daemon lacks the method or failed inside (or a stream broke under it). */
function daemonFault(error: ConnectError, { ctx, on }: Mapping): CuzkitError {
  const raw = error.rawMessage;
  switch (error.code) {
    case Code.Unimplemented:
      return new DaemonInternalError(`the daemon does not implement this${on}: ${raw}`, {
        ...ctx,
        hint: "the daemon is older than this client or the address points at another gRPC server; check `cuzk --version`",
      });
    case Code.Internal:
    case Code.Unknown:
      // A fault of this client's own session was taken above (isLocalTransportFault).
      if (/http\/2 (stream|session)|stream closed|goaway|socket hang up/i.test(raw)) {
        return new ConnectionLostError(`the connection broke${on}: ${raw}`, { ...ctx });
      }
      return new DaemonInternalError(`the daemon reported an error${on}: ${raw}`, { ...ctx });
    default:
      return new DaemonInternalError(`the daemon answered ${Code[error.code] ?? error.code}${on}: ${raw}`, {
        ...ctx,
      });
  }
}
