import type pg from "pg";
import {
  type CurioMachine,
  type CurioProduction,
  type CurioProofTaskType,
  curioProofTaskTypes,
} from "./harmony-types.js";

// The statements the fleet runs against Curio's HarmonyDB, one function each, over a query
// function that names what it was doing when it fails (harmony-source.ts owns the pool).

/** Runs one statement; a failure throws FleetCurioDbError saying "cannot <what>". */
export type HarmonyQuery = <T extends pg.QueryResultRow>(
  what: string,
  sql: string,
  params?: unknown[],
) => Promise<T[]>;

/** A window of task history, `[sinceMs, untilMs)` in epoch ms. */
export interface HarmonyWindow {
  sinceMs: number;
  untilMs: number;
}

const proofTypes = (): string[] => [...curioProofTaskTypes];

/** Every column the fleet reads or writes, no row: a missing one fails here, before any action. */
export async function checkHarmonyTables(query: HarmonyQuery): Promise<void> {
  await query(
    "find Curio's tables",
    `SELECT m.id, m.host_and_port, m.unschedulable, d.machine_name, t.owner_id, t.name,
            h.completed_by_host_and_port, h.work_start, h.work_end, h.result
          FROM harmony_machines m, harmony_machine_details d, harmony_task t, harmony_task_history h LIMIT 0`,
  );
}

/** Every Curio node, with its name when Curio wrote one. */
export async function readMachines(query: HarmonyQuery): Promise<CurioMachine[]> {
  const rows = await query<{
    id: number;
    host_and_port: string;
    unschedulable: boolean | null;
    machine_name: string | null;
  }>(
    "read the machines",
    `SELECT m.id, m.host_and_port, m.unschedulable, d.machine_name
          FROM harmony_machines m LEFT JOIN harmony_machine_details d ON d.machine_id = m.id
          ORDER BY m.id`,
  );
  return rows.map((r) => ({
    id: r.id,
    hostAndPort: r.host_and_port,
    unschedulable: r.unschedulable === true,
    // Curio writes "" when started without --name.
    name: r.machine_name === null || r.machine_name === "" ? undefined : r.machine_name,
  }));
}

/** Production of the proving task types per node over the window. */
export async function readProduction(
  query: HarmonyQuery,
  { sinceMs, untilMs }: HarmonyWindow,
): Promise<CurioProduction[]> {
  const rows = await query<{
    host: string;
    name: CurioProofTaskType;
    completed: number;
    failed: number;
    mean_ms: number | null;
  }>(
    "read the task history",
    `SELECT completed_by_host_and_port AS host, name,
            COUNT(*) FILTER (WHERE result) AS completed,
            COUNT(*) FILTER (WHERE NOT result) AS failed,
            AVG(EXTRACT(EPOCH FROM (work_end - work_start)) * 1000) FILTER (WHERE result)::float8 AS mean_ms
          FROM harmony_task_history
          WHERE name = ANY($1) AND work_end >= to_timestamp($2 / 1000.0) AND work_end < to_timestamp($3 / 1000.0)
          GROUP BY completed_by_host_and_port, name
          ORDER BY completed_by_host_and_port, name`,
    [proofTypes(), sinceMs, untilMs],
  );
  const hours = (untilMs - sinceMs) / 3_600_000;
  return rows.map((r) => ({
    hostAndPort: r.host,
    taskType: r.name,
    completed: Number(r.completed),
    failed: Number(r.failed),
    proofsPerHour: hours > 0 ? Number(r.completed) / hours : 0,
    meanTaskMs: r.mean_ms === null ? undefined : Number(r.mean_ms),
  }));
}

/** The mean work time of each proving task type over the window, ms. */
export async function readMeanTaskMs(
  query: HarmonyQuery,
  { sinceMs, untilMs }: HarmonyWindow,
): Promise<Map<CurioProofTaskType, number>> {
  const rows = await query<{ name: CurioProofTaskType; mean_ms: number }>(
    "read the task history",
    `SELECT name, AVG(EXTRACT(EPOCH FROM (work_end - work_start)) * 1000)::float8 AS mean_ms
          FROM harmony_task_history
          WHERE result AND name = ANY($1) AND work_end >= to_timestamp($2 / 1000.0) AND work_end < to_timestamp($3 / 1000.0)
          GROUP BY name`,
    [proofTypes(), sinceMs, untilMs],
  );
  return new Map(rows.map((r) => [r.name, Number(r.mean_ms)]));
}

/** The longest work time of each of `names` over the window, ms; types without history absent. */
export async function readLongestTaskMs(
  query: HarmonyQuery,
  names: readonly string[],
  { sinceMs, untilMs }: HarmonyWindow,
): Promise<Map<string, number>> {
  if (names.length === 0) return new Map();
  const rows = await query<{ name: string; max_ms: number }>(
    "read the task history",
    `SELECT name, MAX(EXTRACT(EPOCH FROM (work_end - work_start)) * 1000)::float8 AS max_ms
          FROM harmony_task_history
          WHERE name = ANY($1) AND work_end >= to_timestamp($2 / 1000.0) AND work_end < to_timestamp($3 / 1000.0)
          GROUP BY name`,
    [[...names], sinceMs, untilMs],
  );
  return new Map(rows.map((r) => [r.name, Number(r.max_ms)]));
}

/** Tasks a node owns now (harmony_task.owner_id), with their type. */
export async function readOwnedTasks(
  query: HarmonyQuery,
  machineId: number,
): Promise<{ id: number; name: string }[]> {
  return query<{ id: number; name: string }>(
    "read the tasks a machine owns",
    "SELECT id, name FROM harmony_task WHERE owner_id = $1 ORDER BY id",
    [machineId],
  );
}

/** Sets harmony_machines.unschedulable of one node (the fleet's only write). */
export async function writeUnschedulable(
  query: HarmonyQuery,
  machineId: number,
  unschedulable: boolean,
): Promise<void> {
  await query(
    "set a machine's unschedulable flag",
    "UPDATE harmony_machines SET unschedulable = $1 WHERE id = $2",
    [unschedulable, machineId],
  );
}
