import { transitionRefused } from "../errors.js";
import { canTransition, type InstanceState } from "../lifecycle.js";
import type { TransitionChanges, TransitionOptions } from "./fleet-store.js";
import {
  type CurioDrainRecord,
  curioDrainColumns,
  curioDrainValues,
  type InstanceRecord,
} from "./records.js";
import type { SqlExecutor, SqlValue } from "./sql-executor.js";
import { mustReadInstance, readInstance, type SqlStoreContext, writeEvent } from "./sql-store-context.js";

// The store's state-guarded writes of an instance: transitions, same-state updates, the Curio
// drain and destroy attempts. Each UPDATE names the states it may start from, so a racing writer
// changes nothing and the caller learns the actual state.

// curioDrain is five columns (curioDrainColumns), set apart below.
const changeColumns: Record<Exclude<keyof TransitionChanges, "curioDrain">, string> = {
  vastId: "vast_id",
  machineId: "machine_id",
  reason: "reason",
  tunedConfig: "tuned_config",
  proofsPerHour: "proofs_per_hour",
  tokenHash: "token_hash",
  claimedProofsPerHour: "claimed_proofs_per_hour",
  benchmarkProofsPerHour: "benchmark_proofs_per_hour",
  modelProofsPerHour: "model_proofs_per_hour",
  rateBasis: "rate_basis",
  productionProofsPerHour: "production_proofs_per_hour",
  productionAt: "production_at",
  belowKeepSince: "below_keep_since",
};

const noteDestroyAttemptSql = `UPDATE instances SET destroy_attempts = destroy_attempts + 1,
      destroy_first_attempt_at = COALESCE(destroy_first_attempt_at, ?),
      destroy_next_attempt_at = ?, destroy_manual = ?, updated_at = ?
    WHERE id = ? AND state = 'destroying'`;

/** An UPDATE of an instance guarded by its state: optional new state and columns. */
function guardedUpdateSql(fromCount: number, setsState: boolean, columns: readonly string[]): string {
  const sets = [
    "updated_at = ?",
    ...(setsState ? ["state = ?", "phase_started_at = ?", "phase_deadline_at = ?"] : []),
    ...columns.map((c) => `${c} = ?`),
  ];
  const guard = Array.from({ length: fromCount }, () => "?").join(", ");
  return `UPDATE instances SET ${sets.join(", ")} WHERE id = ? AND state IN (${guard})`;
}

/** The columns and values `changes` sets (the drain's five when it changes or `active` is left). */
function changedColumns(
  changes: TransitionChanges,
  to: InstanceState | undefined,
): { columns: string[]; values: SqlValue[] } {
  const columns: string[] = [];
  const values: SqlValue[] = [];
  for (const [key, column] of Object.entries(changeColumns) as [
    Exclude<keyof TransitionChanges, "curioDrain">,
    string,
  ][]) {
    if (!(key in changes)) continue;
    columns.push(column);
    values.push(changes[key] ?? null);
  }
  // A drain belongs to an active instance: leaving `active` ends it (the destroy took over),
  // in the same write, so no stale drain is resumed later.
  if ("curioDrain" in changes || (to !== undefined && to !== "active")) {
    columns.push(...curioDrainColumns);
    values.push(...curioDrainValues(changes.curioDrain));
  }
  return { columns, values };
}

/** Updates the instance if it is in one of `fromStates` (to `to` when given); whether it did. */
export async function guardedUpdate(
  ctx: SqlStoreContext,
  q: SqlExecutor,
  id: string,
  fromStates: readonly InstanceState[],
  to: { state: InstanceState; deadlineAt: number | null } | undefined,
  changes: TransitionChanges,
): Promise<boolean> {
  const now = ctx.clock.now();
  const { columns, values } = changedColumns(changes, to?.state);
  const params: SqlValue[] = [now];
  if (to !== undefined) params.push(to.state, now, to.deadlineAt);
  params.push(...values, id, ...fromStates);
  const { changes: changed } = await q.run(
    guardedUpdateSql(fromStates.length, to !== undefined, columns),
    params,
  );
  return changed === 1;
}

/** A transition on `q`: the new record, or undefined with the state that refused it. */
export async function transitionIn(
  ctx: SqlStoreContext,
  q: SqlExecutor,
  id: string,
  from: InstanceState | readonly InstanceState[],
  to: InstanceState,
  options: TransitionOptions = {},
): Promise<{ record: InstanceRecord | undefined; actual: InstanceState | undefined }> {
  const fromStates = (typeof from === "string" ? [from] : from).filter((state) => canTransition(state, to));
  const before = await readInstance(q, id);
  if (fromStates.length === 0) return { record: undefined, actual: before?.state };
  const ms = before?.deadlinesMs[to];
  const deadlineAt = ms === undefined ? null : ctx.clock.now() + ms;
  if (!(await guardedUpdate(ctx, q, id, fromStates, { state: to, deadlineAt }, options.changes ?? {}))) {
    return { record: undefined, actual: (await readInstance(q, id))?.state };
  }
  await writeEvent(ctx, q, id, options.eventType ?? "transition", before?.state, to, options.detail);
  return { record: await readInstance(q, id), actual: to };
}

/** A transition in its own transaction. */
export function transitionOrUndefined(
  ctx: SqlStoreContext,
  id: string,
  from: InstanceState | readonly InstanceState[],
  to: InstanceState,
  options?: TransitionOptions,
) {
  return ctx.db.transaction((tx) => transitionIn(ctx, tx, id, from, to, options));
}

/** FleetStore.transition: throws transitionRefused when the instance was not in `from`. */
export async function transition(
  ctx: SqlStoreContext,
  id: string,
  from: InstanceState | readonly InstanceState[],
  to: InstanceState,
  options?: TransitionOptions,
): Promise<InstanceRecord> {
  const { record, actual } = await transitionOrUndefined(ctx, id, from, to, options);
  if (record === undefined) throw transitionRefused(id, from, to, actual);
  return record;
}

/** FleetStore.update: columns of an instance still in `state`, with an event. */
export function updateInState(
  ctx: SqlStoreContext,
  id: string,
  state: InstanceState,
  changes: TransitionChanges,
  eventType: string,
  detail: Record<string, unknown> | undefined,
): Promise<InstanceRecord> {
  return ctx.db.transaction(async (tx) => {
    if (!(await guardedUpdate(ctx, tx, id, [state], undefined, changes))) {
      throw transitionRefused(id, state, state, (await readInstance(tx, id))?.state);
    }
    await writeEvent(ctx, tx, id, eventType, state, state, detail);
    return mustReadInstance(tx, id);
  });
}

/** FleetStore.setCurioDrain: a new drain needs an active instance; clearing one does not. */
export function setCurioDrain(
  ctx: SqlStoreContext,
  id: string,
  drain: CurioDrainRecord | undefined,
  drainEvent: { type: string; detail?: Record<string, unknown> | undefined } | undefined,
): Promise<InstanceRecord | undefined> {
  return ctx.db.transaction(async (tx) => {
    const sets = curioDrainColumns.map((c) => `${c} = ?`).join(", ");
    const guard = drain === undefined ? "" : " AND state = 'active'";
    const { changes } = await tx.run(`UPDATE instances SET updated_at = ?, ${sets} WHERE id = ?${guard}`, [
      ctx.clock.now(),
      ...curioDrainValues(drain),
      id,
    ]);
    if (changes !== 1) return undefined;
    if (drainEvent !== undefined)
      await writeEvent(ctx, tx, id, drainEvent.type, undefined, undefined, drainEvent.detail);
    return mustReadInstance(tx, id);
  });
}

/** FleetStore.noteDestroyAttempt: counts a failed (or manual) destroy of a `destroying` instance. */
export function noteDestroyAttempt(
  ctx: SqlStoreContext,
  id: string,
  nextAttemptAt: number | undefined,
  manual: boolean,
  error: string,
): Promise<InstanceRecord> {
  return ctx.db.transaction(async (tx) => {
    const now = ctx.clock.now();
    const { changes } = await tx.run(noteDestroyAttemptSql, [
      now,
      nextAttemptAt ?? null,
      manual ? 1 : 0,
      now,
      id,
    ]);
    if (changes !== 1) {
      throw transitionRefused(id, "destroying", "destroying", (await readInstance(tx, id))?.state);
    }
    await writeEvent(
      ctx,
      tx,
      id,
      manual ? "destroy-manually" : "destroy-failed",
      "destroying",
      "destroying",
      {
        error,
        nextAttemptAt,
      },
    );
    return mustReadInstance(tx, id);
  });
}
