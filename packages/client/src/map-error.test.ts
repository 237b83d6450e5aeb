import { Code, ConnectError } from "@connectrpc/connect";
import { CuzkitError } from "@cuzkit/core";
import { describe, expect, it } from "vitest";
import {
  AbortedError,
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
import { toCuzkError, unreachableCode } from "./map-error.js";

function nodeError(code: string, syscall?: string): Error {
  return Object.assign(new Error(`${syscall ?? "op"} ${code}`), { code, ...(syscall ? { syscall } : {}) });
}

describe("toCuzkError", () => {
  it.each([
    [
      Code.Canceled,
      "http/2 stream closed with error code CANCEL (0x8)",
      ConnectionLostError,
      "CONNECTION_LOST",
    ],
    [Code.Unknown, "something odd", DaemonInternalError, "DAEMON_INTERNAL"],
    [Code.InvalidArgument, "invalid proof_kind: 9", InvalidRequestError, "INVALID_REQUEST"],
    [Code.DeadlineExceeded, "the operation timed out", DeadlineExceededError, "DEADLINE_EXCEEDED"],
    [Code.NotFound, "job not found: x", JobNotFoundError, "JOB_NOT_FOUND"],
    [Code.AlreadyExists, "exists", DaemonInternalError, "DAEMON_INTERNAL"],
    [Code.PermissionDenied, "no", DaemonInternalError, "DAEMON_INTERNAL"],
    [
      Code.ResourceExhausted,
      "Received message larger than max (200 vs. 100)",
      PayloadTooLargeError,
      "PAYLOAD_TOO_LARGE",
    ],
    [Code.FailedPrecondition, "not ready", DaemonInternalError, "DAEMON_INTERNAL"],
    [Code.Aborted, "read ECONNRESET", ConnectionLostError, "CONNECTION_LOST"],
    [
      Code.OutOfRange,
      "Error, decoded message length too large: found 134217729 bytes, the limit is: 134217728 bytes",
      PayloadTooLargeError,
      "PAYLOAD_TOO_LARGE",
    ],
    [Code.Unimplemented, "compression not supported", DaemonInternalError, "DAEMON_INTERNAL"],
    [Code.Internal, "internal error: completion channel dropped", DaemonInternalError, "DAEMON_INTERNAL"],
    [Code.Unavailable, "PING timed out", DaemonFrozenError, "DAEMON_FROZEN"],
    [
      Code.Internal,
      "Stream closed with error code NGHTTP2_ENHANCE_YOUR_CALM",
      LocalTransportError,
      "LOCAL_TRANSPORT",
    ],
    [Code.DataLoss, "lost", DaemonInternalError, "DAEMON_INTERNAL"],
    [Code.Unauthenticated, "who", DaemonInternalError, "DAEMON_INTERNAL"],
  ])("maps connect code %s to a typed error", (code, message, type, stableCode) => {
    const raw = new ConnectError(message, code);
    const mapped = toCuzkError(raw, { rpc: "AwaitProof", jobId: "j-1", address: "127.0.0.1:9820" });
    expect(mapped).toBeInstanceOf(type);
    expect(mapped.code).toBe(stableCode);
    expect(mapped.cause).toBe(raw);
    expect(mapped.hint.length).toBeGreaterThan(10);
    expect(mapped.message).toContain("AwaitProof");
    expect(mapped).toMatchObject({ rpc: "AwaitProof", jobId: "j-1", address: "127.0.0.1:9820" });
  });

  it("keeps a ResourceExhausted that is not about size retryable and internal", () => {
    const mapped = toCuzkError(new ConnectError("out of budget", Code.ResourceExhausted));
    expect(mapped).toBeInstanceOf(DaemonInternalError);
    expect(mapped.retryable).toBe(true);
  });

  it("names a frozen daemon (PING timeout) differently from a killed one", () => {
    const frozen = toCuzkError(new ConnectError("PING timed out", Code.Unavailable));
    const killed = toCuzkError(new ConnectError("stream closed", Code.Canceled));
    expect(frozen.message).toMatch(/PINGs/);
    expect(frozen.hint).toMatch(/nothing answers|stopped answering/);
    expect(frozen.hint).not.toMatch(/warmup/);
    // A closed stream may be the daemon exiting or a proxy in between: claim no more.
    expect(killed.message).toMatch(/the daemon exited, or a proxy or tunnel in between closed it/);
    expect(killed.message).not.toMatch(/the daemon closed the call/);
    expect(killed.hint).toMatch(/OOM-killed/);
  });

  it("reports a caller's AbortSignal.timeout() as DEADLINE_EXCEEDED, a plain abort as ABORTED", () => {
    const canceled = new ConnectError("operation was aborted", Code.Canceled);
    const timeout = AbortSignal.abort(new DOMException("signal timed out", "TimeoutError"));
    const mapped = toCuzkError(canceled, { callerSignal: timeout, rpc: "SubmitProof" });
    expect(mapped).toBeInstanceOf(DeadlineExceededError);
    expect(mapped.code).toBe("DEADLINE_EXCEEDED");
    expect(toCuzkError(canceled, { callerSignal: AbortSignal.abort() }).code).toBe("ABORTED");
  });

  it("treats this side's own HTTP/2 faults as LOCAL_TRANSPORT, never as evidence about the daemon", () => {
    const destroyed = Object.assign(new Error("The session has been destroyed"), {
      code: "ERR_HTTP2_INVALID_SESSION",
    });
    expect(toCuzkError(destroyed).code).toBe("LOCAL_TRANSPORT");
    expect(toCuzkError(new ConnectError("wrapped", Code.Unknown, undefined, undefined, destroyed)).code).toBe(
      "LOCAL_TRANSPORT",
    );
    expect(toCuzkError(destroyed).retryable).toBe(true);
  });

  it("tells a caller abort from a daemon killed mid-call although both arrive as Canceled", () => {
    const canceled = new ConnectError("operation was aborted", Code.Canceled);
    const controller = new AbortController();
    expect(toCuzkError(canceled, { callerSignal: controller.signal })).toBeInstanceOf(ConnectionLostError);
    controller.abort();
    const mapped = toCuzkError(canceled, { callerSignal: controller.signal });
    expect(mapped).toBeInstanceOf(AbortedError);
    expect(mapped.code).toBe("ABORTED");
  });

  it("reports a closed client as aborted", () => {
    expect(toCuzkError(new ConnectError("x", Code.Canceled), { clientClosed: true })).toBeInstanceOf(
      AbortedError,
    );
  });

  it.each([
    ["ECONNREFUSED", "connect", /refused/],
    ["ENOENT", "connect", /socket .*does not exist/],
    ["EACCES", "connect", /permission denied/],
    ["ENOTFOUND", "getaddrinfo", /resolve/],
    ["EHOSTUNREACH", "connect", /cannot reach/],
  ])("maps %s in the cause chain to DaemonUnavailableError", (code, syscall, why) => {
    const raw = new ConnectError(
      "connect failed",
      Code.Unavailable,
      undefined,
      undefined,
      nodeError(code, syscall),
    );
    const mapped = toCuzkError(raw, { address: "unix:///run/curio/cuzk.sock" });
    expect(mapped).toBeInstanceOf(DaemonUnavailableError);
    expect(mapped.message).toMatch(why);
    expect(mapped.retryable).toBe(true);
  });

  it("does not take an ENOENT from a file read for a missing daemon", () => {
    expect(unreachableCode(nodeError("ENOENT", "open"))).toBeUndefined();
    expect(unreachableCode(nodeError("ENOENT", "connect"))).toBe("ENOENT");
  });

  it("treats http/2 stream resets reported as Internal as a lost connection", () => {
    const mapped = toCuzkError(
      new ConnectError("http/2 stream closed with error code INTERNAL_ERROR (0x2)", Code.Internal),
    );
    expect(mapped).toBeInstanceOf(ConnectionLostError);
  });

  it("returns cuzkit errors unchanged and wraps unknown values without leaking them raw", () => {
    const own = new JobNotFoundError("x");
    expect(toCuzkError(own)).toBe(own);
    const odd = toCuzkError("a string");
    expect(CuzkitError.is(odd)).toBe(true);
    // A typed client error, never a bare CuzkitError("INTERNAL").
    expect(odd).toBeInstanceOf(DaemonInternalError);
    expect(odd.code).toBe("DAEMON_INTERNAL");
    const timeout = toCuzkError(new DOMException("timed out", "TimeoutError"), { timeoutMs: 5 });
    expect(timeout).toBeInstanceOf(DeadlineExceededError);
    expect((timeout as DeadlineExceededError).timeoutMs).toBe(5);
    expect(toCuzkError(new DOMException("aborted", "AbortError"))).toBeInstanceOf(AbortedError);
  });
});
