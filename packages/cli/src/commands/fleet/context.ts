import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { dirname } from "node:path";
import { createConsoleLogger, type Logger } from "@cuzkit/core";
import type { FleetManager, FleetStore, WriterLease } from "@cuzkit/fleet";
import type { VastClientOptions } from "@cuzkit/vast";
import { interruptOnSignals } from "../../interrupt.js";
import type { CliIO } from "../../io.js";
import { urlHasPassword, warnSecretArgument } from "../../secret-options.js";
import { type ConfigFlags, configFrom, type LeaseFlags, type StoreFlags } from "./flags.js";
import { takeStoreFootprint } from "./store-footprint.js";

/** What `createFleetCommand` can be given besides the IO, for tests. */
export interface FleetCommandDeps {
  /** Extra Vast client options (fetch, sleep, retry). */
  clientOptions?: Partial<VastClientOptions>;
  /** Resolves when `fleet serve` (or `run`, `demo`) should stop. Default: SIGINT or SIGTERM. */
  untilStopped?: () => Promise<void>;
  /** How `fleet demo` runs `cuzkit` for its agents and sims. Default: this process's own program and arguments. */
  cuzkitCommand?: { command: string; args: readonly string[] } | undefined;
}

// The fleet (Fastify, SQLite, zod) loads only when a fleet command runs, so every other
// command starts as fast as before.
export const fleetLib = () => import("@cuzkit/fleet");

/**
 * How a command uses the store. "read": a missing store is refused, nothing created. "read-or-empty":
 * with no store it says so on stderr and reads an empty in-memory one (`fleet offers` before the
 * first `fleet serve`). "create": made when missing, removed again on an early failure.
 */
export type StoreMode = "read" | "read-or-empty" | "create";

/** What the fleet subcommands share. */
export interface FleetContext {
  io: CliIO;
  deps: FleetCommandDeps;
  logger: Logger;
  /** Writes a line to stdout. */
  print(line: string): void;
  /**
   * Opens the store, runs `use`, and closes the store whatever happens. An unknown --db scheme is
   * refused before anything is created. "read": a missing store is refused (FLEET_STORE), never
   * created. "create" (default): made when missing; if `use` fails before it calls `keep()`, the
   * store files, admin token and folders this call created are removed again.
   */
  withStore<T>(
    flags: StoreFlags,
    use: (store: FleetStore, keep: () => void) => Promise<T>,
    mode?: StoreMode,
  ): Promise<T>;
  /**
   * Takes the fleet's writer lease (refusing with FLEET_LEASE_HELD, naming the holder, when another
   * manager has it), runs `use` on the store fenced by it, and gives the lease up.
   */
  withLease<T>(
    flags: StoreFlags & LeaseFlags,
    store: FleetStore,
    use: (fenced: FleetStore, lease: WriterLease) => Promise<T>,
  ): Promise<T>;
  /**
   * A manager on the store, with the flags over the saved settings. With --curio-db (or
   * CUZKIT_CURIO_DB), HarmonyDB is checked first: a failure throws FLEET_CURIO_DB.
   */
  managerFor(flags: ConfigFlags, store: FleetStore): Promise<FleetManager>;
  /** Resolves when the command should stop (SIGINT or SIGTERM by default). */
  untilStopped(): Promise<void>;
  /**
   * Before a command rents (deploy, run --once): --manager-url as given, else the stored URL only
   * if it answers the health check with the nonce of the `fleet serve` that stored it. Throws
   * FLEET_MANAGER_URL otherwise.
   */
  checkRentingManagerUrl(flags: ConfigFlags, store: FleetStore): Promise<string>;
}

/** The settings key where the serving manager records its health-check nonce. */
export const managerNonceSetting = "managerNonce";

/** Builds the context of the fleet subcommands. */
export function createFleetContext(io: CliIO, deps: FleetCommandDeps): FleetContext {
  const logger = createConsoleLogger("info", (line) => io.stderr.write(`${line}\n`));
  return {
    io,
    deps,
    logger,
    print: (line) => io.stdout.write(`${line}\n`),
    withStore: (flags, use, mode = "create") => withFleetStore(io, flags, use, mode),
    async withLease(flags, store, use) {
      const lease = store.writerLease({ fleet: flags.fleet, periodMs: flags.leasePeriod });
      try {
        await lease.acquireNow();
        return await use(store.fencedBy(lease), lease);
      } finally {
        await lease.release();
      }
    },
    managerFor: (flags, store) => createManagerFor(io, deps, logger, flags, store),
    untilStopped: deps.untilStopped ?? untilSignal,
    checkRentingManagerUrl,
  };
}

type FleetLib = Awaited<ReturnType<typeof fleetLib>>;

/** Where a command's store is: --db, else CUZKIT_FLEET_DB, else the default path; and which of them said so. */
interface StoreLocation {
  location: string;
  /** "--db" or "CUZKIT_FLEET_DB"; undefined for the default path. */
  source: string | undefined;
  /** The SQLite file; undefined for a PostgreSQL URL. */
  sqlitePath: string | undefined;
}

/** Resolves the store's location, warning of a password in --db; an unknown scheme is refused. */
function storeLocationOf(io: CliIO, flags: StoreFlags, lib: FleetLib): StoreLocation {
  const fromEnv = io.env.CUZKIT_FLEET_DB === "" ? undefined : io.env.CUZKIT_FLEET_DB;
  if (flags.db !== undefined && urlHasPassword(flags.db)) {
    warnSecretArgument(io, "--db with a password", dbSecretAdvice("CUZKIT_FLEET_DB"));
  }
  const location = flags.db ?? fromEnv ?? lib.defaultStorePath(io.env);
  const source = flags.db !== undefined ? "--db" : fromEnv !== undefined ? "CUZKIT_FLEET_DB" : undefined;
  lib.checkStoreLocation(location);
  const sqlitePath = lib.isPostgresUrl(location) ? undefined : location;
  return { location, source, sqlitePath };
}

/** {@link FleetContext.withStore}: opens the store as `mode` says, runs `use`, closes it. */
async function withFleetStore<T>(
  io: CliIO,
  flags: StoreFlags,
  use: (store: FleetStore, keep: () => void) => Promise<T>,
  mode: StoreMode,
): Promise<T> {
  const lib = await fleetLib();
  const where = storeLocationOf(io, flags, lib);
  const { location, sqlitePath } = where;
  const missing =
    mode !== "create" && sqlitePath !== undefined && sqlitePath !== ":memory:" && !existsSync(sqlitePath);
  if (missing && mode === "read-or-empty") {
    // Said, not silent: a typo in --db must not pass for a fleet with no evidence yet.
    io.stderr.write(`note: no fleet store at ${location}: reading none (nothing is created)\n`);
    const empty = await lib.connectFleetStore({ location: ":memory:" });
    try {
      return await use(empty, () => {});
    } finally {
      await empty.close();
    }
  }
  if (missing) throw await missingStoreError(location, where.source, lib.defaultStorePath(io.env));
  return withCreatedStore(io, lib, flags, where, use, mode);
}

/**
 * Opens (with "create", makes) the store and runs `use`; if it fails before `use` calls `keep()`,
 * the store files, admin token and folders this call created are removed again.
 */
async function withCreatedStore<T>(
  io: CliIO,
  { connectFleetStore, defaultStorePath, adminTokenFileName }: FleetLib,
  flags: StoreFlags,
  { location, sqlitePath }: StoreLocation,
  use: (store: FleetStore, keep: () => void) => Promise<T>,
  mode: StoreMode,
): Promise<T> {
  // The admin token lives beside a SQLite store, else in the default state folder (replicaSetup).
  const footprint = takeStoreFootprint(
    sqlitePath,
    dirname(sqlitePath ?? defaultStorePath(io.env)),
    adminTokenFileName,
  );
  let kept = mode !== "create";
  let store: FleetStore;
  try {
    store = await connectFleetStore({
      location,
      schema: flags.dbSchema,
      ifMissing: mode === "create" ? "create" : "refuse",
    });
  } catch (error) {
    if (!kept) await footprint.removeCreated();
    throw error;
  }
  let failed = false;
  try {
    return await use(store, () => {
      kept = true;
    });
  } catch (error) {
    failed = true;
    throw error;
  } finally {
    await store.close();
    // Failed before it started: leave no store or admin token that only this attempt made.
    if (failed && !kept) await footprint.removeCreated();
  }
}

/** {@link FleetContext.managerFor}: the Vast client, the config and HarmonyDB (checked) under one manager. */
async function createManagerFor(
  io: CliIO,
  deps: FleetCommandDeps,
  logger: Logger,
  flags: ConfigFlags,
  store: FleetStore,
): Promise<FleetManager> {
  const [{ createFleetManager, timedStates, openHarmonySource }, { createVastClient }] = await Promise.all([
    fleetLib(),
    import("@cuzkit/vast"),
  ]);
  if (flags.curioDb !== undefined && urlHasPassword(flags.curioDb)) {
    warnSecretArgument(io, "--curio-db with a password", dbSecretAdvice("CUZKIT_CURIO_DB"));
  }
  const curioDb = flags.curioDb ?? (io.env.CUZKIT_CURIO_DB || undefined);
  const vast = createVastClient({
    env: io.env,
    homeDir: io.env.HOME ?? homedir(),
    baseUrl: flags.url,
    ...deps.clientOptions,
  });
  const config = configFrom(flags, await store.loadSettings(flags.fleet), timedStates);
  const harmony =
    curioDb === undefined ? undefined : openHarmonySource({ url: curioDb, schema: flags.curioSchema });
  // A bad --curio-db (unreachable, credentials, not Curio's schema) fails here, before the
  // command rents, destroys or serves anything (FLEET_CURIO_DB).
  try {
    await harmony?.check();
  } catch (error) {
    await harmony?.close().catch(() => {});
    throw error;
  }
  return createFleetManager({
    store,
    vast,
    logger,
    config,
    curio: harmony === undefined ? undefined : { harmony, curioPollMs: flags.curioPoll },
  });
}

/** {@link FleetContext.checkRentingManagerUrl}: the given or the stored (and answering) manager URL. */
async function checkRentingManagerUrl(flags: ConfigFlags, store: FleetStore): Promise<string> {
  const { resolveRentingManagerUrl } = await fleetLib();
  const saved = (await store.loadSettings(flags.fleet)) ?? {};
  const text = (value: unknown) => (typeof value === "string" ? value : undefined);
  return resolveRentingManagerUrl({
    given: flags.managerUrl,
    stored: text(saved.managerUrl),
    expectedNonce: text(saved[managerNonceSetting]),
    allowLoopback: flags.allowLoopbackManagerUrl,
  });
}

/** The error of a read-only command run where there is no store: nothing is created. */
async function missingStoreError(
  path: string,
  source: string | undefined,
  defaultPath: string,
): Promise<Error> {
  const { FleetStoreError } = await fleetLib();
  return new FleetStoreError(
    source === undefined
      ? `there is no fleet store yet at the default path ${path}`
      : `there is no fleet store at ${path} (${source})`,
    {
      hint:
        source === undefined
          ? "`cuzkit fleet serve` creates the store there; or pass --db with the path or postgres:// URL of an existing one"
          : `check ${source} for a typo; the default store is ${defaultPath}, and \`cuzkit fleet serve --db ${path}\` creates one here`,
    },
  );
}

/** What to do instead of a PostgreSQL password in an argument. */
function dbSecretAdvice(envName: string): string {
  return `put the URL in ${envName}, or leave the password out of it and use PGPASSWORD or ~/.pgpass`;
}

async function untilSignal(): Promise<void> {
  const interrupt = interruptOnSignals(["SIGINT", "SIGTERM"]);
  try {
    await new Promise<void>((resolve) => {
      if (interrupt.signal.aborted) resolve();
      interrupt.signal.addEventListener("abort", () => resolve(), { once: true });
    });
  } finally {
    interrupt.dispose();
  }
}
