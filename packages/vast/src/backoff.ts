import type { Resolved } from "@cuzkit/core";
import type { VastRetryOptions } from "./options.js";

/**
 * The delay before retry number `retry` (1 = first retry), in ms: exponential from
 * `minDelayMs` by `factor`, capped at `maxDelayMs`, then scaled by a random factor in
 * [1 - jitter, 1 + jitter] (and capped again) so clients that failed together do not retry together.
 */
export function backoffDelayMs(
  retry: number,
  policy: Resolved<VastRetryOptions>,
  random: () => number,
): number {
  const base = Math.min(policy.maxDelayMs, policy.minDelayMs * policy.factor ** Math.max(0, retry - 1));
  const scale = 1 + policy.jitter * (2 * random() - 1);
  return Math.round(Math.min(policy.maxDelayMs, Math.max(0, base * scale)));
}
