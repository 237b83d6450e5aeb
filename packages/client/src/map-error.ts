import { Code, ConnectError } from "@connectrpc/connect";
import { CuzkitError, daemonMaxMessageBytes } from "@cuzkit/core";
import {
  AbortedError,
  type ClientErrorContext,
  ConnectionLostError,
  DaemonInternalError,
  DaemonUnavailableError,
  DeadlineExceededError,
  InvalidRequestError,
  JobNotFoundError,
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
  code?: string;
  syscall?: string;
}

function errorChain(value: unknown): NodeErrorProps[] {
  const chain: NodeErrorProps[] = [];
  const seen = new Set<unknown>();
  let current: unknown = value;
  while (current instanceof Error && !seen.has(current)) {
    seen.add(current);
    const { code, syscall } = current as { code?: unknown; syscall?: unknown };
    chain.push({
      ...(typeof code === "string" ? { code } : {}),
      ...(typeof syscall === "string" ? { syscall } : {}),
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

/**
 * Turns anything a call can throw (ConnectError, Node errors, abort reasons) into one of the
 * client's typed errors. Raw gRPC/connect errors never leave the client; the original is kept
 * as `cause`. A caller abort wins over everything: connect-node reports a daemon killed
 * mid-call as Canceled too, so the caller's own signal is what tells the two apart.
 */
export function toCuzkError(error: unknown, context: MapErrorContext = {}): CuzkitError {
  const ctx: ClientErrorContext = {
    rpc: context.rpc,
    jobId: context.jobId,
    address: context.address,
    cause: error,
  };
  const on = context.rpc ? ` (${context.rpc})` : "";
  if (context.callerSignal?.aborted) {
    return new AbortedError(`aborted by the caller${on}`, {
      ...ctx,
      cause: context.callerSignal.reason ?? error,
    });
  }
  if (context.clientClosed) return new AbortedError(`the client was closed${on}`, ctx);
  if (CuzkitError.is(error)) return error;

  const unreachable = unreachableCode(error);
  if (unreachable !== undefined) {
    const hint =
      unreachable === "EACCES"
        ? "run as a user that may open the daemon's socket, or fix its permissions"
        : undefined;
    return new DaemonUnavailableError(`${unreachableMessage(unreachable, context)}${on}`, ctx, hint);
  }

  if (!(error instanceof ConnectError)) {
    if (error instanceof Error && (error.name === "AbortError" || error.name === "TimeoutError")) {
      return error.name === "TimeoutError"
        ? new DeadlineExceededError(`deadline exceeded${on}`, { ...ctx, timeoutMs: context.timeoutMs })
        : new AbortedError(`aborted${on}`, ctx);
    }
    const message = error instanceof Error ? error.message : String(error);
    return new CuzkitError("INTERNAL", `unexpected error${on}: ${message}`, {
      cause: error,
      hint: "this is probably a bug in cuzkit; please report it with the stack trace",
    });
  }

  const raw = error.rawMessage;
  switch (error.code) {
    case Code.Canceled:
      // Not the caller (checked above): the daemon side closed the stream, which is what a
      // killed daemon looks like (RST_STREAM CANCEL or a closed session).
      return new ConnectionLostError(`the daemon closed the call mid-flight${on}: ${raw}`, ctx);
    case Code.Aborted:
      return new ConnectionLostError(`the connection was reset${on}: ${raw}`, ctx);
    case Code.Unavailable:
      if (/ping timed out/i.test(raw)) {
        return new ConnectionLostError(
          `the daemon stopped answering HTTP/2 PINGs${on}: it is frozen, stopped or unreachable`,
          ctx,
          "the daemon process is alive but not responding (stopped with SIGSTOP, swapping heavily, or the network " +
            "dropped); check `top`/`vmstat` on the host and the daemon's log. If it was then killed: " +
            "check `dmesg` for an OOM kill",
        );
      }
      return new ConnectionLostError(`the daemon became unavailable${on}: ${raw}`, ctx);
    case Code.DeadlineExceeded:
      return new DeadlineExceededError(
        `deadline exceeded${context.timeoutMs !== undefined ? ` after ${context.timeoutMs} ms` : ""}${on}`,
        { ...ctx, timeoutMs: context.timeoutMs },
      );
    case Code.InvalidArgument:
      return new InvalidRequestError(
        `the daemon rejected the request${on}: ${raw}`,
        "fix the request (proof kind, request fields); the daemon validates little, so check the input as well",
        ctx,
      );
    case Code.NotFound:
      return new JobNotFoundError(`the daemon does not know this job${on}: ${raw}`, ctx);
    case Code.OutOfRange:
      return new PayloadTooLargeError(
        `the daemon refused the request size${on}: ${raw}`,
        undefined,
        daemonMaxMessageBytes,
        ctx,
      );
    case Code.ResourceExhausted:
      if (/larger than max|too large/i.test(raw)) {
        return new PayloadTooLargeError(
          `the request is too large${on}: ${raw}`,
          undefined,
          daemonMaxMessageBytes,
          ctx,
        );
      }
      return new DaemonInternalError(`the daemon is out of a resource${on}: ${raw}`, ctx, undefined, true);
    case Code.Unimplemented:
      return new DaemonInternalError(
        `the daemon does not implement this${on}: ${raw}`,
        ctx,
        "the daemon is older than this client or the address points at another gRPC server; check `cuzk --version`",
      );
    case Code.Internal:
    case Code.Unknown:
      if (/http\/2 (stream|session)|stream closed|goaway|socket hang up/i.test(raw)) {
        return new ConnectionLostError(`the connection broke${on}: ${raw}`, ctx);
      }
      return new DaemonInternalError(`the daemon reported an error${on}: ${raw}`, ctx);
    default:
      return new DaemonInternalError(
        `the daemon answered ${Code[error.code] ?? error.code}${on}: ${raw}`,
        ctx,
      );
  }
}
