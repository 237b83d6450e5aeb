import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from "node:fs";
import { homedir } from "node:os";
import { dirname, join } from "node:path";
import { FleetStoreError } from "../errors.js";
import { migrations as fleetMigrations, type Migration, migrationSql } from "./migrations.js";
import { openSqlite, type SqliteDatabase } from "./sqlite-driver.js";

/** A SQLite handle with better-sqlite3's shape: node:sqlite on Node 22.13+, better-sqlite3 on Node 20. */
export type { SqliteDatabase } from "./sqlite-driver.js";

/** How long a writer waits for another connection's lock before SQLITE_BUSY, in ms. */
export const busyTimeoutMs = 5_000;

/** The store's default path: `$XDG_STATE_HOME/cuzkit/fleet.db`, else `~/.local/state/cuzkit/fleet.db`. */
export function defaultStorePath(env: NodeJS.ProcessEnv = process.env): string {
  const stateHome = env.XDG_STATE_HOME || join(homedir(), ".local", "state");
  return join(stateHome, "cuzkit", "fleet.db");
}

/** Options of {@link openDatabase}. */
export interface OpenDatabaseOptions {
  /** "refuse": a missing file is an error and nothing is created (read-only commands). Default "create". */
  ifMissing?: "create" | "refuse" | undefined;
}

/**
 * Opens (creating, unless `ifMissing: "refuse"`) the database in WAL mode with a busy timeout
 * and runs pending migrations. `:memory:` gives a private in-memory store for tests.
 */
export function openDatabase(
  path: string,
  migrations: readonly Migration[] = fleetMigrations,
  options: OpenDatabaseOptions = {},
): SqliteDatabase {
  let db: SqliteDatabase;
  if (options.ifMissing === "refuse" && path !== ":memory:" && !existsSync(path)) {
    throw new FleetStoreError(`there is no fleet store at ${path}`, {
      hint: "check --db; `cuzkit fleet serve` creates the store (by default in ~/.local/state/cuzkit/fleet.db)",
    });
  }
  try {
    if (path !== ":memory:") createPrivateFile(path);
    db = openSqlite(path);
  } catch (error) {
    if (error instanceof FleetStoreError) throw error;
    throw new FleetStoreError(`cannot open the fleet store at ${path}: ${(error as Error).message}`, {
      hint: "check that the folder is writable, or pass another path with --db",
      cause: error,
    });
  }
  try {
    db.pragma("journal_mode = WAL");
    db.pragma(`busy_timeout = ${busyTimeoutMs}`);
    // WAL + NORMAL survives a killed process (the case the manager must survive); a power
    // loss may drop the last commits, which the reconcile pass recovers from Vast's labels.
    db.pragma("synchronous = NORMAL");
    db.pragma("foreign_keys = ON");
    migrate(db, migrations);
    // SQLite gives the -wal and -shm files the database's mode; set them anyway, for files an
    // older cuzkit created world-readable.
    if (path !== ":memory:") for (const suffix of ["", "-wal", "-shm"]) chmodIfExists(`${path}${suffix}`);
  } catch (error) {
    db.close();
    if (error instanceof FleetStoreError) throw error;
    throw new FleetStoreError(`cannot prepare the fleet store at ${path}: ${(error as Error).message}`, {
      hint: "the file may be another program's database or damaged; pass another path with --db",
      cause: error,
    });
  }
  return db;
}

/**
 * Creates the store's folder (0700, when this creates it) and an empty database file (0600)
 * before SQLite opens it, so the file is never readable by others, not even for a moment: it
 * holds instance tokens' hashes, the fleet's settings and its events.
 */
function createPrivateFile(path: string): void {
  const folder = dirname(path);
  // mkdirSync with recursive returns the first folder it created, undefined when all existed.
  if (mkdirSync(folder, { recursive: true, mode: 0o700 }) !== undefined) chmodSync(folder, 0o700);
  if (!existsSync(path)) closeSync(openSync(path, "a", 0o600));
  chmodSync(path, 0o600);
}

function chmodIfExists(path: string): void {
  try {
    chmodSync(path, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
}

/** The highest migration version applied. */
export function schemaVersion(db: SqliteDatabase): number {
  const row = db.prepare("SELECT MAX(version) AS v FROM schema_migrations").get() as { v: number | null };
  return row.v ?? 0;
}

/** Applies the migrations newer than the database, each in one transaction with its version row. */
export function migrate(db: SqliteDatabase, migrations: readonly Migration[]): void {
  db.exec(
    "CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, description TEXT NOT NULL, applied_at INTEGER NOT NULL)",
  );
  const current = schemaVersion(db);
  const known = migrations.reduce((max, m) => Math.max(max, m.version), 0);
  if (current > known) {
    throw new FleetStoreError(
      `the fleet store is at schema version ${current}, newer than this cuzkit knows (${known})`,
      { hint: "upgrade cuzkit, or pass another path with --db; migrations only go forward" },
    );
  }
  const record = db.prepare(
    "INSERT INTO schema_migrations (version, description, applied_at) VALUES (?, ?, ?)",
  );
  for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
    if (migration.version <= current) continue;
    db.transaction(() => {
      db.exec(migrationSql(migration));
      record.run(migration.version, migration.description, Date.now());
    })();
  }
}
