// What a fleet command may create on disk (the SQLite store, its WAL files, the admin token and
// their folders), recorded before it opens the store, so a command that fails before it starts
// serving can take away exactly what it made and nothing that was there before.
import { existsSync } from "node:fs";
import { rm, rmdir } from "node:fs/promises";
import { dirname, join } from "node:path";

/** The paths a command would create, and how to remove those it did. */
export interface StoreFootprint {
  /** Removes the files and (empty) folders that did not exist when the footprint was taken. */
  removeCreated(): Promise<void>;
}

/**
 * Takes the footprint of a store: `sqlitePath` (undefined for PostgreSQL, whose tables stay) and
 * the folder where the admin token is kept (`tokenFolder/admin-token`).
 */
export function takeStoreFootprint(
  sqlitePath: string | undefined,
  tokenFolder: string,
  tokenFileName: string,
): StoreFootprint {
  const files = [
    ...(sqlitePath === undefined || sqlitePath === ":memory:"
      ? []
      : ["", "-wal", "-shm", "-journal"].map((suffix) => `${sqlitePath}${suffix}`)),
    join(tokenFolder, tokenFileName),
  ].filter((path) => !existsSync(path));
  const folders = new Set<string>();
  for (const file of files) {
    // Each missing folder up to the first that exists, deepest first.
    for (
      let folder = dirname(file);
      !existsSync(folder) && folder !== dirname(folder);
      folder = dirname(folder)
    ) {
      folders.add(folder);
    }
  }
  return {
    async removeCreated() {
      for (const file of files) await rm(file, { force: true });
      const deepestFirst = [...folders].sort((a, b) => b.length - a.length);
      for (const folder of deepestFirst) {
        // Only an empty folder goes: anything else put there meanwhile is not ours to remove.
        await rmdir(folder).catch(() => undefined);
      }
    },
  };
}
