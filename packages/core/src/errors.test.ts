import { describe, expect, it, vi } from "vitest";
import { CuzkitError, InvalidInputError, toCuzkitError } from "./errors.js";

describe("CuzkitError", () => {
  it("carries code, retryable, hint and cause", () => {
    const cause = new Error("socket hang up");
    const error = new CuzkitError("lost", {
      code: "CONNECTION_LOST",
      hint: "check dmesg",
      retryable: true,
      cause,
    });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe("CuzkitError");
    expect(error.code).toBe("CONNECTION_LOST");
    expect(error.retryable).toBe(true);
    expect(error.hint).toBe("check dmesg");
    expect(error.cause).toBe(cause);
  });

  it("names subclasses after themselves and defaults to not retryable", () => {
    const error = new InvalidInputError("bad size", { hint: "write 256GiB" });
    expect(error.name).toBe("InvalidInputError");
    expect(error.code).toBe("INVALID_INPUT");
    expect(error.retryable).toBe(false);
    expect(CuzkitError.is(error)).toBe(true);
  });

  it("recognises errors from a second copy of the module (two installed versions) by its brand", async () => {
    // A fresh evaluation of errors.ts: its classes are distinct objects, as in a second copy.
    vi.resetModules();
    const secondCopy = "./errors.js?copy";
    const copy: typeof import("./errors.js") = await import(/* @vite-ignore */ secondCopy);
    expect(copy.CuzkitError).not.toBe(CuzkitError);
    const foreign = new copy.InvalidInputError("bad size", { hint: "write 256GiB" });
    expect(foreign instanceof CuzkitError).toBe(true);
    expect(foreign instanceof InvalidInputError).toBe(true);
    expect(CuzkitError.is(foreign)).toBe(true);
    // Subclasses are told apart by class name across copies, not just "some cuzkit error".
    class DaemonRestartedError extends CuzkitError {}
    class ForeignRestarted extends copy.CuzkitError {}
    Object.defineProperty(ForeignRestarted, "name", { value: "DaemonRestartedError" });
    expect(new ForeignRestarted("gone") instanceof DaemonRestartedError).toBe(true);
    expect(foreign instanceof DaemonRestartedError).toBe(false);
    expect(new CuzkitError("x") instanceof InvalidInputError).toBe(false);
    // Only branded errors count: a plain Error with the same fields is not one of ours.
    const lookalike = Object.assign(new Error("x"), { code: "X", retryable: false, hint: "" });
    expect(lookalike instanceof CuzkitError).toBe(false);
    expect(CuzkitError.is(new Error("plain"))).toBe(false);
  });

  it("wraps anything thrown and keeps the original", () => {
    const wrapped = toCuzkitError("boom", "INTERNAL", "report it");
    expect(wrapped.message).toBe("boom");
    expect(wrapped.cause).toBe("boom");
    const original = new InvalidInputError("a", { hint: "b" });
    expect(toCuzkitError(original)).toBe(original);
  });
});
