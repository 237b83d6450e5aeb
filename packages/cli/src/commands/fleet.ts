import { homedir } from "node:os";
import { createConsoleLogger, InvalidInputError, type Logger } from "@cuzkit/core";
import type { DeadlinePhase, FleetConfig, FleetManager, FleetStore, InstanceRecord } from "@cuzkit/fleet";
import { createVastClient, type VastClientOptions } from "@cuzkit/vast";
import Table from "cli-table3";
import { Command, InvalidArgumentError } from "commander";
import { intOption, parseDurationMs, positiveNumber } from "../common.js";
import type { CliIO } from "../io.js";

/** What `createFleetCommand` can be given besides the IO, for tests. */
export interface FleetCommandDeps {
  /** Extra Vast client options (fetch, sleep, retry). */
  clientOptions?: Partial<VastClientOptions>;
  /** Resolves when `fleet serve` should stop. Default: SIGINT or SIGTERM. */
  untilStopped?: () => Promise<void>;
}

interface StoreFlags {
  db?: string;
  fleet: string;
  url?: string;
}

interface ConfigFlags extends StoreFlags {
  minProofsPerHour?: number;
  managerUrl?: string;
  image?: string;
  disk?: number;
  maxDph?: number;
  maxInstances?: number;
  benchProofs?: number;
  adopt?: boolean;
  deadline: string[];
  deadlineMargin?: number;
  env: string[];
}

// The fleet (Fastify, SQLite, zod) loads only when a fleet command runs, so every other
// command starts as fast as before.
const fleetLib = () => import("@cuzkit/fleet");

const deadlinePhases: readonly DeadlinePhase[] = [
  "renting",
  "booting",
  "registered",
  "params",
  "warmup",
  "benchmarking",
];

function parseDeadline(text: string, previous: string[]): string[] {
  const [phase, duration] = text.split("=");
  if (!deadlinePhases.includes(phase as DeadlinePhase) || duration === undefined) {
    throw new InvalidArgumentError(
      `"${text}" is not PHASE=DURATION with PHASE one of ${deadlinePhases.join(", ")}`,
    );
  }
  parseDurationMs(duration);
  return [...previous, text];
}

function parseEnv(text: string, previous: string[]): string[] {
  if (!/^[A-Za-z_][A-Za-z0-9_]*=/.test(text)) throw new InvalidArgumentError(`"${text}" is not NAME=VALUE`);
  return [...previous, text];
}

function addStoreOptions(command: Command): Command {
  return command
    .option(
      "--db <path>",
      "the fleet's SQLite store (default $XDG_STATE_HOME/cuzkit/fleet.db, else ~/.local/state/cuzkit/fleet.db)",
    )
    .option(
      "--fleet <name>",
      "the fleet's name, part of every label cuzkit-fleet-<fleet>-<instance>",
      "default",
    )
    .option("--url <url>", "Vast.ai API base URL (default: VAST_URL, else https://console.vast.ai)");
}

function addConfigOptions(command: Command): Command {
  return command
    .option(
      "--min-proofs-per-hour <n>",
      "keep a machine only at or above this measured rate (required)",
      positiveNumber,
    )
    .option("--manager-url <url>", "the URL agents reach this manager at (CUZKIT_FLEET_URL)")
    .option("--image <image>", "the prover image; its entrypoint runs `cuzkit agent`")
    .option("--disk <gb>", "disk per instance in GB (default 150)", positiveNumber)
    .option("--max-dph <usd>", "cap on $/hour of all billing instances together", positiveNumber)
    .option("--max-instances <n>", "cap on billing instances at once", intOption(1))
    .option("--bench-proofs <n>", "timed proofs of each machine's benchmark (default 12)", intOption(1))
    .option("--adopt", "keep labelled instances the store does not know instead of destroying them")
    .option(
      "--deadline <phase=duration>",
      "fix one phase's deadline, e.g. params=40m (repeatable)",
      parseDeadline,
      [],
    )
    .option("--deadline-margin <factor>", "factor on modelled durations (default 1.5)", positiveNumber)
    .option("--env <NAME=VALUE>", "extra environment for instances (repeatable)", parseEnv, []);
}

function configFrom(flags: ConfigFlags, saved: Record<string, unknown> | undefined): FleetConfig {
  const base = (saved ?? {}) as Partial<FleetConfig>;
  const overridesMs: Partial<Record<DeadlinePhase, number>> = { ...base.deadlines?.overridesMs };
  for (const entry of flags.deadline) {
    const [phase, duration] = entry.split("=") as [DeadlinePhase, string];
    overridesMs[phase] = parseDurationMs(duration);
  }
  const env: Record<string, string> = { ...base.env };
  for (const entry of flags.env) {
    const at = entry.indexOf("=");
    env[entry.slice(0, at)] = entry.slice(at + 1);
  }
  const pick = <T>(flag: T | undefined, savedValue: T | undefined) => flag ?? savedValue;
  const config: FleetConfig = {
    fleet: flags.fleet,
    minProofsPerHour: pick(flags.minProofsPerHour, base.minProofsPerHour) as number,
    managerUrl: pick(flags.managerUrl, base.managerUrl),
    image: pick(flags.image, base.image),
    diskGb: pick(flags.disk, base.diskGb),
    maxDph: pick(flags.maxDph, base.maxDph),
    maxInstances: pick(flags.maxInstances, base.maxInstances),
    benchmarkProofs: pick(flags.benchProofs, base.benchmarkProofs),
    adopt: pick(flags.adopt, base.adopt),
    env,
    deadlines: {
      ...base.deadlines,
      overridesMs,
      ...(flags.deadlineMargin === undefined ? {} : { margin: flags.deadlineMargin }),
    },
  };
  if (config.minProofsPerHour === undefined) {
    throw new InvalidInputError(
      "the fleet needs a minimum proofs/hour to decide which machines to keep",
      "pass --min-proofs-per-hour N (to cuzkit fleet serve; deploy and destroy reuse what serve saved)",
    );
  }
  return config;
}

const minutes = (ms: number) => `${Math.max(0, Math.round(ms / 60_000))}m`;

/** One status row, for people and for --json. */
function statusRow(record: InstanceRecord, now: number) {
  return {
    id: record.id,
    state: record.state,
    vastId: record.vastId ?? null,
    offerId: record.offerId,
    gpus: `${record.offer.numGpus}x ${record.offer.gpuName}`,
    elapsedMs: now - record.phaseStartedAt,
    deadlineMs: record.phaseDeadlineAt === undefined ? null : record.phaseDeadlineAt - record.phaseStartedAt,
    proofsPerHour: record.proofsPerHour ?? null,
    dphPerHour: record.dphPerHour,
    reason: record.reason ?? null,
    destroyManually: record.destroyManual,
  };
}

/** `cuzkit fleet serve|deploy|status|destroy`: the fleet manager. */
export function createFleetCommand(io: CliIO, deps: FleetCommandDeps = {}): Command {
  const fleet = new Command("fleet").description(
    "rent GPU machines, let each benchmark itself, keep those whose measured proofs/hour clears the minimum",
  );
  const sub = (name: string) => {
    const command = new Command(name);
    fleet.addCommand(command);
    return command;
  };
  const logger: Logger = createConsoleLogger("info", (line) => io.stderr.write(`${line}\n`));

  const openStore = async (flags: StoreFlags): Promise<FleetStore> => {
    const { openFleetStore, defaultStorePath } = await fleetLib();
    return openFleetStore({ path: flags.db ?? defaultStorePath(io.env) });
  };
  const managerFor = async (flags: ConfigFlags, store: FleetStore): Promise<FleetManager> => {
    const { createFleetManager } = await fleetLib();
    const vast = createVastClient({
      env: io.env,
      homeDir: io.env.HOME ?? homedir(),
      ...(flags.url === undefined ? {} : { baseUrl: flags.url }),
      ...deps.clientOptions,
    });
    return createFleetManager({
      store,
      vast,
      logger,
      config: configFrom(flags, store.loadSettings(flags.fleet)),
    });
  };

  addConfigOptions(addStoreOptions(sub("serve")))
    .description("run the manager: agent endpoints, reconcile every minute, deadlines and heartbeats")
    .option(
      "--listen <host:port>",
      "where agents reach the manager (0.0.0.0:PORT to expose it)",
      "127.0.0.1:7320", // defaultFleetListen of @cuzkit/fleet
    )
    .option(
      "--admin-token <token>",
      "token for the dashboard's actions (and its reads beyond loopback); default: generated once, kept in the store's folder as admin-token (mode 0600)",
    )
    .option("--reconcile-every <duration>", "reconcile interval (default 1m)", parseDurationMs)
    .option(
      "--monitor-every <duration>",
      "deadline and heartbeat check interval (default 10s)",
      parseDurationMs,
    )
    .action(
      async (
        flags: ConfigFlags & {
          listen: string;
          reconcileEvery?: number;
          monitorEvery?: number;
          adminToken?: string;
        },
      ) => {
        const store = await openStore(flags);
        try {
          const manager = await managerFor(flags, store);
          const { startFleetServer, loadOrCreateAdminToken, createDaemonStatusBoard } = await fleetLib();
          const admin = loadOrCreateAdminToken({ given: flags.adminToken, storePath: store.path });
          const server = await startFleetServer({
            manager,
            listen: flags.listen,
            dashboard: { adminToken: admin.token, daemonStatus: createDaemonStatusBoard() },
          });
          store.saveSettings(manager.config.fleet, {
            ...manager.config,
            managerUrl: manager.config.managerUrl ?? server.url,
          });
          io.stdout.write(`listening ${server.url}\n`);
          io.stdout.write(
            `dashboard ${server.url}/ (API: ${server.url}/openapi.json, metrics: ${server.url}/metrics)\n`,
          );
          // Printed only when new: a kept token is read from its file, a given one the operator knows.
          if (admin.source === "generated") {
            io.stdout.write(
              `admin token ${admin.token}${admin.path === undefined ? "" : ` (kept in ${admin.path})`}\n`,
            );
          }
          await manager.startup();
          const stopLoops = manager.startLoops({
            reconcileEveryMs: flags.reconcileEvery,
            monitorEveryMs: flags.monitorEvery,
          });
          await (deps.untilStopped ?? untilSignal)();
          await stopLoops();
          await server.close();
        } finally {
          store.close();
        }
      },
    );

  addConfigOptions(addStoreOptions(sub("deploy")))
    .description(
      "rent an offer (--offer ID) or the best N (--best N); the agent on it reports to `fleet serve`",
    )
    .option("--offer <id>", "the offer to rent", intOption(1))
    .option("--best <n>", "rent the N offers with the most modelled proofs/hour per dollar", intOption(1))
    .option("--replaces <instance>", "the instance this one replaces: refused until it is destroyed")
    .option("--json", "print the instances as JSON")
    .action(
      async (flags: ConfigFlags & { offer?: number; best?: number; replaces?: string; json?: boolean }) => {
        if ((flags.offer === undefined) === (flags.best === undefined)) {
          throw new InvalidInputError(
            "deploy needs exactly one of --offer ID or --best N",
            "pass --offer 1234 or --best 2",
          );
        }
        const store = await openStore(flags);
        try {
          const manager = await managerFor(flags, store);
          const records =
            flags.offer !== undefined
              ? [await manager.deploy(flags.offer, { replaces: flags.replaces })]
              : await manager.deployBest(flags.best as number);
          const now = Date.now();
          if (flags.json)
            io.stdout.write(
              `${JSON.stringify(
                records.map((r) => statusRow(r, now)),
                null,
                2,
              )}\n`,
            );
          else
            for (const r of records)
              io.stdout.write(
                `${r.id} ${r.state} vast ${r.vastId ?? "-"} offer ${r.offerId} $${r.dphPerHour.toFixed(3)}/h\n`,
              );
        } finally {
          store.close();
        }
      },
    );

  addStoreOptions(sub("status"))
    .description("instances by state: phase, elapsed / deadline, measured proofs/hour, $/h")
    .option("--json", "print JSON")
    .option("--all", "include destroyed instances")
    .action(async (flags: StoreFlags & { json?: boolean; all?: boolean }) => {
      const store = await openStore(flags);
      try {
        const { instanceStates } = await fleetLib();
        const now = Date.now();
        const rows = store
          .list()
          .filter((r) => r.fleet === flags.fleet && (flags.all || r.state !== "destroyed"))
          .sort((a, b) => instanceStates.indexOf(a.state) - instanceStates.indexOf(b.state))
          .map((r) => statusRow(r, now));
        if (flags.json) {
          io.stdout.write(
            `${JSON.stringify({ fleet: flags.fleet, counts: store.countByState(), instances: rows }, null, 2)}\n`,
          );
          return;
        }
        const table = new Table({
          head: ["ID", "STATE", "VAST", "GPUS", "ELAPSED/DEADLINE", "PROOFS/H", "$/H", "REASON"],
        });
        for (const r of rows) {
          table.push([
            r.id,
            r.destroyManually ? `${r.state} (DESTROY MANUALLY: vast ${r.vastId})` : r.state,
            r.vastId ?? "-",
            r.gpus,
            r.deadlineMs === null ? minutes(r.elapsedMs) : `${minutes(r.elapsedMs)}/${minutes(r.deadlineMs)}`,
            r.proofsPerHour === null ? "-" : r.proofsPerHour.toFixed(1),
            r.dphPerHour.toFixed(3),
            r.reason ?? "",
          ]);
        }
        io.stdout.write(rows.length === 0 ? "no instances\n" : `${table.toString()}\n`);
      } finally {
        store.close();
      }
    });

  addStoreOptions(sub("destroy"))
    .description("destroy one instance (by our id, i-...) from whatever state it is in")
    .argument("<id>", "the instance id, as cuzkit fleet status shows it")
    .action(async (id: string, flags: ConfigFlags) => {
      const store = await openStore(flags);
      try {
        const manager = await managerFor({ ...flags, deadline: [], env: [] }, store);
        const record = await manager.destroy(id);
        io.stdout.write(
          `${record.id} ${record.state}${record.destroyManual ? ` (destroy manually: vast instance ${record.vastId})` : ""}\n`,
        );
      } finally {
        store.close();
      }
    });
  return fleet;
}

function untilSignal(): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      process.off("SIGINT", done);
      process.off("SIGTERM", done);
      resolve();
    };
    process.once("SIGINT", done);
    process.once("SIGTERM", done);
  });
}
