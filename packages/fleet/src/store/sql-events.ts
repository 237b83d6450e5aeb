import type { InstanceState } from "../lifecycle.js";
import type { EventsQuery } from "./fleet-store.js";
import type { FleetEvent } from "./records.js";
import type { SqlValue } from "./sql-executor.js";
import { type SqlStoreContext, writeEvent } from "./sql-store-context.js";

// The store's event log (reads and free-standing appends) and the unknown Vast instances, whose
// every step is an event.

interface EventRow {
  seq: number;
  instance_id: string;
  at: number;
  type: string;
  from_state: string | null;
  to_state: string | null;
  detail_json: string | null;
}

const sql = {
  insertUnknown:
    "INSERT INTO unknown_instances (vast_id, label, first_seen_at) VALUES (?, ?, ?) ON CONFLICT (vast_id) DO NOTHING",
  selectUnknown: "SELECT first_seen_at, outcome FROM unknown_instances WHERE vast_id = ?",
  updateUnknown: "UPDATE unknown_instances SET outcome = ? WHERE vast_id = ?",
  lastEventSeq: "SELECT MAX(seq) AS seq FROM events",
} as const;

/**
 * Decodes an `events` row into the record: the columns' snake_case to the record's names, SQL
 * NULL to undefined and the detail's JSON text parsed (the dashboard's eventView is the way out).
 */
function eventFromRow(row: EventRow): FleetEvent {
  return {
    seq: row.seq,
    instanceId: row.instance_id,
    at: row.at,
    type: row.type,
    fromState: (row.from_state ?? undefined) as InstanceState | undefined,
    toState: (row.to_state ?? undefined) as InstanceState | undefined,
    detail: row.detail_json === null ? undefined : (JSON.parse(row.detail_json) as Record<string, unknown>),
  };
}

/** FleetStore.appendEvent: an event without a state change. */
export async function appendEvent(
  ctx: SqlStoreContext,
  id: string,
  type: string,
  detail: Record<string, unknown> | undefined,
): Promise<void> {
  await writeEvent(ctx, ctx.db, id, type, undefined, undefined, detail);
}

/** FleetStore.events: after a sequence number, of one instance or all, in order. */
export async function listEvents(ctx: SqlStoreContext, query: EventsQuery = {}): Promise<FleetEvent[]> {
  const where: string[] = ["seq > ?"];
  const params: SqlValue[] = [query.afterSeq ?? 0];
  if (query.instanceId !== undefined) {
    where.push("instance_id = ?");
    params.push(query.instanceId);
  }
  const rows = await ctx.db.all<EventRow>(
    `SELECT * FROM events WHERE ${where.join(" AND ")} ORDER BY seq LIMIT ?`,
    [...params, query.limit ?? 10_000],
  );
  return rows.map(eventFromRow);
}

/** FleetStore.lastEventSeq: 0 when there is none. */
export async function lastEventSeq(ctx: SqlStoreContext): Promise<number> {
  return (await ctx.db.get<{ seq: number | null }>(sql.lastEventSeq))?.seq ?? 0;
}

/** FleetStore.noteUnknownInstance: the first sighting writes the row and an event. */
export function noteUnknownInstance(
  ctx: SqlStoreContext,
  vastId: number,
  label: string,
): Promise<{ firstSeenAt: number; outcome: string | undefined }> {
  return ctx.db.transaction(async (tx) => {
    if ((await tx.run(sql.insertUnknown, [vastId, label, ctx.clock.now()])).changes === 1) {
      await writeEvent(ctx, tx, `vast-${vastId}`, "unknown-instance", undefined, undefined, {
        vastId,
        label,
      });
    }
    const row = (await tx.get<{ first_seen_at: number; outcome: string | null }>(sql.selectUnknown, [
      vastId,
    ])) as { first_seen_at: number; outcome: string | null };
    return { firstSeenAt: row.first_seen_at, outcome: row.outcome ?? undefined };
  });
}

/** FleetStore.settleUnknownInstance: the outcome and its event. */
export async function settleUnknownInstance(
  ctx: SqlStoreContext,
  vastId: number,
  outcome: string,
): Promise<void> {
  await ctx.db.transaction(async (tx) => {
    await tx.run(sql.updateUnknown, [outcome, vastId]);
    await writeEvent(ctx, tx, `vast-${vastId}`, `unknown-instance-${outcome}`, undefined, undefined, {
      vastId,
    });
  });
}
