import { mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { InvalidInputError } from "@cuzkit/core";
import { afterEach, describe, expect, it } from "vitest";
import { adminTokenChecker, isLoopbackHost, loadOrCreateAdminToken } from "./admin-token.js";

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
