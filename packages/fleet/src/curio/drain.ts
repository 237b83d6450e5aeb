import type { ManagerContext } from "../manager/context.js";
import type { InstanceRecord } from "../store/records.js";
import { fallbackDrainDeadlineMs } from "./curio-link.js";
import { noteCurioConflict } from "./identity-events.js";
import { curioNodeOf } from "./machine-map.js";

/** How a drain ended. */
export type DrainOutcome =
  /** Not a Curio node (or no Curio link): nothing to drain. */
  | "not-curio"
  /** The node owns no task any more. */
  | "drained"
  /** The deadline passed with tasks still owned: destroyed anyway. */
  | "deadline"
  /** The destroy was cancelled: the node is schedulable again. */
  | "cancelled"
  /**
   * Two nodes could be the instance's (or its node is another instance's too): nothing was
   * cordoned, and the instance must not be destroyed automatically (a `curio-identity-conflict`
   * event says why).
   */
  | "conflict";

/** What a drain that answered "conflict" found (for the caller's error). */
export interface DrainConflict {
  reason: string;
}

/**
 * Cordons the instance's Curio node (found by mapCurioInstances: by name, else by a unique
 * address) with `UPDATE harmony_machines SET unschedulable = true WHERE id = $1`, and waits until it
 * owns no `harmony_task`, or the deadline (the link's, else the longest mean work time of a
 * proving task type in the window, else 30 min). When `signal` aborts, the node is uncordoned and
 * "cancelled" is answered. Each step is an event on the instance. When the node cannot be told
 * apart, nothing is written to Curio, "conflict" is answered and `onConflict` (default none) hears why.
 */
export async function cordonAndDrain(
  ctx: ManagerContext,
  record: InstanceRecord,
  signal?: AbortSignal,
  onConflict?: (conflict: DrainConflict) => void,
): Promise<DrainOutcome> {
  const link = ctx.curio;
  if (link === undefined) return "not-curio";
  const node = await curioNodeOf(ctx, record.id);
  if (node.kind === "none") return "not-curio";
  if (node.kind === "conflict") {
    await noteCurioConflict(
      ctx,
      record.id,
      node.reason,
      node.candidates.map((m) => m.id),
    );
    onConflict?.({ reason: node.reason });
    return "conflict";
  }
  const { machine } = node;
  const { harmony } = link;
  const now = ctx.clock.now();
  let deadlineMs = link.drainDeadlineMs;
  if (deadlineMs === undefined) {
    const means = await harmony.meanTaskMs({ sinceMs: now - link.windowMs, untilMs: now });
    deadlineMs = means.size === 0 ? fallbackDrainDeadlineMs : Math.max(...means.values());
  }
  const deadlineAt = now + deadlineMs;
  await harmony.setUnschedulable(machine.id, true);
  await ctx.store.appendEvent(record.id, "curio-cordoned", {
    curioMachineId: machine.id,
    hostAndPort: machine.hostAndPort,
    curioNodeName: machine.name ?? null,
    matchedBy: node.matchedBy,
    deadlineAt,
  });
  ctx.logger.info("fleet cordoned a Curio machine before destroying it", {
    instanceId: record.id,
    curioMachineId: machine.id,
  });
  const uncordon = async () => {
    await harmony.setUnschedulable(machine.id, false);
    await ctx.store.appendEvent(record.id, "curio-uncordoned", { curioMachineId: machine.id });
  };
  try {
    for (;;) {
      if (signal?.aborted) throw signal.reason ?? new Error("cancelled");
      const owned = await harmony.ownedTasks(machine.id);
      if (owned.length === 0) {
        await ctx.store.appendEvent(record.id, "curio-drained", { curioMachineId: machine.id });
        return "drained";
      }
      if (ctx.clock.now() >= deadlineAt) {
        const reason = `drain deadline passed after ${Math.round(deadlineMs / 60_000)} min with ${owned.length} Curio task(s) still running (${owned.map((t) => `${t.name} ${t.id}`).join(", ")})`;
        ctx.logger.warn("fleet destroys a Curio machine that did not drain in time", {
          instanceId: record.id,
          reason,
        });
        await ctx.store.appendEvent(record.id, "curio-drain-deadline", {
          curioMachineId: machine.id,
          reason,
          tasks: owned.map((t) => ({ id: t.id, name: t.name })),
        });
        return "deadline";
      }
      await link.sleep(Math.min(link.drainPollMs, Math.max(0, deadlineAt - ctx.clock.now())), signal);
    }
  } catch (error) {
    if (signal?.aborted) {
      await uncordon();
      return "cancelled";
    }
    throw error;
  }
}
