import { InvalidInputError } from "@cuzkit/core";
import type { CallOptions } from "./call.js";
import type { JsonObject } from "./guards.js";
import { checkInstanceId } from "./ids.js";
import { isInstanceGone } from "./instance-read.js";
import type { Transport } from "./transport.js";

// Managing an instance: state changes and labels (idempotent PUTs), destroy, reboot.

/** PUT a change to an instance (state or label); retried, as it is idempotent. */
export async function manageInstance(
  transport: Transport,
  id: number,
  body: JsonObject,
  call: CallOptions,
): Promise<void> {
  await transport.request({
    endpoint: "manageInstance",
    method: "PUT",
    path: `/api/v0/instances/${checkInstanceId(id)}/`,
    body,
    idempotent: true,
    signal: call.signal,
    timeoutMs: call.timeoutMs,
  });
}

/** Sets an instance's label (max 1024 chars). */
export function labelInstance(
  transport: Transport,
  id: number,
  label: string,
  call: CallOptions,
): Promise<void> {
  if (typeof label !== "string" || label.length > 1024) {
    throw new InvalidInputError("a label is a string of at most 1024 characters", {
      hint: "shorten the label",
    });
  }
  return manageInstance(transport, id, { label }, call);
}

/** Destroys an instance; a 404 that says the instance is gone counts as success with `alreadyGone: true`. */
export async function destroyInstance(
  transport: Transport,
  id: number,
  call: CallOptions,
): Promise<{ alreadyGone: boolean }> {
  try {
    await transport.request({
      endpoint: "destroyInstance",
      method: "DELETE",
      path: `/api/v0/instances/${checkInstanceId(id)}/`,
      body: {},
      idempotent: true,
      signal: call.signal,
      timeoutMs: call.timeoutMs,
    });
    return { alreadyGone: false };
  } catch (error) {
    if (isInstanceGone(error)) return { alreadyGone: true };
    throw error;
  }
}

/** Reboots an instance. Not retried (a replay would reboot twice). */
export async function rebootInstance(transport: Transport, id: number, call: CallOptions): Promise<void> {
  await transport.request({
    endpoint: "rebootInstance",
    method: "PUT",
    path: `/api/v0/instances/reboot/${checkInstanceId(id)}/`,
    body: {},
    idempotent: false,
    signal: call.signal,
    timeoutMs: call.timeoutMs,
  });
}
