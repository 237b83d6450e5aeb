import { toCuzkitError } from "@cuzkit/core";
import { cordonAndDrain } from "../curio/drain.js";
import { FleetCurioDbError, FleetCurioNodeError } from "../errors.js";
import { vettingStates } from "../lifecycle.js";
import type { InstanceRecord } from "../store/records.js";
import type { ManagerContext } from "./context.js";
import { attemptDestroy, beginDestroy, failAndDestroy } from "./destroyer.js";

/** Options of FleetManager.destroy. */
export interface DestroyOptions {
  /** Cancels the destroy while a Curio machine drains: it is uncordoned and stays active. Default: none. */
  signal?: AbortSignal | undefined;
  /**
   * What the signal does to a drain: `uncordon` (a cancel) or `keep` (the drain stays stored and
   * the next start resumes it: a manager stopping). Default `uncordon`.
   */
  onAbort?: "uncordon" | "keep" | undefined;
  /**
   * The event type of an active instance's move to `draining`, naming who decided (`fleet run`
   * passes `over-target`). Default `operator-destroy`.
   */
  eventType?: string | undefined;
  /** Why, in the move's event (`detail.reason`). Default: none. */
  reason?: string | undefined;
}

/**
 * Destroys an instance from whatever state it is in (FleetManager.destroy); `stopSignal` is the
 * manager's stop, which ends the drain of a destroy without a signal of its own.
 */
export async function destroyInstance(
  ctx: ManagerContext,
  id: string,
  destroyOptions: DestroyOptions,
  stopSignal: AbortSignal,
): Promise<InstanceRecord> {
  const { store } = ctx;
  const record = await store.require(id);
  switch (record.state) {
    case "destroyed":
      return record;
    case "planned":
      return await store.transition(id, "planned", "destroyed", { eventType: "operator-destroy" });
    case "destroying":
      return attemptDestroy(ctx, record);
    case "rejected":
    case "failed":
      return beginDestroy(ctx, id, [record.state]);
    case "active":
      return destroyActive(ctx, record, destroyOptions, stopSignal);
    case "draining":
      return beginDestroy(ctx, id, ["draining"]);
    default: {
      const failed = await failAndDestroy(
        ctx,
        id,
        ["renting", "booting", ...vettingStates],
        "destroyed by the operator",
        "operator-destroy",
      );
      return failed ?? (await store.require(id));
    }
  }
}

/**
 * An active instance: a Curio machine finishes (or runs out of time for) its tasks while still
 * active, so the monitor does not destroy it meanwhile; a cancel leaves it active and schedulable.
 */
async function destroyActive(
  ctx: ManagerContext,
  record: InstanceRecord,
  destroyOptions: DestroyOptions,
  stopSignal: AbortSignal,
): Promise<InstanceRecord> {
  const { store } = ctx;
  const id = record.id;
  let conflict = "";
  let failure: unknown;
  // Without a signal of its own (a fleet run trim, a library call), the manager's stop
  // ends the drain with its state stored: the next start resumes it.
  const ownSignal = destroyOptions.signal !== undefined;
  const drained = await cordonAndDrain(ctx, record, {
    signal: ownSignal ? destroyOptions.signal : stopSignal,
    onAbort: ownSignal ? destroyOptions.onAbort : "keep",
    onConflict: (c) => {
      conflict = c.reason;
    },
    onFailed: (error) => {
      failure = error;
    },
  });
  if (drained === "cancelled" || drained === "interrupted" || drained === "gone") return store.require(id);
  if (drained === "failed") {
    const cause = toCuzkitError(failure);
    throw new FleetCurioDbError(
      `${id} was not destroyed: its Curio drain failed (${cause.message}); the node was uncordoned, or its state stored to retry`,
      { instanceId: id, hint: cause.hint || undefined, cause: failure },
    );
  }
  if (drained === "conflict") {
    throw new FleetCurioNodeError(
      `${id} was not destroyed: its Curio node cannot be told apart (${conflict}); nothing was cordoned`,
      { instanceId: id },
    );
  }
  // Leaving `active` clears the stored drain in the same write.
  const detail: Record<string, unknown> = {};
  if (destroyOptions.reason !== undefined) detail.reason = destroyOptions.reason;
  if (drained !== "not-curio") detail.curioDrain = drained;
  await store.transition(id, "active", "draining", {
    eventType: destroyOptions.eventType ?? "operator-destroy",
    detail: Object.keys(detail).length === 0 ? undefined : detail,
  });
  return beginDestroy(ctx, id, ["draining"]);
}
