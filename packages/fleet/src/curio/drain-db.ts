import { retry, toCuzkitError } from "@cuzkit/core";
import { FleetCurioDbError } from "../errors.js";
import type { CurioContext } from "./curio-context.js";
import type { CurioLink } from "./curio-link.js";

// PostgreSQL refusals that another attempt does not cure: privileges, credentials, schema.
const permanentCodes = new Set(["42501", "28P01", "28000", "42P01", "42703", "3F000"]);

/** Whether a HarmonyDB failure may pass on its own (a restart, a dropped connection). */
export function transient(error: unknown): boolean {
  if (!(error instanceof FleetCurioDbError)) return false;
  const code = (error.cause as { code?: unknown } | undefined)?.code;
  return typeof code !== "string" || !permanentCodes.has(code);
}

/** The bounded retry of a drain's HarmonyDB calls: the link's policy, transient errors only. */
export function dbRetryOptions(link: CurioLink, ctx: Pick<CurioContext, "random">) {
  return {
    maxAttempts: link.dbRetry.maxAttempts,
    minDelayMs: link.dbRetry.minDelayMs,
    maxDelayMs: link.dbRetry.maxDelayMs,
    shouldRetry: transient,
    sleep: link.sleep,
    random: ctx.random,
  };
}

/**
 * One HarmonyDB call of an instance's drain, retried within the link's policy and logged at each
 * retry; `signal` stops the retries (none: an uncordon, which must not be stopped).
 */
export function drainDbCall<T>(
  ctx: CurioContext,
  link: CurioLink,
  instanceId: string,
  what: string,
  op: () => Promise<T>,
  signal: AbortSignal | undefined,
): Promise<T> {
  return retry(op, {
    ...dbRetryOptions(link, ctx),
    signal,
    onRetry: (e) =>
      ctx.logger.warn(`fleet retries a HarmonyDB ${what} during a drain`, {
        instanceId,
        attempt: e.attempt,
        delayMs: e.delayMs,
        code: toCuzkitError(e.error).code,
      }),
  });
}
