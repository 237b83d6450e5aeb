import { type Clock, systemClock } from "@cuzkit/core";
import { fleetDefaults } from "../defaults.js";
import { FleetStoreError } from "../errors.js";
import { checkSchemaName, redactConnectionString } from "./connection-string.js";
import type { FleetStore } from "./fleet-store.js";
import { migrations as fleetMigrations, type Migration, migrationSql } from "./migrations.js";
import { openPostgresPool, postgresError } from "./postgres-executor.js";
import type { SqlExecutor } from "./sql-executor.js";
import { createSqlFleetStore } from "./sql-fleet-store.js";

/** Options of openPostgresFleetStore. */
export interface PostgresFleetStoreOptions {
  /** `postgres://USER:PASSWORD@HOST:PORT/DB`. Required. */
  url: string;
  /** The schema of the fleet's tables, created when missing. Default `cuzkit_fleet`. */
  schema?: string | undefined;
  /** Clock for event and row times. Default: the system clock. */
  clock?: Clock | undefined;
  /** The migrations to apply (tests). Default: the fleet's. */
  migrations?: readonly Migration[] | undefined;
}

/**
 * The first keys of the fleet's advisory locks (pg_advisory_lock(int, int)); the second is a
 * hash of the schema (and fleet), so fleets in other schemas never contend.
 */
export const advisoryLockClasses = { migrate: 0x637a6b, leader: 0x637a6c } as const;

/** Applies the pending migrations, one at a time across every replica (an advisory lock). */
async function migratePostgres(
  db: SqlExecutor,
  schema: string,
  migrations: readonly Migration[],
): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.run(`SELECT pg_advisory_xact_lock(${advisoryLockClasses.migrate}, hashtext(?))`, [schema]);
    await tx.run(`CREATE SCHEMA IF NOT EXISTS ${schema}`);
    await tx.run(
      `CREATE TABLE IF NOT EXISTS schema_migrations (version ${db.dialect.integer} PRIMARY KEY, description TEXT NOT NULL, applied_at ${db.dialect.integer} NOT NULL)`,
    );
    const current =
      (await tx.get<{ v: number | null }>("SELECT MAX(version) AS v FROM schema_migrations"))?.v ?? 0;
    const known = migrations.reduce((max, m) => Math.max(max, m.version), 0);
    if (current > known) {
      throw new FleetStoreError(
        `the fleet schema ${schema} is at version ${current}, newer than this cuzkit knows (${known})`,
        { hint: "upgrade cuzkit, or pass another --db-schema; migrations only go forward" },
      );
    }
    // DDL is transactional in PostgreSQL: the whole set commits, or none of it.
    for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
      if (migration.version <= current) continue;
      await tx.run(migrationSql(migration, tx.dialect));
      await tx.run("INSERT INTO schema_migrations (version, description, applied_at) VALUES (?, ?, ?)", [
        migration.version,
        migration.description,
        Date.now(),
      ]);
    }
  });
}

/** Opens the fleet's store in a PostgreSQL schema (creating and migrating it). */
export async function openPostgresFleetStore(options: PostgresFleetStoreOptions): Promise<FleetStore> {
  const schema = checkSchemaName(options.schema ?? fleetDefaults.postgresSchema, "--db-schema");
  const pool = openPostgresPool({ url: options.url, schema });
  try {
    await migratePostgres(pool.executor, schema, options.migrations ?? fleetMigrations);
  } catch (error) {
    await pool.end().catch(() => {});
    if (error instanceof FleetStoreError) throw error;
    throw postgresError("cannot prepare the fleet store", options.url, error);
  }
  return createSqlFleetStore(pool.executor, {
    clock: options.clock ?? systemClock,
    kind: "postgres",
    location: `${redactConnectionString(options.url)} (schema ${schema})`,
    path: undefined,
    close: () => pool.end(),
  });
}
