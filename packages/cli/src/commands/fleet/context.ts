import { homedir } from "node:os";
import { createConsoleLogger, type Logger } from "@cuzkit/core";
import type { FleetManager, FleetStore, WriterLease } from "@cuzkit/fleet";
import { createVastClient, type VastClientOptions } from "@cuzkit/vast";
import { interruptOnSignals } from "../../interrupt.js";
import type { CliIO } from "../../io.js";
import { type ConfigFlags, configFrom, type LeaseFlags, type StoreFlags } from "./flags.js";

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

/** What the fleet subcommands share. */
export interface FleetContext {
  io: CliIO;
  deps: FleetCommandDeps;
  logger: Logger;
  /** Writes a line to stdout. */
  print(line: string): void;
  /** Opens the store, runs `use`, and closes the store whatever happens. */
  withStore<T>(flags: StoreFlags, use: (store: FleetStore) => Promise<T>): Promise<T>;
  /**
   * Takes the fleet's writer lease (refusing with FLEET_LEASE_HELD, naming the holder, when another
   * manager has it), runs `use` on the store fenced by it, and gives the lease up.
   */
  withLease<T>(
    flags: StoreFlags & LeaseFlags,
    store: FleetStore,
    use: (fenced: FleetStore, lease: WriterLease) => Promise<T>,
  ): Promise<T>;
  /** A manager on the store, with the flags over the saved settings. */
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
    async withStore(flags, use) {
      const { connectFleetStore, defaultStorePath } = await fleetLib();
      const store = await connectFleetStore({
        location: flags.db ?? defaultStorePath(io.env),
        schema: flags.dbSchema,
      });
      try {
        return await use(store);
      } finally {
        await store.close();
      }
    },
    async withLease(flags, store, use) {
      const lease = store.writerLease({ fleet: flags.fleet, periodMs: flags.leasePeriod });
      try {
        await lease.acquireNow();
        return await use(store.fencedBy(lease), lease);
      } finally {
        await lease.release();
      }
    },
    async managerFor(flags, store) {
      const { createFleetManager, timedStates, openHarmonySource } = await fleetLib();
      const vast = createVastClient({
        env: io.env,
        homeDir: io.env.HOME ?? homedir(),
        baseUrl: flags.url,
        ...deps.clientOptions,
      });
      return createFleetManager({
        store,
        vast,
        logger,
        config: configFrom(flags, await store.loadSettings(flags.fleet), timedStates),
        curio:
          flags.curioDb === undefined
            ? undefined
            : { harmony: openHarmonySource({ url: flags.curioDb, schema: flags.curioSchema }) },
      });
    },
    untilStopped: deps.untilStopped ?? untilSignal,
    async checkRentingManagerUrl(flags, store) {
      const { resolveRentingManagerUrl } = await fleetLib();
      const saved = (await store.loadSettings(flags.fleet)) ?? {};
      const text = (value: unknown) => (typeof value === "string" ? value : undefined);
      return resolveRentingManagerUrl({
        given: flags.managerUrl,
        stored: text(saved.managerUrl),
        expectedNonce: text(saved[managerNonceSetting]),
        allowLoopback: flags.allowLoopbackManagerUrl,
      });
    },
  };
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
