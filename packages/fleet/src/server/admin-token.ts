import { chmodSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { InvalidInputError } from "@cuzkit/core";
import { agentTokenMatches, generateAgentToken, hashAgentToken } from "../tokens.js";

/** Name of the admin token file in the state directory (next to the store). */
export const adminTokenFileName = "admin-token";

/** Where the admin token came from. */
export interface AdminToken {
  token: string;
  /** `flag` (given), `file` (kept from an earlier start), `generated` (new: print it once). */
  source: "flag" | "file" | "generated";
  /** The file it is kept in; undefined for an in-memory store. */
  path: string | undefined;
}

const tokenShape = /^[A-Za-z0-9_-]{16,128}$/;

/** True for a usable admin (or local page) token: 16 to 128 characters of A-Z, a-z, 0-9, _ and -. */
export function isTokenShaped(token: string): boolean {
  return tokenShape.test(token);
}

/**
 * The admin token: the given one, else the one kept in `<stateDir>/admin-token`, else a new one
 * written there with mode 0600. An in-memory store (`:memory:`) gets a new one each start.
 */
export function loadOrCreateAdminToken(options: {
  /** The `--admin-token` value. Default: none. */
  given?: string | undefined;
  /** The store's path; its folder is the state directory. */
  storePath: string;
}): AdminToken {
  if (options.given !== undefined) {
    if (!tokenShape.test(options.given)) {
      throw new InvalidInputError("--admin-token must be 16 to 128 characters of A-Z, a-z, 0-9, _ and -", {
        hint: "pass a longer token (openssl rand -base64 32 | tr '+/' '-_' | tr -d =), or leave --admin-token out to use a generated one",
      });
    }
    return { token: options.given, source: "flag", path: undefined };
  }
  if (options.storePath === ":memory:")
    return { token: generateAgentToken(), source: "generated", path: undefined };
  const path = join(dirname(options.storePath), adminTokenFileName);
  try {
    const kept = readFileSync(path, "utf8").trim();
    if (tokenShape.test(kept)) {
      chmodSync(path, 0o600);
      return { token: kept, source: "file", path };
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const token = generateAgentToken();
  // The state folder holds the store and this token: private when this creates it, as the store's.
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  writeFileSync(path, `${token}\n`, { mode: 0o600 });
  chmodSync(path, 0o600); // the mode option does not apply when the file already existed
  return { token, source: "generated", path };
}

/** Checks an admin token in constant time (both sides hashed, so lengths do not leak). */
export function adminTokenChecker(token: string): (candidate: string | undefined) => boolean {
  const hash = hashAgentToken(token);
  return (candidate) => candidate !== undefined && agentTokenMatches(candidate, hash);
}

/** True for a loopback listen host (127.0.0.0/8, ::1, localhost): reads need no token there. */
export function isLoopbackHost(host: string): boolean {
  return host === "localhost" || host === "::1" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host);
}

/** The token of an `Authorization: Bearer <token>` header, or undefined. */
export function bearer(request: { headers: { authorization?: string | undefined } }): string | undefined {
  const header = request.headers.authorization;
  return typeof header === "string" ? /^Bearer (\S{1,256})$/.exec(header)?.[1] : undefined;
}
