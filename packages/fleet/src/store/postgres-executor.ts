import pg from "pg";
import { FleetStoreError } from "../errors.js";
import { redactConnectionString, redactMessage } from "./connection-string.js";
import { postgresDialect } from "./sql-dialect.js";
import type { SqlExecutor, SqlValue } from "./sql-executor.js";

/** Options of a PostgreSQL connection pool. */
export interface PostgresPoolOptions {
  /** `postgres://USER:PASSWORD@HOST:PORT/DB`. Required. */
  url: string;
  /** The schema every query runs in (its `search_path`). Required; checked by the caller. */
  schema: string;
  /** Most connections at once. Default 4. */
  maxConnections?: number | undefined;
}

// BIGINT (epoch ms, ids, COUNT) arrives as text by default; every value the fleet keeps is far
// below 2^53, so numbers are exact.
const int8Oid = 20;
const types = {
  getTypeParser: ((oid: number, format?: "text" | "binary") =>
    oid === int8Oid
      ? (value: string) => Number(value)
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/** pg's connection options for a URL and schema: numbers as numbers, the schema first on the search path. */
export function postgresClientConfig(url: string, schema: string): pg.ClientConfig {
  return { connectionString: url, options: `-c search_path=${schema}`, types };
}

/** `?` placeholders as PostgreSQL's `$1, $2, ...` (the fleet's SQL has no `?` in literals). */
export function numberPlaceholders(sql: string): string {
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
}

/** Wraps a driver error as FleetStoreError with the password removed. */
export function postgresError(what: string, url: string, error: unknown): FleetStoreError {
  const message = redactMessage((error as Error)?.message ?? String(error), url);
  return new FleetStoreError(`${what} at ${redactConnectionString(url)}: ${message}`, {
    hint: "check that PostgreSQL is reachable and the user may use the schema; pass another --db postgres://USER:PASSWORD@HOST:PORT/DB",
    cause: error,
  });
}

type Queryable = pg.Pool | pg.PoolClient;

function executorOn(target: Queryable, transaction: SqlExecutor["transaction"]): SqlExecutor {
  const query = async <T>(sql: string, params: readonly SqlValue[] = []) =>
    target.query(numberPlaceholders(sql), params as SqlValue[]) as unknown as Promise<
      pg.QueryResult<T & pg.QueryResultRow>
    >;
  return {
    dialect: postgresDialect,
    all: async <T>(sql: string, params?: readonly SqlValue[]) => (await query<T>(sql, params)).rows as T[],
    get: async <T>(sql: string, params?: readonly SqlValue[]) =>
      (await query<T>(sql, params)).rows[0] as T | undefined,
    run: async (sql, params) => ({ changes: (await query(sql, params)).rowCount ?? 0 }),
    transaction,
  };
}

/** A pool and the executor over it; `end()` closes every connection. */
export interface PostgresPool {
  readonly executor: SqlExecutor;
  readonly pool: pg.Pool;
  end(): Promise<void>;
}

/** Opens a pool (lazily: the first query connects) running every query in `schema`. */
export function openPostgresPool(options: PostgresPoolOptions): PostgresPool {
  const pool = new pg.Pool({
    ...postgresClientConfig(options.url, options.schema),
    max: options.maxConnections ?? 4,
  });
  // An idle connection dropped by the server must not crash the process; the next query reconnects.
  pool.on("error", () => {});
  const transaction: SqlExecutor["transaction"] = async (work) => {
    const client = await pool.connect();
    // The server may end this session mid-transaction (a frozen process's transaction passing
    // idle_in_transaction_session_timeout): the query fails, and the process must not crash
    // on the connection's error event; the broken connection is dropped, not pooled.
    let broken: Error | undefined;
    const onError = (error: Error) => {
      broken = error;
    };
    client.on("error", onError);
    const inside: SqlExecutor = executorOn(client, (nestedWork) => nestedWork(inside));
    try {
      await client.query("BEGIN");
      const result = await work(inside);
      await client.query("COMMIT");
      return result;
    } catch (error) {
      await client.query("ROLLBACK").catch(() => {});
      throw error;
    } finally {
      client.off("error", onError);
      client.release(broken);
    }
  };
  return { executor: executorOn(pool, transaction), pool, end: () => pool.end() };
}
