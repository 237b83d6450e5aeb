import type { Clock } from "@cuzkit/core";
import type { InstanceState } from "../lifecycle.js";
import { type InstanceRecord, type InstanceRow, toInstanceRecord } from "./records.js";
import type { SqlExecutor } from "./sql-executor.js";

// What every module of the SQL fleet store works over: the executor (its dialect included), the
// clock rows are stamped with, and the writer epoch events are fenced under. Each module takes it
// as its first argument; a method that runs in a transaction passes the transaction as `q`.

/** The SQL fleet store's shared state: one per store (a fenced store has its own). */
export interface SqlStoreContext {
  /** The executor the store's reads and writes (and transactions) run on; its dialect included. */
  db: SqlExecutor;
  /** Stamps rows and events. */
  clock: Clock;
  /** The writer lease's epoch each event is written under; undefined writes NULL. */
  writerEpoch: () => number | undefined;
}

const selectInstanceById = "SELECT * FROM instances WHERE id = ?";
const insertEventSql =
  "INSERT INTO events (instance_id, at, type, from_state, to_state, detail_json, writer_epoch) VALUES (?, ?, ?, ?, ?, ?, ?)";

/** Reads one instance on `q` (the store's executor or a transaction); undefined when missing. */
export async function readInstance(q: SqlExecutor, id: string): Promise<InstanceRecord | undefined> {
  const row = await q.get<InstanceRow>(selectInstanceById, [id]);
  return row === undefined ? undefined : toInstanceRecord(row);
}

/** Reads an instance the caller just wrote (so it exists). */
export async function mustReadInstance(q: SqlExecutor, id: string): Promise<InstanceRecord> {
  return (await readInstance(q, id)) as InstanceRecord;
}

/** Appends one event on `q`, stamped with the clock and the writer epoch. */
export function writeEvent(
  ctx: SqlStoreContext,
  q: SqlExecutor,
  id: string,
  type: string,
  from: InstanceState | undefined,
  to: InstanceState | undefined,
  detail: Record<string, unknown> | undefined,
) {
  return q.run(insertEventSql, [
    id,
    ctx.clock.now(),
    type,
    from ?? null,
    to ?? null,
    detail === undefined ? null : JSON.stringify(detail),
    ctx.writerEpoch() ?? null,
  ]);
}
