import { drainBeforeDestroy } from "../curio/drain-paths.js";
import { productionRate, reviewProduction } from "../evidence/counted-rate.js";
import { describeKeepMinimum, keepMinimumProofsPerHour, usdPer1000Proofs } from "../keep-rule.js";
import type { InstanceRecord } from "../store/records.js";
import type { ManagerContext } from "./context.js";
import { beginDestroy } from "./destroyer.js";

/** What a production review did to one instance. */
export type ReviewOutcome = "unchanged" | "updated" | "replaced";

/**
 * Reviews one active instance's counted rate against its production (Curio's verified proofs
 * when the fleet has a Curio link, else the agent's plausible reports) over the fleet's
 * production window, stores the result with its events, and replaces (drains and destroys) a
 * machine whose production stayed below the keep rule for a full window; `fleet run` then
 * rents its replacement. Idempotent: every write is guarded by the `active` state.
 */
export async function reviewInstanceProduction(ctx: ManagerContext, id: string): Promise<ReviewOutcome> {
  const { store, config, clock } = ctx;
  const record = await store.get(id);
  if (record === undefined || record.state !== "active") return "unchanged";
  const now = clock.now();
  const production = productionRate(await store.performance.list({ instanceId: id }), {
    nowMs: now,
    windowMs: config.productionWindowMs,
    activeSinceMs: record.phaseStartedAt,
    source: ctx.curio === undefined ? "agent" : "curio",
  });
  const review = reviewProduction(
    record,
    production,
    {
      windowMs: config.productionWindowMs,
      minProofsPerHour: keepMinimumProofsPerHour(config, record.offer.dphTotal),
    },
    now,
  );
  const changed =
    review.counted.proofsPerHour !== record.proofsPerHour ||
    review.counted.basis !== (record.rateBasis ?? "benchmark") ||
    review.belowKeepSince !== record.belowKeepSince ||
    review.events.length > 0;
  if (changed) {
    const [first, ...rest] = review.events;
    await store.update(
      id,
      "active",
      {
        proofsPerHour: review.counted.proofsPerHour,
        rateBasis: review.counted.basis,
        belowKeepSince: review.belowKeepSince,
        // Without a new window the last production stays as it was.
        productionProofsPerHour: review.productionProofsPerHour ?? record.productionProofsPerHour,
        productionAt: review.productionProofsPerHour === undefined ? record.productionAt : now,
      },
      first?.type ?? "counted-rate",
      {
        reason:
          first?.reason ??
          `counted at ${review.counted.proofsPerHour.toFixed(1)}/h (${review.counted.basis})`,
        countedProofsPerHour: review.counted.proofsPerHour,
        basis: review.counted.basis,
      },
    );
    for (const e of rest) await store.appendEvent(id, e.type, { reason: e.reason });
  }
  if (!review.replace) return changed ? "updated" : "unchanged";
  if (await replaceUnderProducer(ctx, await store.require(id))) return "replaced";
  return changed ? "updated" : "unchanged";
}

/**
 * Replaces a machine whose production failed the keep rule: drains it (on Curio) and destroys it,
 * with the event that says why. With a Curio link the drain can take as long as the node's
 * longest task, so it runs in the background (ctx.runInBackground) and the monitor's pass goes on
 * (heartbeats and deadlines are not held up); answers whether the replacement was done or begun.
 */
async function replaceUnderProducer(ctx: ManagerContext, record: InstanceRecord): Promise<boolean> {
  const since = record.belowKeepSince ?? ctx.clock.now();
  const reason = `replaced: production ${(record.productionProofsPerHour ?? 0).toFixed(1)}/h stayed below ${describeKeepMinimum(ctx.config, record.offer.dphTotal)} for ${Math.round((ctx.clock.now() - since) / 60_000)} min`;
  if (ctx.curio !== undefined && ctx.runInBackground !== undefined) {
    ctx.runInBackground(record.id, async (signal) => {
      await drainAndReplace(ctx, record, reason, signal);
    });
    return true;
  }
  return drainAndReplace(ctx, record, reason);
}

/**
 * The drain and the destroy of a replacement. A manager stopping mid-drain leaves it stored
 * (`draining`): the next start drains again and destroys. A conflict (its node cannot be told
 * apart), a cancel or a failed drain (uncordoned, or stored to retry; a `curio-drain-failed`
 * event) keeps the machine active, and a later pass tries again.
 */
async function drainAndReplace(
  ctx: ManagerContext,
  record: InstanceRecord,
  reason: string,
  signal?: AbortSignal,
): Promise<boolean> {
  const drained = await drainBeforeDestroy(ctx, record, reason, signal ?? ctx.stopSignal?.());
  if (drained !== "drained" && drained !== "deadline" && drained !== "not-curio") return false;
  const moved = await ctx.store.tryTransition(record.id, "active", "draining", {
    eventType: "production-replaced",
    changes: { reason },
    detail: {
      reason,
      productionProofsPerHour: record.productionProofsPerHour ?? null,
      keepMinimumProofsPerHour: keepMinimumProofsPerHour(ctx.config, record.offer.dphTotal),
      usdPer1000Proofs: usdPer1000ProofsOrNull(record.offer.dphTotal, record.productionProofsPerHour ?? 0),
    },
  });
  if (moved === undefined) return false;
  await beginDestroy(ctx, record.id, ["draining"]);
  return true;
}

/** Reviews every active instance (the monitor's pass): counted rates follow production, and the keep rule applies. */
export async function reviewAllProduction(ctx: ManagerContext): Promise<string[]> {
  const replaced: string[] = [];
  for (const record of await ctx.store.list(["active"])) {
    if ((await reviewInstanceProduction(ctx, record.id)) === "replaced") replaced.push(record.id);
  }
  return replaced;
}

/** $ per 1000 proofs for an event (JSON has no Infinity: null at no production). */
function usdPer1000ProofsOrNull(dphTotal: number, proofsPerHour: number): number | null {
  const cost = usdPer1000Proofs(dphTotal, proofsPerHour);
  return Number.isFinite(cost) ? cost : null;
}
