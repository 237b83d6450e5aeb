import type { SqliteDatabase } from "./open-database.js";
import type { SqlDialect } from "./sql-dialect.js";
import { sqliteDialect } from "./sql-dialect.js";

/** A value bound to a `?` placeholder. */
export type SqlValue = string | number | null;

/**
 * An INSERT bound by column name: each of `row`'s keys is a column and its value is bound to that
 * column's placeholder, so a column and its value cannot drift apart as a positional list can.
 * The column names are the caller's literals, never input. `suffix` follows the VALUES list
 * (such as `RETURNING *`). Default: nothing.
 */
export function insertRow(
  table: string,
  row: Readonly<Record<string, SqlValue>>,
  suffix = "",
): { sql: string; params: SqlValue[] } {
  const columns = Object.keys(row);
  const values = `VALUES (${columns.map(() => "?").join(", ")})`;
  const sql = `INSERT INTO ${table} (${columns.join(", ")}) ${values}${suffix === "" ? "" : ` ${suffix}`}`;
  return { sql, params: Object.values(row) };
}

/**
 * What the fleet's SQL runs on: positional `?` placeholders, rows as plain objects, and
 * transactions that see their own writes. The SQLite and PostgreSQL stores differ only here.
 */
export interface SqlExecutor {
  readonly dialect: SqlDialect;
  /** Every row of a query. */
  all<T>(sql: string, params?: readonly SqlValue[]): Promise<T[]>;
  /** The first row of a query, or undefined. */
  get<T>(sql: string, params?: readonly SqlValue[]): Promise<T | undefined>;
  /** A write; answers how many rows it changed. */
  run(sql: string, params?: readonly SqlValue[]): Promise<{ changes: number }>;
  /** Runs `work` in one transaction on `tx` (committed when it resolves, rolled back when it throws). */
  transaction<T>(work: (tx: SqlExecutor) => Promise<T>): Promise<T>;
}

/** A prepared statement bound by position. */
interface PositionalStatement {
  all(...params: readonly SqlValue[]): unknown[];
  get(...params: readonly SqlValue[]): unknown;
  run(...params: readonly SqlValue[]): { changes: number };
}

/**
 * The SQLite executor over one better-sqlite3-style handle. Statements are prepared once and
 * kept. The handle is one connection, so a transaction holds it: other calls wait until it ends
 * (an `await` inside a transaction must not let another caller's write join it).
 */
export function sqliteExecutor(db: SqliteDatabase): SqlExecutor {
  const statements = new Map<string, PositionalStatement>();
  const prepare = (sql: string): PositionalStatement => {
    let statement = statements.get(sql);
    if (statement === undefined) {
      statement = db.prepare(sql) as unknown as PositionalStatement;
      statements.set(sql, statement);
    }
    return statement;
  };
  let idle: Promise<void> = Promise.resolve();
  let held = false;

  const direct: Omit<SqlExecutor, "transaction"> = {
    dialect: sqliteDialect,
    all: async <T>(sql: string, params: readonly SqlValue[] = []) => prepare(sql).all(...params) as T[],
    get: async <T>(sql: string, params: readonly SqlValue[] = []) =>
      prepare(sql).get(...params) as T | undefined,
    run: async (sql, params = []) => ({ changes: prepare(sql).run(...params).changes }),
  };
  const nested: SqlExecutor = {
    ...direct,
    transaction: (work) => work(nested), // already inside one: the outer one commits
  };
  // Each wait is written out where it is used: returning from a helper would take one more
  // microtask, in which a second waiter could also find the connection free.
  return {
    dialect: sqliteDialect,
    async all(sql, params) {
      while (held) await idle;
      return direct.all(sql, params);
    },
    async get(sql, params) {
      while (held) await idle;
      return direct.get(sql, params);
    },
    async run(sql, params) {
      while (held) await idle;
      return direct.run(sql, params);
    },
    async transaction(work) {
      while (held) await idle;
      held = true;
      let release = () => {};
      idle = new Promise((resolve) => {
        release = resolve;
      });
      try {
        // IMMEDIATE takes the write lock now, so a second connection waits (busy timeout)
        // rather than failing at its first write.
        db.exec("BEGIN IMMEDIATE");
        try {
          const result = await work(nested);
          db.exec("COMMIT");
          return result;
        } catch (error) {
          try {
            db.exec("ROLLBACK");
          } catch {
            // SQLite already rolled back (some errors end the transaction themselves).
          }
          throw error;
        }
      } finally {
        held = false;
        release();
      }
    },
  };
}
