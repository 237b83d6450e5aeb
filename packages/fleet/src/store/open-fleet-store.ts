import { systemClock } from "@cuzkit/core";
import { checkStoreLocation, isPostgresUrl } from "./connection-string.js";
import type {
  ConnectFleetStoreOptions,
  FleetStore,
  FleetStoreOptions,
  SqliteFleetStore,
} from "./fleet-store.js";
import { openDatabase } from "./open-database.js";
import { openPostgresFleetStore } from "./postgres-fleet-store.js";
import { sqliteExecutor } from "./sql-executor.js";
import { createSqlFleetStore } from "./sql-fleet-store.js";

// Opening a store: the SQLite or PostgreSQL implementation behind the FleetStore interface
// (fleet-store.ts holds the types only, so the implementations import it without a cycle).

/** Opens the fleet's SQLite store (creating and migrating it). */
export function openFleetStore(options: FleetStoreOptions): SqliteFleetStore {
  const db = openDatabase(options.path, undefined, { ifMissing: options.ifMissing });
  const store = createSqlFleetStore(sqliteExecutor(db), {
    clock: options.clock ?? systemClock,
    kind: "sqlite",
    location: options.path,
    path: options.path,
    close: async () => {
      db.close();
    },
  });
  return { ...store, kind: "sqlite", path: options.path, db };
}

/**
 * Opens the store a `--db` value names: PostgreSQL for a `postgres://` URL, else a SQLite file.
 * Any other scheme (`mysql://`) is refused before anything is created.
 */
export async function connectFleetStore(options: ConnectFleetStoreOptions): Promise<FleetStore> {
  checkStoreLocation(options.location);
  if (isPostgresUrl(options.location)) {
    return openPostgresFleetStore({ url: options.location, schema: options.schema, clock: options.clock });
  }
  return openFleetStore({ path: options.location, clock: options.clock, ifMissing: options.ifMissing });
}
