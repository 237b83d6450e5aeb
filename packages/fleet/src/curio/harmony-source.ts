import pg from "pg";
import { fleetDefaults } from "../defaults.js";
import { FleetCurioDbError } from "../errors.js";
import { checkSchemaName, redactConnectionString } from "../store/connection-string.js";
import { postgresClientConfig, postgresError } from "../store/postgres-executor.js";

// Curio's HarmonyDB (YugabyteDB or PostgreSQL), as the fleet uses it. Read: harmony_machines
// (id, host_and_port, unschedulable), harmony_machine_details (machine_id, machine_name: the
// node's `curio run --name` / CURIO_NODE_NAME, written at start-up by cmd/curio/tasks/tasks.go
// machineDetails; column from 20240527-machine_name.sql), harmony_task (id, name, owner_id) and
// harmony_task_history (name, work_start, work_end, result, completed_by_host_and_port).
// Written: harmony_machines.unschedulable only (Curio's own cordon flag, from
// 20250111-machine-maintenance.sql), nothing else. Table and column names checked against
// filecoin-project/curio v1.28.4, harmony/harmonydb/sql/20230719-harmony.sql,
// 20231113-harmony_taskhistory_oops.sql, 20240522-ts-to-timestampz.sql and
// 20250111-machine-maintenance.sql.

/** Curio's proving task types the fleet counts (tasks/tasknames/names.go). */
export const curioProofTaskTypes = ["PoRep", "UpdateProve", "PSProve"] as const;

/** A proving task type. */
export type CurioProofTaskType = (typeof curioProofTaskTypes)[number];

/** One Curio node. */
export interface CurioMachine {
  /** harmony_machines.id. */
  id: number;
  /** The address the node advertises, `host:port`. */
  hostAndPort: string;
  /** Curio's cordon flag: true keeps new tasks off it. */
  unschedulable: boolean;
  /** harmony_machine_details.machine_name (Curio's `--name`); undefined when unnamed or not yet written. */
  name: string | undefined;
}

/** One machine's production of one task type over a window. */
export interface CurioProduction {
  hostAndPort: string;
  taskType: CurioProofTaskType;
  /** Successful tasks that ended in the window. */
  completed: number;
  /** Failed tasks that ended in the window. */
  failed: number;
  /** Successful proofs per hour over the window. */
  proofsPerHour: number;
  /** Mean work time of the successful tasks, ms; undefined when none. */
  meanTaskMs: number | undefined;
}

/** Options of openHarmonySource. */
export interface HarmonySourceOptions {
  /** HarmonyDB's `postgres://USER:PASSWORD@HOST:PORT/DB`. Required. */
  url: string;
  /** The schema Curio's tables are in. Default `curio`. */
  schema?: string | undefined;
  /**
   * The longest one HarmonyDB call may take, connecting included, ms: a hung database fails the
   * call with FLEET_CURIO_DB instead of stalling the manager's passes. Default 30 000.
   */
  timeoutMs?: number | undefined;
}

/** HarmonySourceOptions.timeoutMs's default, ms. */
export const defaultHarmonyTimeoutMs = 30_000;

/** Curio's HarmonyDB as the fleet reads it (and the one flag it sets). */
export interface HarmonySource {
  /** The connection string with its password hidden, and the schema. */
  readonly location: string;
  /**
   * Checks that the database answers and holds Curio's tables and columns the fleet uses; throws
   * FleetCurioDbError saying which (unreachable, credentials refused, not a Curio schema).
   */
  check(): Promise<void>;
  /** Every Curio node. */
  machines(): Promise<CurioMachine[]>;
  /** Production of the proving task types per node, over `[sinceMs, untilMs)` (epoch ms). */
  production(window: { sinceMs: number; untilMs: number }): Promise<CurioProduction[]>;
  /** The mean work time of each proving task type over the window, ms (for drain deadlines). */
  meanTaskMs(window: { sinceMs: number; untilMs: number }): Promise<Map<CurioProofTaskType, number>>;
  /**
   * The longest work time (work_end - work_start, successful or not) of each of `names` over the
   * window, ms: a drain's expected duration per task type. The maximum, not a percentile: a task
   * cut at its deadline loses all its work (and maybe Curio's ProveTimeout), while waiting
   * longer than needed costs only the minutes after the task ends early (the drain ends as soon
   * as the node owns nothing). Types with no history in the window are absent.
   */
  longestTaskMs(
    names: readonly string[],
    window: { sinceMs: number; untilMs: number },
  ): Promise<Map<string, number>>;
  /** Tasks a node owns now (harmony_task.owner_id), with their type. */
  ownedTasks(machineId: number): Promise<{ id: number; name: string }[]>;
  /** Sets harmony_machines.unschedulable of one node (the only write). */
  setUnschedulable(machineId: number, unschedulable: boolean): Promise<void>;
  /** Closes the connections. */
  close(): Promise<void>;
}

/** The host part of `host:port` (IPv6 in brackets too). */
export function hostOf(hostAndPort: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(hostAndPort);
  if (bracketed?.[1]) return bracketed[1];
  const colon = hostAndPort.lastIndexOf(":");
  return colon > 0 && hostAndPort.indexOf(":") === colon ? hostAndPort.slice(0, colon) : hostAndPort;
}

/** Opens a HarmonyDB source (lazily: the first call connects). */
// shape-exception: a closure over one pg pool; each method is one query
export function openHarmonySource(options: HarmonySourceOptions): HarmonySource {
  const schema = checkSchemaName(options.schema ?? fleetDefaults.curioSchema, "--curio-schema");
  // allowExitOnIdle: a CLI command that read Curio exits without waiting for idle connections.
  const timeoutMs = options.timeoutMs ?? defaultHarmonyTimeoutMs;
  const pool = new pg.Pool({
    ...postgresClientConfig(options.url, schema),
    max: 2,
    allowExitOnIdle: true,
    // Bounded: waiting for a connection, and each query (the server cancels it too).
    connectionTimeoutMillis: timeoutMs,
    query_timeout: timeoutMs,
    statement_timeout: timeoutMs,
  });
  pool.on("error", () => {});
  const query = async <T extends pg.QueryResultRow>(what: string, sql: string, params: unknown[] = []) => {
    try {
      return (await pool.query<T>(sql, params)).rows;
    } catch (error) {
      const wrapped = postgresError(`cannot ${what} in Curio's HarmonyDB`, options.url, error);
      throw new FleetCurioDbError(wrapped.message, { hint: curioDbHint(error, schema), cause: error });
    }
  };
  const types = [...curioProofTaskTypes];
  return {
    location: `${redactConnectionString(options.url)} (schema ${schema})`,
    async check() {
      // Every column the fleet reads or writes, no row: a missing one fails here, before any action.
      await query(
        "find Curio's tables",
        `SELECT m.id, m.host_and_port, m.unschedulable, d.machine_name, t.owner_id, t.name,
            h.completed_by_host_and_port, h.work_start, h.work_end, h.result
          FROM harmony_machines m, harmony_machine_details d, harmony_task t, harmony_task_history h LIMIT 0`,
      );
    },
    async machines() {
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
    },
    async production({ sinceMs, untilMs }) {
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
        [types, sinceMs, untilMs],
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
    },
    async meanTaskMs({ sinceMs, untilMs }) {
      const rows = await query<{ name: CurioProofTaskType; mean_ms: number }>(
        "read the task history",
        `SELECT name, AVG(EXTRACT(EPOCH FROM (work_end - work_start)) * 1000)::float8 AS mean_ms
          FROM harmony_task_history
          WHERE result AND name = ANY($1) AND work_end >= to_timestamp($2 / 1000.0) AND work_end < to_timestamp($3 / 1000.0)
          GROUP BY name`,
        [types, sinceMs, untilMs],
      );
      return new Map(rows.map((r) => [r.name, Number(r.mean_ms)]));
    },
    async longestTaskMs(names, { sinceMs, untilMs }) {
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
    },
    async ownedTasks(machineId) {
      return query<{ id: number; name: string }>(
        "read the tasks a machine owns",
        "SELECT id, name FROM harmony_task WHERE owner_id = $1 ORDER BY id",
        [machineId],
      );
    },
    async setUnschedulable(machineId, unschedulable) {
      await query(
        "set a machine's unschedulable flag",
        "UPDATE harmony_machines SET unschedulable = $1 WHERE id = $2",
        [unschedulable, machineId],
      );
    },
    close: () => pool.end(),
  };
}

/** The hint of a HarmonyDB failure, by its cause: unreachable, credentials, or not Curio's schema. */
function curioDbHint(error: unknown, schema: string): string {
  const code = (error as { code?: unknown })?.code;
  if (code === "28P01" || code === "28000")
    return "HarmonyDB refused the credentials: check the user in --curio-db and its password (PGPASSWORD, ~/.pgpass or CUZKIT_CURIO_DB)";
  if (code === "42P01" || code === "42703" || code === "3F000")
    return `no Curio tables (harmony_machines, harmony_machine_details, harmony_task, harmony_task_history) in schema ${schema}: check --curio-db names Curio's database and --curio-schema its schema (default curio); machine_name needs a Curio from mid-2024 or later`;
  if (code === "42501")
    return "the --curio-db user may not read (or set unschedulable in) Curio's tables: grant it SELECT, and UPDATE on harmony_machines";
  return "check that HarmonyDB is reachable at --curio-db (postgres://USER@HOST:PORT/DB, or CUZKIT_CURIO_DB) and that --curio-schema (default curio) is Curio's schema";
}
