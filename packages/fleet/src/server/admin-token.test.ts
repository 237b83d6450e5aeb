import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InvalidInputError } from "@cuzkit/core";
import { afterEach, describe, expect, it } from "vitest";
import {
  adminTokenChecker,
  bearer,
  isLoopbackHost,
  isTokenShaped,
  loadOrCreateAdminToken,
} from "./admin-token.js";

let dir: string | undefined;
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe("the admin token", () => {
  it("is generated once into the state directory with mode 0600 and kept across starts", () => {
    dir = mkdtempSync(join(tmpdir(), "cuzkit-admin-"));
    const storePath = join(dir, "fleet.db");
    const first = loadOrCreateAdminToken({ storePath });
    expect(first).toMatchObject({ source: "generated", path: join(dir, "admin-token") });
    expect(statSync(first.path as string).mode & 0o777).toBe(0o600);
    const second = loadOrCreateAdminToken({ storePath });
    expect(second).toEqual({ token: first.token, source: "file", path: first.path });
  });

  it("tightens a kept file's mode and regenerates a file that holds no valid token", () => {
    dir = mkdtempSync(join(tmpdir(), "cuzkit-admin-"));
    const path = join(dir, "admin-token");
    writeFileSync(path, "short\n", { mode: 0o644 });
    const made = loadOrCreateAdminToken({ storePath: join(dir, "fleet.db") });
    expect(made.source).toBe("generated");
    expect(made.token).not.toBe("short");
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it("takes --admin-token when given and refuses a weak one with a hint", () => {
    expect(loadOrCreateAdminToken({ given: "a".repeat(20), storePath: ":memory:" }).source).toBe("flag");
    let caught: unknown;
    try {
      loadOrCreateAdminToken({ given: "pw", storePath: ":memory:" });
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvalidInputError);
    expect((caught as InvalidInputError).hint).toContain("--admin-token");
  });

  it("matches only the exact token, and tells loopback from exposed hosts", () => {
    const ok = adminTokenChecker("the-right-token-1234");
    expect(ok("the-right-token-1234")).toBe(true);
    expect(ok("the-right-token-12345")).toBe(false);
    expect(ok(undefined)).toBe(false);
    expect(["127.0.0.1", "::1", "localhost", "127.1.2.3"].every(isLoopbackHost)).toBe(true);
    expect(["0.0.0.0", "::", "10.0.0.5"].some(isLoopbackHost)).toBe(false);
  });
});

describe("isLoopbackHost", () => {
  it("takes any 127.x.y.z address, and no name that merely starts or ends like one", () => {
    expect(isLoopbackHost("127.10.200.30")).toBe(true);
    expect(isLoopbackHost("127.0.0.1.nip.io")).toBe(false);
    expect(isLoopbackHost("evil127.0.0.1")).toBe(false);
    expect(isLoopbackHost("x.127.0.0.1")).toBe(false);
    expect(isLoopbackHost("127.1000.0.1")).toBe(false);
  });
});

describe("the token's shape and the Authorization header", () => {
  it("takes 16 to 128 characters of A-Z, a-z, 0-9, _ and -", () => {
    expect(isTokenShaped("a".repeat(16))).toBe(true);
    expect(isTokenShaped(`${"A".repeat(60)}_-09${"z".repeat(64)}`)).toBe(true);
    expect(isTokenShaped("a".repeat(15))).toBe(false);
    expect(isTokenShaped("a".repeat(129))).toBe(false);
    expect(isTokenShaped(`${"a".repeat(20)}+`)).toBe(false);
    expect(isTokenShaped(` ${"a".repeat(20)}`)).toBe(false);
  });

  it("reads the token of a Bearer header only", () => {
    expect(bearer({ headers: { authorization: "Bearer abc.def-123" } })).toBe("abc.def-123");
    expect(bearer({ headers: { authorization: "Basic abc" } })).toBeUndefined();
    expect(bearer({ headers: { authorization: "Bearer " } })).toBeUndefined();
    expect(bearer({ headers: { authorization: "Bearer a b" } })).toBeUndefined();
    expect(bearer({ headers: { authorization: `Bearer ${"x".repeat(257)}` } })).toBeUndefined();
    expect(bearer({ headers: { authorization: `Bearer ${"x".repeat(256)}` } })).toBe("x".repeat(256));
    expect(bearer({ headers: {} })).toBeUndefined();
    expect(bearer({ headers: { authorization: "xBearer abc" } })).toBeUndefined();
  });

  it("keeps a token file's token without its newline, and gives a new token per in-memory start", () => {
    dir = mkdtempSync(join(tmpdir(), "cuzkit-admin-"));
    writeFileSync(join(dir, "admin-token"), `  ${"k".repeat(24)}\n`);
    expect(loadOrCreateAdminToken({ storePath: join(dir, "fleet.db") })).toMatchObject({
      token: "k".repeat(24),
      source: "file",
    });
    const a = loadOrCreateAdminToken({ storePath: ":memory:" });
    const b = loadOrCreateAdminToken({ storePath: ":memory:" });
    expect(a).toMatchObject({ source: "generated", path: undefined });
    expect(isTokenShaped(a.token)).toBe(true);
    expect(a.token).not.toBe(b.token);
  });

  it("does not overwrite a token file it cannot read for another reason than its absence", () => {
    const folder = mkdtempSync(join(tmpdir(), "cuzkit-admin-"));
    dir = folder;
    mkdirSync(join(folder, "admin-token")); // a folder where the file should be: EISDIR
    expect(() => loadOrCreateAdminToken({ storePath: join(folder, "fleet.db") })).toThrow();
  });

  it("creates the state folder private when it does not exist", () => {
    dir = mkdtempSync(join(tmpdir(), "cuzkit-admin-"));
    const made = loadOrCreateAdminToken({ storePath: join(dir, "state", "fleet.db") });
    expect(made.source).toBe("generated");
    expect(statSync(join(dir, "state")).mode & 0o777).toBe(0o700);
  });
});
