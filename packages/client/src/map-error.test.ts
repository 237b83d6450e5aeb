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
    // The daemon's side of the connection went away under the call: a lost connection, not a fault inside it.
    [Code.Unknown, "socket hang up", ConnectionLostError, "CONNECTION_LOST"],
    [
      Code.Internal,
      "http/2 stream closed with error code PROTOCOL_ERROR",
      ConnectionLostError,
      "CONNECTION_LOST",
    ],
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

describe("toCuzkError, branch by branch", () => {
  const context = { rpc: "AwaitProof", jobId: "j-1", address: "127.0.0.1:9820" } as const;

  it.each([
    ["a closed client", new ConnectError("x", Code.Canceled), { clientClosed: true }, "ABORTED"],
    ["an AbortError", new DOMException("aborted", "AbortError"), {}, "ABORTED"],
    ["a plain Error", new Error("boom"), {}, "DAEMON_INTERNAL"],
    [
      "Unavailable without a PING timeout",
      new ConnectError("read ECONNRESET", Code.Unavailable),
      {},
      "CONNECTION_LOST",
    ],
    ["an unknown code", new ConnectError("lost", Code.DataLoss), {}, "DAEMON_INTERNAL"],
    [
      "a refused stream",
      new ConnectError("NGHTTP2_ENHANCE_YOUR_CALM", Code.ResourceExhausted),
      {},
      "LOCAL_TRANSPORT",
    ],
    [
      "an unreachable daemon",
      new ConnectError("x", Code.Unavailable, undefined, undefined, nodeError("ECONNREFUSED", "connect")),
      {},
      "DAEMON_UNAVAILABLE",
    ],
  ] as const)("keeps the call's rpc, job id, address and cause on %s", (_name, raw, extra, code) => {
    const mapped = toCuzkError(raw, { ...context, ...extra });
    expect(mapped.code).toBe(code);
    expect(mapped).toMatchObject({ rpc: "AwaitProof", jobId: "j-1", address: "127.0.0.1:9820" });
    expect(mapped.cause).toBe(raw);
  });

  it("calls a plain Error a bug to report, not an abort", () => {
    const mapped = toCuzkError(new Error("boom"));
    expect(mapped).toBeInstanceOf(DaemonInternalError);
    expect(mapped.hint).toMatch(/bug in cuzkit/);
  });

  it("keeps the caller's own abort reason and deadline as the cause", () => {
    const reason = new Error("user pressed stop");
    const canceled = new ConnectError("operation was aborted", Code.Canceled);
    const aborted = toCuzkError(canceled, { ...context, callerSignal: AbortSignal.abort(reason) });
    expect(aborted).toMatchObject({ code: "ABORTED", rpc: "AwaitProof", jobId: "j-1" });
    expect(aborted.cause).toBe(reason);
    const timeout = new DOMException("signal timed out", "TimeoutError");
    const deadline = toCuzkError(canceled, {
      ...context,
      timeoutMs: 5_000,
      callerSignal: AbortSignal.abort(timeout),
    });
    expect(deadline).toMatchObject({ code: "DEADLINE_EXCEEDED", rpc: "AwaitProof", timeoutMs: 5_000 });
    expect(deadline.cause).toBe(timeout);
  });

  it("says how long the deadline was when it knows", () => {
    const raw = new ConnectError("timed out", Code.DeadlineExceeded);
    expect(toCuzkError(raw, { timeoutMs: 5_000 }).message).toContain("after 5000 ms");
    expect(toCuzkError(raw).message).not.toContain("after");
  });

  it("names the connect code of an answer it has no mapping for", () => {
    expect(toCuzkError(new ConnectError("lost", Code.DataLoss)).message).toContain("DataLoss");
  });

  it("points an Unimplemented answer at the daemon's version", () => {
    const mapped = toCuzkError(new ConnectError("unknown service", Code.Unimplemented));
    expect(mapped.hint).toContain("cuzk --version");
  });

  it("gives the permission hint only for a socket it may not open", () => {
    const denied = toCuzkError(
      new ConnectError("x", Code.Unavailable, undefined, undefined, nodeError("EACCES", "connect")),
    );
    expect(denied.hint).toMatch(/permissions/);
    const refused = toCuzkError(
      new ConnectError("x", Code.Unavailable, undefined, undefined, nodeError("ECONNREFUSED", "connect")),
    );
    expect(refused.hint).not.toMatch(/permissions/);
  });

  it("takes a session fault by its code alone, whatever the message", () => {
    const invalid = Object.assign(new Error("stream write after end"), { code: "ERR_HTTP2_INVALID_SESSION" });
    expect(toCuzkError(invalid).code).toBe("LOCAL_TRANSPORT");
    expect(toCuzkError(Object.assign(new Error("stream write after end"), { code: 42 })).code).toBe(
      "DAEMON_INTERNAL",
    );
  });
});

describe("unreachableCode", () => {
  it("looks past errors whose code is not about reaching the daemon", () => {
    const outer = Object.assign(new Error("write EPIPE", { cause: nodeError("ECONNREFUSED", "connect") }), {
      code: "EPIPE",
    });
    expect(unreachableCode(outer)).toBe("ECONNREFUSED");
    expect(unreachableCode(nodeError("EPIPE", "write"))).toBeUndefined();
  });

  it("takes ENOENT and EACCES only from a connect (or an error that names no syscall)", () => {
    expect(unreachableCode(nodeError("EACCES", "open"))).toBeUndefined();
    expect(unreachableCode(nodeError("EACCES", "connect"))).toBe("EACCES");
    expect(unreachableCode(nodeError("ENOENT"))).toBe("ENOENT");
    // Other codes come from connect or DNS alike.
    expect(unreachableCode(nodeError("ENOTFOUND", "getaddrinfo"))).toBe("ENOTFOUND");
  });
});
