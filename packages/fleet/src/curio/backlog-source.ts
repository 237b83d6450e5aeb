import pg from "pg";
import { fleetDefaults } from "../defaults.js";
import { FleetCurioDbError } from "../errors.js";
import { checkSchemaName, redactConnectionString } from "../store/connection-string.js";
import { postgresClientConfig, postgresError } from "../store/postgres-executor.js";
import { type CurioProofTaskType, curioProofTaskTypes } from "./harmony-source.js";

// Curio's backlog of proving work: the harmony_task rows no node has claimed. Curio's own
// scheduler picks its work with the same predicate (harmony/harmonytask/scheduler.go:
// `SELECT id, name, update_time, posted_time, retries FROM harmony_task WHERE owner_id IS NULL
// AND name = ANY($1)`); the task names are tasks/tasknames/names.go's PoRep (tasks/seal/task_porep.go),
// UpdateProve (tasks/snap/task_prove.go) and PSProve (tasks/proofshare/task_prove.go), and
// posted_time is TIMESTAMPTZ since 20240522-ts-to-timestampz.sql (curio e0294b0f). Read only.

/** The SQL the backlog is read with ($1: the proving task names). */
export const curioBacklogSql = `SELECT name, COUNT(*)::int AS waiting,
    (EXTRACT(EPOCH FROM MIN(posted_time)) * 1000)::float8 AS oldest_posted_ms
  FROM harmony_task
  WHERE owner_id IS NULL AND name = ANY($1)
  GROUP BY name`;

/** Unclaimed tasks of one proving task type. */
export interface CurioBacklogByType {
  taskType: CurioProofTaskType;
  /** Rows with no owner. */
  waiting: number;
  /** posted_time of the oldest, epoch ms. */
  oldestPostedMs: number;
}

/** The cluster's unclaimed proving work. */
export interface CurioBacklog {
  /** Unclaimed proving tasks, all types. */
  waiting: number;
  /** posted_time of the oldest of them, epoch ms; undefined when none waits. */
  oldestPostedMs: number | undefined;
  /** Per type, only the types with work waiting, in the order PoRep, UpdateProve, PSProve. */
  byType: CurioBacklogByType[];
}

/** Where the backlog is read from (openCurioBacklogSource; tests pass their own). */
export interface CurioBacklogSource {
  /** The connection string with its password hidden, and the schema. */
  readonly location: string;
  /** Reads the backlog now; throws FleetCurioDbError when HarmonyDB cannot answer. */
  read(): Promise<CurioBacklog>;
  /** Closes the connection. */
  close(): Promise<void>;
}

/** Options of openCurioBacklogSource. */
export interface CurioBacklogSourceOptions {
  /** HarmonyDB's `postgres://USER:PASSWORD@HOST:PORT/DB`. Required. */
  url: string;
  /** The schema Curio's tables are in. Default `curio`. */
  schema?: string | undefined;
}

/** Opens a backlog reader on HarmonyDB (lazily: the first read connects; one connection). */
export function openCurioBacklogSource(options: CurioBacklogSourceOptions): CurioBacklogSource {
  const schema = checkSchemaName(options.schema ?? fleetDefaults.curioSchema, "--curio-schema");
  const pool = new pg.Pool({ ...postgresClientConfig(options.url, schema), max: 1, allowExitOnIdle: true });
  pool.on("error", () => {});
  return {
    location: `${redactConnectionString(options.url)} (schema ${schema})`,
    async read() {
      let rows: { name: CurioProofTaskType; waiting: number; oldest_posted_ms: number }[];
      try {
        rows = (await pool.query(curioBacklogSql, [[...curioProofTaskTypes]])).rows;
      } catch (error) {
        const wrapped = postgresError("cannot read the backlog (harmony_task)", options.url, error);
        throw new FleetCurioDbError(wrapped.message, {
          hint: `the fleet keeps its target until HarmonyDB answers: check --curio-db (or CUZKIT_CURIO_DB) is reachable and that schema ${schema} (--curio-schema) holds harmony_task with SELECT granted`,
          cause: error,
        });
      }
      // In curioProofTaskTypes' order, whatever the database's collation.
      const byType = rows
        .map((r) => ({
          taskType: r.name,
          waiting: Number(r.waiting),
          oldestPostedMs: Number(r.oldest_posted_ms),
        }))
        .sort((a, b) => curioProofTaskTypes.indexOf(a.taskType) - curioProofTaskTypes.indexOf(b.taskType));
      return {
        waiting: byType.reduce((s, t) => s + t.waiting, 0),
        oldestPostedMs: byType.length === 0 ? undefined : Math.min(...byType.map((t) => t.oldestPostedMs)),
        byType,
      };
    },
    close: () => pool.end(),
  };
}
