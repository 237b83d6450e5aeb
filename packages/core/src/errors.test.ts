import { describe, expect, it } from "vitest";
import { CuzkitError, InvalidInputError, toCuzkitError } from "./errors.js";

describe("CuzkitError", () => {
  it("carries code, retryable, hint and cause", () => {
    const cause = new Error("socket hang up");
    const error = new CuzkitError("CONNECTION_LOST", "lost", { hint: "check dmesg", retryable: true, cause });
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe("CuzkitError");
    expect(error.code).toBe("CONNECTION_LOST");
    expect(error.retryable).toBe(true);
    expect(error.hint).toBe("check dmesg");
    expect(error.cause).toBe(cause);
  });

  it("names subclasses after themselves and defaults to not retryable", () => {
    const error = new InvalidInputError("bad size", "write 256GiB");
    expect(error.name).toBe("InvalidInputError");
    expect(error.code).toBe("INVALID_INPUT");
    expect(error.retryable).toBe(false);
    expect(CuzkitError.is(error)).toBe(true);
  });

  it("recognises errors from another copy of the package by shape", () => {
    const foreign = Object.assign(new Error("x"), { code: "X", retryable: false, hint: "" });
    expect(CuzkitError.is(foreign)).toBe(true);
    expect(CuzkitError.is(new Error("plain"))).toBe(false);
  });

  it("wraps anything thrown and keeps the original", () => {
    const wrapped = toCuzkitError("boom", "INTERNAL", "report it");
    expect(wrapped.message).toBe("boom");
    expect(wrapped.cause).toBe("boom");
    const original = new InvalidInputError("a", "b");
    expect(toCuzkitError(original)).toBe(original);
  });
});
