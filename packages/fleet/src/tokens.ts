import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

/** A fresh agent token: 32 random bytes, base64url. Shown once, to the instance's environment. */
export function generateAgentToken(): string {
  return randomBytes(32).toString("base64url");
}

/** The sha256 (hex) the store keeps instead of the token. */
export function hashAgentToken(token: string): string {
  return createHash("sha256").update(token, "utf8").digest("hex");
}

/** True when `token` hashes to `expectedHash`, compared in constant time. */
export function agentTokenMatches(token: string, expectedHash: string): boolean {
  const actual = Buffer.from(hashAgentToken(token), "hex");
  const expected = Buffer.from(expectedHash, "hex");
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
