import pg from "pg";
import { fleetDefaults } from "../defaults.js";
import { FleetCurioDbError } from "../errors.js";
import { checkSchemaName, redactConnectionString } from "../store/connection-string.js";
import { postgresClientConfig, postgresError } from "../store/postgres-executor.js";
import {
  checkHarmonyTables,
  type HarmonyQuery,
  readLongestTaskMs,
  readMachines,
  readMeanTaskMs,
  readOwnedTasks,
  readProduction,
  writeUnschedulable,
} from "./harmony-reads.js";
import type { CurioMachine, CurioProduction, CurioProofTaskType } from "./harmony-types.js";

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

export {
  type CurioMachine,
  type CurioProduction,
  type CurioProofTaskType,
  curioProofTaskTypes,
} from "./harmony-types.js";

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
  const query: HarmonyQuery = async <T extends pg.QueryResultRow>(
    what: string,
    sql: string,
    params: unknown[] = [],
  ) => {
    try {
      return (await pool.query<T>(sql, params)).rows;
    } catch (error) {
      const wrapped = postgresError(`cannot ${what} in Curio's HarmonyDB`, options.url, error);
      throw new FleetCurioDbError(wrapped.message, { hint: curioDbHint(error, schema), cause: error });
    }
  };
  return {
    location: `${redactConnectionString(options.url)} (schema ${schema})`,
    check: () => checkHarmonyTables(query),
    machines: () => readMachines(query),
    production: (window) => readProduction(query, window),
    meanTaskMs: (window) => readMeanTaskMs(query, window),
    longestTaskMs: (names, window) => readLongestTaskMs(query, names, window),
    ownedTasks: (machineId) => readOwnedTasks(query, machineId),
    setUnschedulable: (machineId, unschedulable) => writeUnschedulable(query, machineId, unschedulable),
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
