import { createRequire } from "node:module";
import type BetterSqlite3 from "better-sqlite3";
import { FleetStoreError } from "../errors.js";

// The fleet store needs a synchronous SQLite. Node 22.13+ (and 23.4+) ships one, `node:sqlite`,
// with no flag; Node 20 does not, so there the store falls back to better-sqlite3, a native
// addon compiled for one Node ABI. better-sqlite3 is an optional dependency: on Node 22 and
// later a failed build (no compiler) leaves a working install. Both drivers sit behind the
// subset below, which is all the store uses.

/** What a statement's run() reports. */
export interface SqliteRunResult {
  /** Rows the statement inserted, updated or deleted. */
  changes: number;
  /** The rowid of the last inserted row. */
  lastInsertRowid: number | bigint;
}

/**
 * A prepared statement (the subset of better-sqlite3's the store uses). Parameters: one value
 * (null, number, bigint, string, Uint8Array) per `?`, or one object of them for `@name`s.
 */
export interface SqliteStatement {
  /** Runs the statement for its effect. */
  run(...params: unknown[]): SqliteRunResult;
  /** The first row, or undefined. */
  get(...params: unknown[]): unknown;
  /** Every row. */
  all(...params: unknown[]): unknown[];
  /** Makes get() and all() return the first column's value instead of row objects; returns the statement. */
  pluck(): SqliteStatement;
}

/** A database handle with better-sqlite3's shape, whichever driver is under it. */
export interface SqliteDatabase {
  /** The driver under this handle. */
  readonly driver: SqliteDriverName;
  /** Prepares one statement. */
  prepare(sql: string): SqliteStatement;
  /** Runs one or more statements that take no parameters. */
  exec(sql: string): void;
  /**
   * Wraps `fn` in a transaction: BEGIN, COMMIT on return, ROLLBACK on throw; nested calls use
   * savepoints. `fn` must be synchronous (a returned promise is refused, as better-sqlite3 does).
   */
  transaction<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R;
  /** Runs `PRAGMA source`; its rows, or with `simple` the first column of the first row. */
  pragma(source: string, options?: { simple?: boolean | undefined }): unknown;
  /** Closes the database. */
  close(): void;
}

/** The SQLite drivers the store can run on. */
export type SqliteDriverName = "node:sqlite" | "better-sqlite3";

/** `node:sqlite` where it needs no flag (Node 22.13+, 23.4+, 24+), else better-sqlite3. */
export function defaultSqliteDriver(nodeVersion: string = process.versions.node): SqliteDriverName {
  const [major = 0, minor = 0] = nodeVersion.split(".").map(Number);
  const builtIn = major >= 24 || (major === 23 && minor >= 4) || (major === 22 && minor >= 13);
  return builtIn ? "node:sqlite" : "better-sqlite3";
}

/** Opens (creating) the SQLite file at `path` (or `:memory:`) with `driver`. Default: defaultSqliteDriver(). */
export function openSqlite(path: string, driver: SqliteDriverName = defaultSqliteDriver()): SqliteDatabase {
  return driver === "node:sqlite" ? openNodeSqlite(path) : openBetterSqlite3(path);
}

function openBetterSqlite3(path: string): SqliteDatabase {
  let Database: typeof BetterSqlite3;
  try {
    Database = createRequire(import.meta.url)("better-sqlite3") as typeof BetterSqlite3;
  } catch (error) {
    throw new FleetStoreError(
      `the fleet store needs better-sqlite3 on Node ${process.versions.node}, and it cannot be loaded: ${(error as Error).message}`,
      {
        hint: "run cuzkit on Node 22.13 or later (which has SQLite built in), or reinstall with a C++ compiler so better-sqlite3 can build",
        cause: error,
      },
    );
  }
  const db = new Database(path);
  return {
    driver: "better-sqlite3",
    prepare: (sql) => db.prepare(sql) as unknown as SqliteStatement,
    exec: (sql) => {
      db.exec(sql);
    },
    transaction: (fn) => db.transaction(fn),
    pragma: (source, options) => db.pragma(source, { simple: options?.simple ?? false }),
    close: () => {
      db.close();
    },
  };
}

/** The part of `node:sqlite` used here (its types are not in @types/node 20). */
interface NodeSqliteModule {
  DatabaseSync: new (path: string) => NodeSqliteDatabase;
}
interface NodeSqliteDatabase {
  prepare(sql: string): NodeSqliteStatement;
  exec(sql: string): void;
  close(): void;
}
interface NodeSqliteStatement {
  run(...params: unknown[]): SqliteRunResult;
  get(...params: unknown[]): Record<string, unknown> | undefined;
  all(...params: unknown[]): Array<Record<string, unknown>>;
}

function loadNodeSqlite(): NodeSqliteModule {
  try {
    const loaded = withoutSqliteExperimentalWarning(
      () => process.getBuiltinModule("node:sqlite") as NodeSqliteModule | undefined,
    );
    if (loaded === undefined) throw new Error("node:sqlite is not available");
    return loaded;
  } catch (error) {
    throw new FleetStoreError(
      `the fleet store cannot load node:sqlite on Node ${process.versions.node}: ${(error as Error).message}`,
      {
        hint: "run cuzkit on Node 22.13 or later, or on Node 20 with better-sqlite3 installed",
        cause: error,
      },
    );
  }
}

/**
 * Runs `load` with node:sqlite's ExperimentalWarning dropped. Node 22 prints "SQLite is an
 * experimental feature" once, when the module loads (Node 24 no longer does). A cuzkit user
 * cannot act on it, and the store uses only prepare/run/get/all/exec, unchanged since the module
 * appeared; so that one warning is dropped while the module loads, and every other passes through.
 */
export function withoutSqliteExperimentalWarning<T>(load: () => T): T {
  const emitWarning = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const text = typeof warning === "string" ? warning : warning.message;
    const type = typeof rest[0] === "string" ? rest[0] : (rest[0] as { type?: string } | undefined)?.type;
    if (type === "ExperimentalWarning" && /SQLite/.test(text)) return;
    (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    return load();
  } finally {
    process.emitWarning = emitWarning;
  }
}

function openNodeSqlite(path: string): SqliteDatabase {
  const db = new (loadNodeSqlite().DatabaseSync)(path);
  let depth = 0;
  const firstValue = (row: Record<string, unknown> | undefined) =>
    row === undefined ? undefined : Object.values(row)[0];
  const handle: SqliteDatabase = {
    driver: "node:sqlite",
    prepare(sql) {
      const statement = db.prepare(sql);
      let plucked = false;
      const wrapped: SqliteStatement = {
        run: (...params) => statement.run(...params),
        get: (...params) => {
          const row = statement.get(...params);
          return plucked ? firstValue(row) : row;
        },
        all: (...params) => {
          const rows = statement.all(...params);
          return plucked ? rows.map(firstValue) : rows;
        },
        pluck() {
          plucked = true;
          return wrapped;
        },
      };
      return wrapped;
    },
    exec: (sql) => db.exec(sql),
    transaction:
      (fn) =>
      (...args) => {
        // Savepoint names per depth, like better-sqlite3: an inner failure undoes only its part.
        const savepoint = `cuzkit_tx_${depth}`;
        const outer = depth === 0;
        db.exec(outer ? "BEGIN" : `SAVEPOINT ${savepoint}`);
        depth += 1;
        try {
          const result = fn(...args);
          if (typeof (result as { then?: unknown } | null)?.then === "function") {
            throw new TypeError("a transaction function must not return a promise");
          }
          db.exec(outer ? "COMMIT" : `RELEASE ${savepoint}`);
          return result;
        } catch (error) {
          try {
            db.exec(outer ? "ROLLBACK" : `ROLLBACK TO ${savepoint}; RELEASE ${savepoint}`);
          } catch {
            // SQLite already ended the transaction itself (it does on some errors): the
            // caller needs the first error, not "no transaction is active".
          }
          throw error;
        } finally {
          depth -= 1;
        }
      },
    pragma(source, options) {
      const rows = db.prepare(`PRAGMA ${source}`).all();
      return options?.simple ? firstValue(rows[0]) : rows;
    },
    close: () => db.close(),
  };
  return handle;
}
