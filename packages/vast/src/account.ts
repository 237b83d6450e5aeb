import { InvalidInputError } from "@cuzkit/core";
import { type CallOptions, malformedResponse } from "./call.js";
import { isObject, type JsonObject, numberField, stringField } from "./guards.js";
import { checkInstanceId } from "./ids.js";
import type { Transport } from "./transport.js";

/** An SSH public key registered on the account. */
export interface VastSshKey {
  id: number;
  /** The public key text. */
  publicKey: string;
  /** As the API gives it. */
  createdAt: string | undefined;
  raw: JsonObject;
}

/** The account behind the API key. */
export interface VastUser {
  id: number;
  email: string | undefined;
  /** Balance in USD (can be negative). */
  balance: number | undefined;
  /** Credit in USD. */
  credit: number | undefined;
  /** The API record, without `api_key`. */
  raw: JsonObject;
}

const publicKeyPattern =
  /^(ssh-(rsa|ed25519|dss)|ecdsa-sha2-[a-z0-9-]+|sk-[a-z0-9@.-]+)\s+[A-Za-z0-9+/]+=*(\s.*)?$/;

/** Checks that text is one OpenSSH public key, and above all not a private key. */
export function checkPublicKey(text: string): string {
  const key = text.trim();
  if (/PRIVATE KEY/.test(key)) {
    throw new InvalidInputError("that is a PRIVATE key; never send it", {
      hint: "give the .pub file's content, such as ~/.ssh/id_ed25519.pub",
    });
  }
  if (!publicKeyPattern.test(key) || key.includes("\n")) {
    throw new InvalidInputError("not an OpenSSH public key", {
      hint: 'give one line such as "ssh-ed25519 AAAA... me@host"',
    });
  }
  return key;
}

function normaliseSshKey(record: unknown): VastSshKey | undefined {
  if (!isObject(record)) return undefined;
  const id = numberField(record, "id");
  const publicKey = stringField(record, "public_key") ?? stringField(record, "ssh_key");
  if (id === undefined || publicKey === undefined) return undefined;
  return { id, publicKey, createdAt: stringField(record, "created_at"), raw: record };
}

/** SSH-key and account calls over a transport. */
export function accountApi(transport: Transport) {
  return {
    /** Lists the account's SSH keys (`GET /api/v0/ssh/`, a bare array). */
    async listSshKeys(call: CallOptions = {}): Promise<VastSshKey[]> {
      const path = "/api/v0/ssh/";
      const body = await transport.request({
        endpoint: "sshKeys",
        method: "GET",
        path,
        idempotent: true,
        signal: call.signal,
        timeoutMs: call.timeoutMs,
      });
      if (!Array.isArray(body)) throw malformedResponse("GET", path, "expected a bare array of keys");
      return body.flatMap((record) => {
        const key = normaliseSshKey(record);
        if (key === undefined) throw malformedResponse("GET", path, "a key without numeric id or public_key");
        return [key];
      });
    },

    /** Registers a public key on the account (do it before renting). Not retried. */
    async createSshKey(publicKey: string, call: CallOptions = {}): Promise<VastSshKey> {
      const path = "/api/v0/ssh/";
      const body = await transport.request({
        endpoint: "sshKeys",
        method: "POST",
        path,
        body: { ssh_key: checkPublicKey(publicKey) },
        idempotent: false,
        signal: call.signal,
        timeoutMs: call.timeoutMs,
      });
      const key = isObject(body) ? normaliseSshKey(body.key) : undefined;
      if (key === undefined)
        throw malformedResponse("POST", path, 'expected {"success": true, "key": {...}}');
      return key;
    },

    /** Adds a public key to one running instance (`POST /api/v0/instances/{id}/ssh/`). Not retried. */
    async attachSshKey(instanceId: number, publicKey: string, call: CallOptions = {}): Promise<void> {
      await transport.request({
        endpoint: "attachSshKey",
        method: "POST",
        path: `/api/v0/instances/${checkInstanceId(instanceId)}/ssh/`,
        body: { ssh_key: checkPublicKey(publicKey) },
        idempotent: false,
        signal: call.signal,
        timeoutMs: call.timeoutMs,
      });
    },

    /** The account: id, email, balance and credit in USD (`GET /api/v0/users/current/`). */
    async getCurrentUser(call: CallOptions = {}): Promise<VastUser> {
      const path = "/api/v0/users/current/";
      const body = await transport.request({
        endpoint: "currentUser",
        method: "GET",
        path,
        idempotent: true,
        signal: call.signal,
        timeoutMs: call.timeoutMs,
      });
      const id = isObject(body) ? numberField(body, "id") : undefined;
      if (!isObject(body) || id === undefined)
        throw malformedResponse("GET", path, "expected a user object with an id");
      const { api_key: _dropped, ...raw } = body;
      return {
        id,
        email: stringField(body, "email"),
        balance: numberField(body, "balance"),
        credit: numberField(body, "credit"),
        raw,
      };
    },
  };
}
