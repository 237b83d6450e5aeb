import type { CallOptions } from "./call.js";
import type { JsonObject } from "./guards.js";

// The shapes of instance operations: a create's result and the list's options.

/** The result of a create. */
export interface CreatedInstance {
  /** The new instance id (the API's `new_contract`). */
  instanceId: number;
  /** The unique label the instance was created with. */
  label: string;
  /** The offer rented. */
  offerId: number;
  /** True when a bid price was sent (interruptible); false means on-demand. */
  interruptible: boolean;
  /** True when the create failed ambiguously and the instance was then found by its label. */
  recoveredByLabel: boolean;
  /**
   * The per-instance key (`instance_api_key`) that can start/stop/destroy only this instance.
   * Non-enumerable, so JSON.stringify and console.log do not print it. Undefined when recovered.
   */
  readonly instanceApiKey?: string | undefined;
  /** The API response, without `instance_api_key`. */
  raw: JsonObject;
}

/** Options of `listInstances`. */
export interface ListInstancesOptions extends CallOptions {
  /** Only instances with exactly this label. */
  label?: string | undefined;
  /** Instances per page, 1..25 (the API's maximum). Default 25. */
  pageSize?: number | undefined;
  /** Extra raw `select_filters` conditions on contract columns, such as `{ actual_status: { eq: "running" } }`. */
  filters?: Record<string, Record<string, unknown>> | undefined;
}
