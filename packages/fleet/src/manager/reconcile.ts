import { toCuzkitError } from "@cuzkit/core";
import type { VastInstance } from "@cuzkit/vast";
import { cordonLostNode } from "../curio/drain-paths.js";
import { isVastFailureStatus } from "../decision.js";
import { isPreempted } from "../economics/interruptible.js";
import { mayBeBilling } from "../lifecycle.js";
import type { InstanceRecord } from "../store/records.js";
import { instanceIdOfLabel } from "./config.js";
import type { ManagerContext } from "./context.js";
import { beginDestroy, failAndDestroy } from "./destroyer.js";
import { recordInstanceEvidence } from "./evidence.js";

/** What one reconcile pass found and did. */
export interface ReconcileSummary {
  /** Labelled Vast instances of this fleet seen. */
  seen: number;
  /** Instances whose lost create answer was found by label and attached to their row. */
  recovered: string[];
  /** Vast ids of labelled instances the store has no live row for (still in their grace period, or adopted). */
  unknown: number[];
  /** Vast ids destroyed because the store did not know them, after the grace period. */
  destroyedUnknown: number[];
  /** Instances marked gone: the store had them, Vast no longer does. */
  gone: string[];
  /** Instances failed because Vast reports them exited, offline or unknown. */
  failedByVast: string[];
  /** Interruptible instances Vast stopped (outbid): destroyed, to be replaced. */
  preempted: string[];
  /**
   * `renting` rows a crashed manager left whose label no Vast instance carries: the create was
   * never sent (or never made anything), so they are closed now, freeing their vetting slot.
   */
  closedRenting: string[];
}

/**
 * Matches the fleet's labelled Vast instances against the store: attaches a create whose
 * answer was lost, fails instances Vast says will never run, destroys unknown labelled ones
 * after the grace period (`adopt` keeps them), and marks store-only ones gone (confirmed by a
 * direct look-up, since a fresh instance may not be listed yet).
 */
export async function reconcile(ctx: ManagerContext): Promise<ReconcileSummary> {
  const summary: ReconcileSummary = {
    seen: 0,
    recovered: [],
    unknown: [],
    destroyedUnknown: [],
    gone: [],
    failedByVast: [],
    preempted: [],
    closedRenting: [],
  };
  const listed = await listLabelled(ctx);
  summary.seen = listed.size;
  ctx.checkpoint("reconcile:listed");
  for (const instance of listed.values()) await reconcileListed(ctx, instance, summary);
  await closeCrashLeftRenting(ctx, listed, summary);
  await markGone(ctx, listed, summary);
  return summary;
}

/** The Vast instances labelled for this fleet, by Vast id. */
async function listLabelled(ctx: ManagerContext): Promise<Map<number, VastInstance>> {
  const listed = new Map<number, VastInstance>();
  for await (const instance of ctx.vast.listInstances()) {
    if (instanceIdOfLabel(ctx.config.fleet, instance.label) === undefined) continue;
    listed.set(instance.id, instance);
  }
  return listed;
}

/** One listed instance: its lost create attached, its Vast status acted on, or it is unknown. */
async function reconcileListed(
  ctx: ManagerContext,
  instance: VastInstance,
  summary: ReconcileSummary,
): Promise<void> {
  const id = instanceIdOfLabel(ctx.config.fleet, instance.label) as string;
  const row = await recoverLostCreate(ctx, id, instance, summary);
  const owned = row !== undefined && row.vastId === instance.id && mayBeBilling(row.state);
  if (owned && row !== undefined) {
    await checkVastStatus(ctx, row, instance, summary);
    return;
  }
  // Labelled for this fleet, but no live row owns it: a duplicate, or a row already destroyed.
  await settleUnknown(ctx, instance, summary);
}

/** A `renting` row without a Vast id whose label is listed: the create's lost answer, attached. */
async function recoverLostCreate(
  ctx: ManagerContext,
  id: string,
  instance: VastInstance,
  summary: ReconcileSummary,
): Promise<InstanceRecord | undefined> {
  const { store } = ctx;
  let row = await store.get(id);
  if (row !== undefined && row.state === "renting" && row.vastId === undefined) {
    row = await store.tryTransition(id, "renting", "booting", {
      changes: { vastId: instance.id },
      eventType: "recovered-by-label",
      detail: { vastId: instance.id },
    });
    ctx.checkpoint("reconcile:recovered");
    if (row !== undefined) summary.recovered.push(id);
    row ??= await store.get(id);
  }
  return row;
}

/** An owned instance Vast stopped (outbid) or reports failed: failed and destroyed. */
async function checkVastStatus(
  ctx: ManagerContext,
  row: InstanceRecord,
  instance: VastInstance,
  summary: ReconcileSummary,
): Promise<void> {
  if (row.state !== "destroying" && isPreempted(row, instance)) {
    // Outbid: a stopped interruptible instance still bills storage and proves nothing. It is
    // destroyed; the next planner step rents its replacement, and the ranking learns the rate.
    const failed = await failAndDestroy(
      ctx,
      row.id,
      ["booting", "registered", "params", "warmup", "benchmarking", "active"],
      `preempted: Vast stopped the interruptible instance (outbid at a bid of $${(row.offer.bidPricePerHour ?? 0).toFixed(3)}/h)`,
      "preempted",
      { actualStatus: instance.actualStatus, bidPricePerHour: row.offer.bidPricePerHour ?? null },
    );
    if (failed !== undefined) summary.preempted.push(row.id);
    return;
  }
  if (isVastFailureStatus(instance.actualStatus) && row.state !== "destroying") {
    const failed = await failAndDestroy(
      ctx,
      row.id,
      ["booting", "registered", "params", "warmup", "benchmarking", "active"],
      `Vast reports the instance ${instance.actualStatus}${instance.statusMsg ? ` (${instance.statusMsg})` : ""}`,
      "vast-status",
      { actualStatus: instance.actualStatus },
    );
    if (failed !== undefined) summary.failedByVast.push(row.id);
  }
}

/** A labelled instance no live row owns: adopted, left for its grace period, or destroyed. */
async function settleUnknown(
  ctx: ManagerContext,
  instance: VastInstance,
  summary: ReconcileSummary,
): Promise<void> {
  const { store, vast, config, clock, logger } = ctx;
  const { firstSeenAt, outcome } = await store.noteUnknownInstance(instance.id, instance.label ?? "");
  if (outcome === "destroyed") return;
  if (config.adopt) {
    if (outcome !== "adopted") await store.settleUnknownInstance(instance.id, "adopted");
    summary.unknown.push(instance.id);
    return;
  }
  if (clock.now() - firstSeenAt < config.unknownGraceMs) {
    logger.warn("fleet found a labelled instance it does not know; destroying it after the grace period", {
      vastId: instance.id,
      label: instance.label,
    });
    summary.unknown.push(instance.id);
    return;
  }
  try {
    ctx.checkpoint("reconcile:destroy-unknown");
    await vast.destroyInstance(instance.id);
    await store.settleUnknownInstance(instance.id, "destroyed");
    summary.destroyedUnknown.push(instance.id);
  } catch (error) {
    logger.warn("fleet could not destroy an unknown instance", {
      vastId: instance.id,
      code: toCuzkitError(error).code,
    });
    summary.unknown.push(instance.id);
  }
}

/**
 * Rows whose Vast instance is not listed and a direct look-up does not find: a `destroying` one
 * is done; any other is failed (death evidence, its Curio node cordoned) and closed.
 */
async function markGone(
  ctx: ManagerContext,
  listed: ReadonlyMap<number, VastInstance>,
  summary: ReconcileSummary,
): Promise<void> {
  const { store, vast } = ctx;
  for (const row of await store.list()) {
    if (row.vastId === undefined || !mayBeBilling(row.state) || listed.has(row.vastId)) continue;
    const shown = await vast.showInstance(row.vastId);
    if (shown !== null) continue; // listed late; next pass sees it
    ctx.checkpoint("reconcile:gone");
    if (row.state === "destroying") {
      // A destroy whose answer was lost, or a manual one: Vast no longer knows it, so it is done.
      await store.tryTransition(row.id, "destroying", "destroyed", {
        eventType: "gone",
        detail: { vastId: row.vastId },
      });
    } else {
      const failed = await store.tryTransition(row.id, row.state, "failed", {
        changes: { reason: "gone: Vast no longer knows the instance" },
        eventType: "gone",
      });
      if (failed !== undefined) {
        await recordInstanceEvidence(ctx, failed, "death", "gone: Vast no longer knows the instance");
        // Its Curio node (if it had one) is dead: cordoned at once, so Curio gives it no new work.
        await cordonLostNode(ctx, failed, "gone: Vast no longer knows the instance");
        await store.transition(row.id, "failed", "destroying");
        await store.transition(row.id, "destroying", "destroyed", {
          eventType: "gone",
          detail: { vastId: row.vastId },
        });
      }
    }
    summary.gone.push(row.id);
  }
}

/**
 * Closes the `renting` rows an earlier manager process left (their renting began before this
 * one started) that no labelled Vast instance answers to: the crash came before the create
 * went out, or the create made nothing. Each is failed and destroyed at once (nothing is billed,
 * it has no Vast id), which frees its vetting slot now rather than at its renting deadline. It
 * is the manager's fault, never the machine's: its evidence is `manager-outage`. Rows of this
 * process are left alone: their create may be in flight.
 */
async function closeCrashLeftRenting(
  ctx: ManagerContext,
  listed: ReadonlyMap<number, VastInstance>,
  summary: ReconcileSummary,
): Promise<void> {
  const labels = new Set([...listed.values()].map((instance) => instance.label));
  const reason =
    "crash-left: the manager stopped before its create was answered, and no Vast instance has its label";
  for (const row of await ctx.store.list(["renting"])) {
    if (row.vastId !== undefined || row.phaseStartedAt >= ctx.startedAt || labels.has(row.label)) continue;
    const failed = await ctx.store.tryTransition(row.id, "renting", "failed", {
      changes: { reason },
      eventType: "crash-left",
      detail: { reason, label: row.label },
    });
    if (failed === undefined) continue;
    ctx.checkpoint("reconcile:closed-renting");
    await recordInstanceEvidence(ctx, failed, "manager-outage", reason);
    await beginDestroy(ctx, row.id, ["failed"]);
    summary.closedRenting.push(row.id);
  }
}
