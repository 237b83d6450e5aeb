import { InvalidInputError } from "@cuzkit/core";
import { type CallOptions, malformedResponse } from "./call.js";
import { VastNotFoundError } from "./errors.js";
import { isObject } from "./guards.js";
import { checkInstanceId } from "./ids.js";
import type { ListInstancesOptions } from "./instance-types.js";
import { normaliseInstance, type VastInstance } from "./instances.js";
import type { Transport } from "./transport.js";

// Reading instances: one by id, the paged v1 list, and the look-up by label.

/**
 * A 404 that really says "no such instance" (`not_found`, or a message about the instance).
 * A bare 404 page (wrong base URL, proxy) is not proof that an instance is gone: a destroy
 * must not report success while the machine keeps billing.
 */
export function isInstanceGone(error: unknown): boolean {
  return (
    error instanceof VastNotFoundError &&
    (error.serverError === "not_found" || /instance/i.test(error.serverMessage ?? ""))
  );
}

/** Only the signal and timeout of `options`. */
export function callOptionsOf(options: CallOptions): CallOptions {
  const call: CallOptions = {};
  if (options.signal !== undefined) call.signal = options.signal;
  if (options.timeoutMs !== undefined) call.timeoutMs = options.timeoutMs;
  return call;
}

/** One instance by id; null once it is gone. */
export async function showInstance(
  transport: Transport,
  id: number,
  call: CallOptions = {},
): Promise<VastInstance | null> {
  const path = `/api/v0/instances/${checkInstanceId(id)}/`;
  let body: unknown;
  try {
    body = await transport.request({
      endpoint: "showInstance",
      method: "GET",
      path,
      query: { owner: "me" },
      idempotent: true,
      signal: call.signal,
      timeoutMs: call.timeoutMs,
    });
  } catch (error) {
    if (isInstanceGone(error)) return null;
    throw error;
  }
  if (!isObject(body) || !("instances" in body)) {
    throw malformedResponse("GET", path, 'expected {"instances": {...}}');
  }
  // One object under a plural key; null (or any non-object) once the instance is gone.
  if (!isObject(body.instances)) return null;
  const instance = normaliseInstance(body.instances);
  if (instance === undefined) throw malformedResponse("GET", path, "the instance has no numeric id");
  return instance;
}

/** Every instance (with the label, or matching the filters), page by page. */
export async function* listInstances(
  transport: Transport,
  list: ListInstancesOptions = {},
): AsyncGenerator<VastInstance, void, undefined> {
  const pageSize = list.pageSize ?? 25;
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > 25) {
    throw new InvalidInputError(`pageSize must be 1..25, got ${pageSize}`, {
      hint: "the v1 list returns at most 25 per page",
    });
  }
  const selectFilters: Record<string, unknown> = { ...list.filters };
  if (list.label !== undefined) selectFilters.label = { in: [list.label] };
  const path = "/api/v1/instances/";
  const seenTokens = new Set<string>();
  let afterToken: string | undefined;
  do {
    const body = await transport.request({
      endpoint: "listInstances",
      method: "GET",
      path,
      query: {
        select_filters: Object.keys(selectFilters).length > 0 ? selectFilters : undefined,
        order_by: [{ col: "id", dir: "asc" }],
        limit: pageSize,
        after_token: afterToken,
      },
      idempotent: true,
      signal: list.signal,
      timeoutMs: list.timeoutMs,
    });
    if (!isObject(body) || !Array.isArray(body.instances)) {
      throw malformedResponse("GET", path, 'expected {"instances": [...], "next_token": ...}');
    }
    for (const record of body.instances) {
      const instance = normaliseInstance(record);
      if (instance === undefined) {
        transport.logger.warn("vast list skipped an instance without a numeric id", {
          endpoint: `GET ${path}`,
        });
        continue;
      }
      yield instance;
    }
    const next = body.next_token;
    afterToken = typeof next === "string" && next !== "" ? next : undefined;
    if (afterToken !== undefined) {
      if (seenTokens.has(afterToken))
        throw malformedResponse("GET", path, "the server repeated a next_token");
      seenTokens.add(afterToken);
    }
  } while (afterToken !== undefined);
}

/** The instance with this label (the oldest when several have it, with a warning). */
export async function findByLabel(
  transport: Transport,
  label: string,
  call: CallOptions,
): Promise<VastInstance | undefined> {
  const found: VastInstance[] = [];
  for await (const instance of listInstances(transport, { label, ...call })) {
    if (instance.label === label) found.push(instance);
  }
  if (found.length > 1) {
    transport.logger.warn("vast found several instances with one label; a duplicate rental may exist", {
      label,
      ids: found.map((i) => i.id),
    });
  }
  return found.sort((a, b) => a.id - b.id)[0];
}
