import { backoffDelayMs, toCuzkitError } from "@cuzkit/core";
import { settleFailedNode } from "../curio/drain-paths.js";
import { FleetTransitionError } from "../errors.js";
import type { InstanceState } from "../lifecycle.js";
import type { InstanceRecord } from "../store/records.js";
import type { ManagerContext } from "./context.js";
import { failureKind, recordInstanceEvidence } from "./evidence.js";

/** Backoff between destroy attempts: 10 s doubling to 2 min, with jitter. */
const destroyBackoff = { retries: 0, minDelayMs: 10_000, maxDelayMs: 120_000, factor: 2, jitter: 0.2 };

/** The destroy attempts under way, per manager and instance (see attemptDestroy). */
const attemptsInFlight = new WeakMap<ManagerContext, Map<string, Promise<InstanceRecord>>>();

/**
 * One destroy attempt of an instance in `destroying`. Success, or a Vast answer that the
 * instance does not exist, ends in `destroyed`. A failure schedules the next attempt with
 * backoff; once the retry window is spent it is flagged "destroy manually" with the Vast id.
 * An attempt asked for while one is under way for the same instance (an operator's destroy
 * during the monitor's retry) shares it: one DELETE to Vast, one outcome for both callers.
 */
export function attemptDestroy(ctx: ManagerContext, record: InstanceRecord): Promise<InstanceRecord> {
  let inFlight = attemptsInFlight.get(ctx);
  if (inFlight === undefined) {
    inFlight = new Map();
    attemptsInFlight.set(ctx, inFlight);
  }
  const running = inFlight.get(record.id);
  if (running !== undefined) return running;
  const attempt = destroyOnce(ctx, record).finally(() => inFlight.delete(record.id));
  inFlight.set(record.id, attempt);
  return attempt;
}

/**
 * Runs a store write that expects the instance in `destroying`; when another path has destroyed
 * it meanwhile (reconcile found it gone from Vast), the instance is where this attempt was taking
 * it: that outcome is returned rather than a refusal.
 */
async function unlessDestroyed(
  ctx: ManagerContext,
  id: string,
  write: () => Promise<InstanceRecord>,
): Promise<InstanceRecord> {
  try {
    return await write();
  } catch (error) {
    if (error instanceof FleetTransitionError && error.actual === "destroyed") return ctx.store.require(id);
    throw error;
  }
}

async function destroyOnce(ctx: ManagerContext, record: InstanceRecord): Promise<InstanceRecord> {
  const { store, vast, clock, logger, config } = ctx;
  if (record.vastId === undefined) {
    return unlessDestroyed(ctx, record.id, () =>
      store.transition(record.id, "destroying", "destroyed", { detail: { rented: false } }),
    );
  }
  ctx.checkpoint("destroy:before-call");
  try {
    const { alreadyGone } = await vast.destroyInstance(record.vastId);
    ctx.checkpoint("destroy:after-call");
    logger.info("fleet instance destroyed", { instanceId: record.id, vastId: record.vastId, alreadyGone });
    return await unlessDestroyed(ctx, record.id, () =>
      store.transition(record.id, "destroying", "destroyed", {
        detail: { vastId: record.vastId, alreadyGone },
      }),
    );
  } catch (error) {
    const failure = toCuzkitError(error);
    const now = clock.now();
    const firstAt = record.destroyFirstAttemptAt ?? now;
    const delay = backoffDelayMs(record.destroyAttempts + 1, destroyBackoff, ctx.random);
    const manual = now + delay - firstAt > config.destroyRetryWindowMs;
    if (manual) {
      logger.error("fleet could not destroy an instance: destroy it manually", {
        instanceId: record.id,
        vastId: record.vastId,
        command: `vastai destroy instance ${record.vastId}`,
        code: failure.code,
      });
    } else {
      logger.warn("fleet destroy failed; retrying", {
        instanceId: record.id,
        vastId: record.vastId,
        code: failure.code,
      });
    }
    return unlessDestroyed(ctx, record.id, () =>
      store.noteDestroyAttempt(
        record.id,
        manual ? undefined : now + delay,
        manual,
        `${failure.code}: ${failure.message}`,
      ),
    );
  }
}

/** Moves a decided instance to `destroying` and makes the first attempt. */
export async function beginDestroy(
  ctx: ManagerContext,
  id: string,
  from: readonly InstanceState[] = ["rejected", "failed", "draining"],
): Promise<InstanceRecord> {
  const record = await ctx.store.transition(id, from, "destroying");
  ctx.checkpoint("destroy:destroying");
  return attemptDestroy(ctx, record);
}

/**
 * Fails a live instance with a reason (deadline, lost, Vast status, agent failure, operator
 * destroy) and destroys it; the failure is machine evidence of its kind (failureKind). With a
 * Curio link its node is settled first (settleFailedNode): drained after a deadline or an
 * operator's destroy, cordoned at once when the machine is dead or lost; a HarmonyDB failure
 * there is an event, and the destroy still happens.
 */
export async function failAndDestroy(
  ctx: ManagerContext,
  id: string,
  from: InstanceState | readonly InstanceState[],
  reason: string,
  eventType: string,
  detail?: Record<string, unknown>,
): Promise<InstanceRecord | undefined> {
  const before = await ctx.store.get(id);
  const failed = await ctx.store.tryTransition(id, from, "failed", {
    changes: { reason },
    eventType,
    detail: { reason, ...detail },
  });
  if (failed === undefined || before === undefined) return undefined;
  ctx.logger.warn("fleet instance failed", { instanceId: id, reason });
  ctx.checkpoint("fail:failed");
  await recordInstanceEvidence(ctx, failed, failureKind(ctx, before, eventType), reason);
  await settleFailedNode(ctx, failed, reason);
  // While the node was settled (an agent's failure is heard beside the monitor's pass), another
  // pass may have begun the destroy of this failed instance: it is under way, not to begin twice.
  const settled = await ctx.store.require(id);
  if (settled.state !== "failed") return settled;
  return beginDestroy(ctx, id, ["failed"]);
}
