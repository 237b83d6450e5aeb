import { instanceNotFound } from "../errors.js";
import { type InstanceState, instanceStates } from "../lifecycle.js";
import type { PlanInstanceInput, PlanOptions } from "./fleet-store.js";
import { type InstanceRecord, type InstanceRow, toInstanceRecord } from "./records.js";
import { insertRow } from "./sql-executor.js";
import { mustReadInstance, readInstance, type SqlStoreContext, writeEvent } from "./sql-store-context.js";

// The store's instance rows outside the state-guarded writes: planning one, reading them,
// heartbeats and the per-state counts.

const liveStates = "('booting','registered','params','warmup','benchmarking','active','draining')";

const sql = {
  selectTokenHash: "SELECT token_hash FROM instances WHERE id = ?",
  selectByLabel: "SELECT * FROM instances WHERE label = ?",
  selectAll: "SELECT * FROM instances ORDER BY created_at, id",
  heartbeat: `UPDATE instances SET last_heartbeat_at = ? WHERE id = ? AND state IN ${liveStates}`,
  countStates: "SELECT state, COUNT(*) AS n FROM instances GROUP BY state",
} as const;

/** FleetStore.plan: inserts a `planned` instance and its event, the guard seeing every row under a write lock. */
export function planInstance(
  ctx: SqlStoreContext,
  input: PlanInstanceInput,
  planOptions: PlanOptions = {},
): Promise<InstanceRecord> {
  return ctx.db.transaction(async (tx) => {
    const lock = tx.dialect.lockForWrite("instances");
    if (lock !== undefined) await tx.run(lock);
    if (planOptions.guard !== undefined) {
      const rows = await tx.all<InstanceRow>(sql.selectAll);
      planOptions.guard(rows.map(toInstanceRecord));
    }
    const now = ctx.clock.now();
    const insert = insertRow("instances", {
      id: input.id,
      fleet: input.fleet,
      label: input.label,
      state: "planned",
      offer_id: input.offer.offerId,
      machine_id: input.offer.machineId ?? null,
      dph: input.offer.dphTotal,
      offer_json: JSON.stringify(input.offer),
      deadlines_json: JSON.stringify(input.deadlinesMs),
      token_hash: input.tokenHash,
      phase_started_at: now,
      phase_deadline_at: null,
      created_at: now,
      updated_at: now,
    });
    await tx.run(insert.sql, insert.params);
    await writeEvent(ctx, tx, input.id, "planned", undefined, "planned", {
      offerId: input.offer.offerId,
      label: input.label,
    });
    return mustReadInstance(tx, input.id);
  });
}

/** FleetStore.require: the instance, or instanceNotFound. */
export async function requireInstance(ctx: SqlStoreContext, id: string): Promise<InstanceRecord> {
  const record = await readInstance(ctx.db, id);
  if (record === undefined) throw instanceNotFound(id);
  return record;
}

/** FleetStore.tokenHash. */
export async function instanceTokenHash(ctx: SqlStoreContext, id: string): Promise<string | undefined> {
  return (await ctx.db.get<{ token_hash: string }>(sql.selectTokenHash, [id]))?.token_hash;
}

/** FleetStore.getByLabel. */
export async function instanceByLabel(
  ctx: SqlStoreContext,
  label: string,
): Promise<InstanceRecord | undefined> {
  const row = await ctx.db.get<InstanceRow>(sql.selectByLabel, [label]);
  return row === undefined ? undefined : toInstanceRecord(row);
}

/** FleetStore.list: every instance, oldest first, optionally only in `states`. */
export async function listInstances(
  ctx: SqlStoreContext,
  states: readonly InstanceState[] | undefined,
): Promise<InstanceRecord[]> {
  const rows = (await ctx.db.all<InstanceRow>(sql.selectAll)).map(toInstanceRecord);
  return states === undefined ? rows : rows.filter((r) => states.includes(r.state));
}

/** FleetStore.heartbeat: false when the instance is not live. */
export async function heartbeat(ctx: SqlStoreContext, id: string): Promise<boolean> {
  return (await ctx.db.run(sql.heartbeat, [ctx.clock.now(), id])).changes === 1;
}

/** FleetStore.countByState: every state present, 0 when none. */
export async function countByState(ctx: SqlStoreContext): Promise<Record<InstanceState, number>> {
  const counts = Object.fromEntries(instanceStates.map((s) => [s, 0])) as Record<InstanceState, number>;
  for (const row of await ctx.db.all<{ state: InstanceState; n: number }>(sql.countStates)) {
    counts[row.state] = row.n;
  }
  return counts;
}
