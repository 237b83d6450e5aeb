import { homedir } from "node:os";
import { createConsoleLogger, InvalidInputError, type Logger } from "@cuzkit/core";
import type {
  DeadlinePhase,
  FleetConfig,
  FleetManager,
  FleetStore,
  InstanceRecord,
  LeaderLease,
  RankedCandidate,
} from "@cuzkit/fleet";
import { createVastClient, type VastClientOptions } from "@cuzkit/vast";
import { Command, InvalidArgumentError } from "commander";
import { colourEnabled } from "../colour.js";
import type { CliIO } from "../io.js";
import { durationOption, parseDurationMs, positiveNumberOption, wholeNumberOption } from "../parse.js";
import { createTable } from "../table.js";

/** What `createFleetCommand` can be given besides the IO, for tests. */
export interface FleetCommandDeps {
  /** Extra Vast client options (fetch, sleep, retry). */
  clientOptions?: Partial<VastClientOptions>;
  /** Resolves when `fleet serve` should stop. Default: SIGINT or SIGTERM. */
  untilStopped?: () => Promise<void>;
}

interface StoreFlags {
  db?: string;
  dbSchema?: string;
  fleet: string;
  url?: string;
}

interface ConfigFlags extends StoreFlags {
  curioDb?: string;
  curioSchema?: string;
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
  parseDurationMs(duration, { what: `--deadline ${phase}`, example: `${phase}=30m` });
  return [...previous, text];
}

function parseEnv(text: string, previous: string[]): string[] {
  if (!/^[A-Za-z_][A-Za-z0-9_]*=/.test(text)) throw new InvalidArgumentError(`"${text}" is not NAME=VALUE`);
  return [...previous, text];
}

function addStoreOptions(command: Command): Command {
  return command
    .option(
      "--db <path-or-url>",
      "the fleet's store: a SQLite file (default $XDG_STATE_HOME/cuzkit/fleet.db, else ~/.local/state/cuzkit/fleet.db), or postgres://USER:PASSWORD@HOST:PORT/DB",
    )
    .option("--db-schema <name>", "the PostgreSQL schema of the fleet's tables (default cuzkit_fleet)")
    .option(
      "--fleet <name>",
      "the fleet's name, part of every label cuzkit-fleet-<fleet>-<instance>",
      "default",
    )
    .option("--url <url>", "Vast.ai API base URL (default: VAST_URL, else https://console.vast.ai)");
}

/** The options of a command that serves the dashboard and may run as one of several replicas on a PostgreSQL store. */
function addReplicaOptions(command: Command): Command {
  return command
    .option(
      "--admin-token <token>",
      "token for the dashboard's actions (and its reads beyond loopback); default: generated once, kept in the store's folder as admin-token (mode 0600); replicas on one PostgreSQL store share one by this flag",
    )
    .option(
      "--lease-check-every <duration>",
      "with a postgres:// store: how often a follower tries to take the leader lease, and the leader checks it (default 5s)",
      durationOption("--lease-check-every"),
    );
}

function addConfigOptions(command: Command): Command {
  return command
    .option(
      "--curio-db <url>",
      "the Curio cluster's HarmonyDB, postgres://USER:PASSWORD@HOST:PORT/DB: production rates are read from it, and a Curio machine is cordoned and drained before it is destroyed",
    )
    .option("--curio-schema <name>", "the schema of Curio's tables in --curio-db (default curio)")
    .option(
      "--min-proofs-per-hour <n>",
      "keep a machine only at or above this measured rate (required)",
      positiveNumberOption("--min-proofs-per-hour"),
    )
    .option("--manager-url <url>", "the URL agents reach this manager at (CUZKIT_FLEET_URL)")
    .option("--image <image>", "the prover image; its entrypoint runs `cuzkit agent`")
    .option("--disk <gb>", "disk per instance in GB (default 150)", positiveNumberOption("--disk"))
    .option(
      "--max-dph <usd>",
      "cap on $/hour of all billing instances together",
      positiveNumberOption("--max-dph"),
    )
    .option(
      "--max-instances <n>",
      "cap on billing instances at once",
      wholeNumberOption("--max-instances", 1),
    )
    .option(
      "--bench-proofs <n>",
      "timed proofs of each machine's benchmark (default 12)",
      wholeNumberOption("--bench-proofs", 1),
    )
    .option("--adopt", "keep labelled instances the store does not know instead of destroying them")
    .option(
      "--deadline <phase=duration>",
      "fix one phase's deadline, e.g. params=40m (repeatable)",
      parseDeadline,
      [],
    )
    .option(
      "--deadline-margin <factor>",
      "factor on modelled durations (default 1.5)",
      positiveNumberOption("--deadline-margin"),
    )
    .option("--env <NAME=VALUE>", "extra environment for instances (repeatable)", parseEnv, []);
}

function configFrom(flags: ConfigFlags, saved: Record<string, unknown> | undefined): FleetConfig {
  const base = (saved ?? {}) as Partial<FleetConfig>;
  const overridesMs: Partial<Record<DeadlinePhase, number>> = { ...base.deadlines?.overridesMs };
  for (const entry of flags.deadline) {
    const [phase, duration] = entry.split("=") as [DeadlinePhase, string];
    overridesMs[phase] = parseDurationMs(duration, { what: `--deadline ${phase}` });
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
    throw new InvalidInputError("the fleet needs a minimum proofs/hour to decide which machines to keep", {
      hint: "pass --min-proofs-per-hour N (to cuzkit fleet serve; deploy and destroy reuse what serve saved)",
    });
  }
  return config;
}

const minutes = (ms: number) => `${Math.max(0, Math.round(ms / 60_000))}m`;

/** One status row, for people and for --json. */
function statusRow(
  record: InstanceRecord,
  now: number,
  curio: { taskType: string; proofsPerHour: number; failures: number; at: number }[] = [],
) {
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
    /** Curio's latest production of this machine per proof type (when it is a Curio node). */
    curioProduction: curio,
  };
}

/** One `fleet offers` row, for people and for --json. */
function offerRow(r: RankedCandidate, gpuName: string, numGpus: number) {
  return {
    offerId: r.candidate.offerId,
    machineId: r.candidate.machineId ?? null,
    gpus: `${numGpus}x ${gpuName}`,
    fits: true,
    predictedProofsPerHour: r.predictedProofsPerHour,
    correctedProofsPerHour: r.correctedProofsPerHour ?? null,
    measuredProofsPerHour: r.measured?.proofsPerHour ?? null,
    measuredRuns: r.measured?.runs ?? 0,
    source: r.source,
    dphPerHour: r.candidate.dphTotal,
    costPer1000: r.costPer1000,
    optimisticCostPer1000: r.optimisticCostPer1000,
    reliability: r.reliability,
    worthTrying: r.worthTrying,
  };
}

/** `cuzkit fleet serve|deploy|offers|run|status|destroy`: the fleet manager. */
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
    const { connectFleetStore, defaultStorePath } = await fleetLib();
    return connectFleetStore({ location: flags.db ?? defaultStorePath(io.env), schema: flags.dbSchema });
  };
  const managerFor = async (flags: ConfigFlags, store: FleetStore): Promise<FleetManager> => {
    const { createFleetManager } = await fleetLib();
    const vast = createVastClient({
      env: io.env,
      homeDir: io.env.HOME ?? homedir(),
      ...(flags.url === undefined ? {} : { baseUrl: flags.url }),
      ...deps.clientOptions,
    });
    const { openHarmonySource } = await fleetLib();
    return createFleetManager({
      store,
      vast,
      logger,
      config: configFrom(flags, await store.loadSettings(flags.fleet)),
      curio:
        flags.curioDb === undefined
          ? undefined
          : { harmony: openHarmonySource({ url: flags.curioDb, schema: flags.curioSchema }) },
    });
  };

  /** With a PostgreSQL store, the leader lease this replica must hold to act; none with SQLite. */
  const leaseFor = async (
    flags: StoreFlags & { leaseCheckEvery?: number },
    store: FleetStore,
    manager: FleetManager,
  ): Promise<LeaderLease | undefined> => {
    if (store.kind !== "postgres" || flags.db === undefined) return undefined;
    const { createLeaderLease } = await fleetLib();
    io.stdout.write("following: another replica may lead; this one serves reads until it takes the lease\n");
    return createLeaderLease({
      url: flags.db,
      schema: flags.dbSchema,
      fleet: manager.config.fleet,
      checkEveryMs: flags.leaseCheckEvery,
    });
  };
  /** Acts (`lead`) until `until`: at once without a lease, else only while the lease is held. */
  const actWhileLeading = async (
    lease: LeaderLease | undefined,
    until: Promise<void>,
    lead: () => Promise<() => Promise<void>>,
  ): Promise<void> => {
    if (lease === undefined) {
      const stop = await lead();
      await until;
      await stop();
      return;
    }
    const { runLeadership } = await fleetLib();
    await runLeadership({
      lease,
      lead,
      until,
      logger,
      onChange: (leading) => io.stdout.write(leading ? "leading\n" : "following\n"),
    });
  };

  addReplicaOptions(addConfigOptions(addStoreOptions(sub("serve"))))
    .description("run the manager: agent endpoints, reconcile every minute, deadlines and heartbeats")
    .option(
      "--listen <host:port>",
      "where agents reach the manager (0.0.0.0:PORT to expose it)",
      "127.0.0.1:7320", // defaultFleetListen of @cuzkit/fleet
    )
    .option(
      "--reconcile-every <duration>",
      "reconcile interval (default 1m)",
      durationOption("--reconcile-every"),
    )
    .option(
      "--monitor-every <duration>",
      "deadline and heartbeat check interval (default 10s)",
      durationOption("--monitor-every"),
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
          const { startFleetServer, loadOrCreateAdminToken, createDaemonStatusBoard, defaultStorePath } =
            await fleetLib();
          // With PostgreSQL the token is kept in the local state folder: replicas share one by --admin-token.
          const admin = loadOrCreateAdminToken({
            given: flags.adminToken,
            storePath: store.path ?? defaultStorePath(io.env),
          });
          const lease = await leaseFor(flags, store, manager);
          const server = await startFleetServer({
            manager,
            listen: flags.listen,
            dashboard: { adminToken: admin.token, daemonStatus: createDaemonStatusBoard() },
            isLeader: lease === undefined ? undefined : () => lease.held,
          });
          await store.saveSettings(manager.config.fleet, {
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
          await actWhileLeading(lease, (deps.untilStopped ?? untilSignal)(), async () => {
            await manager.startup();
            return manager.startLoops({
              reconcileEveryMs: flags.reconcileEvery,
              monitorEveryMs: flags.monitorEvery,
            });
          });
          await server.close();
        } finally {
          await store.close();
        }
      },
    );

  addConfigOptions(addStoreOptions(sub("deploy")))
    .description(
      "rent an offer (--offer ID) or the best N (--best N); the agent on it reports to `fleet serve`",
    )
    .option("--offer <id>", "the offer to rent", wholeNumberOption("--offer", 1))
    .option(
      "--best <n>",
      "rent the N best-ranked offers (the ranking of `fleet offers`)",
      wholeNumberOption("--best", 1),
    )
    .option("--replaces <instance>", "the instance this one replaces: refused until it is destroyed")
    .option("--json", "print the instances as JSON")
    .action(
      async (flags: ConfigFlags & { offer?: number; best?: number; replaces?: string; json?: boolean }) => {
        if ((flags.offer === undefined) === (flags.best === undefined)) {
          throw new InvalidInputError("deploy needs exactly one of --offer ID or --best N", {
            hint: "pass --offer 1234 or --best 2",
          });
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
          await store.close();
        }
      },
    );

  addConfigOptions(addStoreOptions(sub("offers")))
    .description(
      "search Vast and rank the offers by $ per 1000 proofs: modelled, class-corrected and measured proofs/hour",
    )
    .option("--limit <n>", "offers to show (default 20)", wholeNumberOption("--limit", 1))
    .option("--json", "print the ranking and the excluded offers as JSON")
    .action(async (flags: ConfigFlags & { limit?: number; json?: boolean }) => {
      const store = await openStore(flags);
      try {
        const manager = await managerFor(flags, store);
        const { ranked, excluded } = await manager.rankAll();
        const rows = ranked
          .slice(0, flags.limit ?? 20)
          .map((r) => offerRow(r.ranking, r.offer.gpuName, r.offer.numGpus));
        if (flags.json) {
          io.stdout.write(
            `${JSON.stringify({ offers: rows, excluded: excluded.map((e) => ({ offerId: e.offer.id, machineId: e.offer.machineId ?? null, reason: e.reason })) }, null, 2)}\n`,
          );
          return;
        }
        const table = createTable(
          [
            "OFFER",
            "GPUS",
            "PREDICTED",
            "CORRECTED",
            "MEASURED (N)",
            "USED",
            "$/H",
            "$/1K PROOFS",
            "OPTIMISTIC",
            "RELIAB.",
            "",
          ],
          { colour: colourEnabled(io.stdout, io.env) },
        );
        const f = (x: number | null) => (x === null ? "-" : x.toFixed(1));
        for (const r of rows) {
          table.push([
            r.offerId,
            r.gpus,
            f(r.predictedProofsPerHour),
            f(r.correctedProofsPerHour),
            r.measuredProofsPerHour === null ? "-" : `${f(r.measuredProofsPerHour)} (${r.measuredRuns})`,
            r.source,
            r.dphPerHour.toFixed(3),
            r.costPer1000.toFixed(2),
            r.optimisticCostPer1000.toFixed(2),
            r.reliability.toFixed(2),
            r.worthTrying ? "worth trying" : "",
          ]);
        }
        io.stdout.write(rows.length === 0 ? "no offers fit\n" : `${table.toString()}\n`);
        if (excluded.length > 0) io.stdout.write(`${excluded.length} offer(s) left out; --json says why\n`);
      } finally {
        await store.close();
      }
    });

  addReplicaOptions(addConfigOptions(addStoreOptions(sub("run"))))
    .description(
      "keep the fleet at a target: rent the best-ranked offers, keep what pays, replace what dies, destroy the dearest per proof when over",
    )
    .option(
      "--target-proofs-per-hour <n>",
      "the total measured proofs/hour to keep",
      positiveNumberOption("--target-proofs-per-hour"),
    )
    .option(
      "--target-instances <n>",
      "the number of kept machines to keep",
      wholeNumberOption("--target-instances", 1),
    )
    .option("--every <duration>", "time between steps (default 1m)", durationOption("--every"))
    .option("--once", "run one step and exit (a `fleet serve` must be running for the agents)")
    .option(
      "--listen <host:port>",
      "where agents reach the manager (0.0.0.0:PORT to expose it)",
      "127.0.0.1:7320", // defaultFleetListen of @cuzkit/fleet
    )
    .action(
      async (
        flags: ConfigFlags & {
          targetProofsPerHour?: number;
          targetInstances?: number;
          every?: number;
          once?: boolean;
          listen: string;
          adminToken?: string;
        },
      ) => {
        const { runFleetStep, startFleetRun, checkFleetTarget } = await fleetLib();
        const target = { proofsPerHour: flags.targetProofsPerHour, instances: flags.targetInstances };
        checkFleetTarget(target);
        const store = await openStore(flags);
        try {
          const manager = await managerFor(flags, store);
          const print = (step: Awaited<ReturnType<typeof runFleetStep>>) => {
            for (const d of step.decisions) {
              const what = d.action === "rent" ? `rent offer ${d.offerId}` : `destroy ${d.instanceId}`;
              const skipped = step.skipped.find((x) => x.decision === d);
              io.stdout.write(`${what}: ${d.reason}${skipped ? ` (not done: ${skipped.code})` : ""}\n`);
            }
          };
          if (flags.once) {
            print(await runFleetStep(manager, { target }));
            return;
          }
          // Without --once, run is the manager too: the agents it rents report to this process.
          const { startFleetServer, loadOrCreateAdminToken, createDaemonStatusBoard, defaultStorePath } =
            await fleetLib();
          const admin = loadOrCreateAdminToken({
            given: flags.adminToken,
            storePath: store.path ?? defaultStorePath(io.env),
          });
          const lease = await leaseFor(flags, store, manager);
          const server = await startFleetServer({
            manager,
            listen: flags.listen,
            dashboard: { adminToken: admin.token, daemonStatus: createDaemonStatusBoard() },
            isLeader: lease === undefined ? undefined : () => lease.held,
          });
          await store.saveSettings(manager.config.fleet, {
            ...manager.config,
            managerUrl: manager.config.managerUrl ?? server.url,
          });
          io.stdout.write(`listening ${server.url}\n`);
          await actWhileLeading(lease, (deps.untilStopped ?? untilSignal)(), async () => {
            await manager.startup();
            const stopLoops = manager.startLoops();
            const stopRun = startFleetRun(manager, {
              target,
              intervalMs: flags.every,
              onStep: print,
              onError: (error) => logger.warn("fleet run step failed", { error: String(error) }),
            });
            return async () => {
              await stopRun();
              await stopLoops();
            };
          });
          await server.close();
        } finally {
          await store.close();
        }
      },
    );

  sub("demo")
    .description(
      "the fleet's economics on a seeded simulated market with hidden truth: ranking before and after measurement, what was kept and why, the learnt calibration, $ per 1000 proofs",
    )
    .option("--seed <n>", "the hidden market's seed (default 3)", wholeNumberOption("--seed", 1))
    .option("--hours <n>", "simulated hours (default 12)", positiveNumberOption("--hours"))
    .action(async (flags: { seed?: number; hours?: number }) => {
      const { runEconomyDemo } = await fleetLib();
      runEconomyDemo({ seed: flags.seed, hours: flags.hours, write: (line) => io.stdout.write(`${line}\n`) });
    });

  addStoreOptions(sub("status"))
    .description("instances by state: phase, elapsed / deadline, measured proofs/hour, $/h")
    .option("--json", "print JSON")
    .option("--all", "include destroyed instances")
    .action(async (flags: StoreFlags & { json?: boolean; all?: boolean }) => {
      const store = await openStore(flags);
      try {
        const { instanceStates, latestCurioRates } = await fleetLib();
        const curio = latestCurioRates(await store.performance.list());
        const now = Date.now();
        const rows = (await store.list())
          .filter((r) => r.fleet === flags.fleet && (flags.all || r.state !== "destroyed"))
          .sort((a, b) => instanceStates.indexOf(a.state) - instanceStates.indexOf(b.state))
          .map((r) => statusRow(r, now, curio.get(r.id)));
        if (flags.json) {
          io.stdout.write(
            `${JSON.stringify({ fleet: flags.fleet, counts: await store.countByState(), instances: rows }, null, 2)}\n`,
          );
          return;
        }
        const table = createTable(
          ["ID", "STATE", "VAST", "GPUS", "ELAPSED/DEADLINE", "PROOFS/H", "CURIO/H", "$/H", "REASON"],
          {
            colour: colourEnabled(io.stdout, io.env),
          },
        );
        for (const r of rows) {
          table.push([
            r.id,
            r.destroyManually ? `${r.state} (DESTROY MANUALLY: vast ${r.vastId})` : r.state,
            r.vastId ?? "-",
            r.gpus,
            r.deadlineMs === null ? minutes(r.elapsedMs) : `${minutes(r.elapsedMs)}/${minutes(r.deadlineMs)}`,
            r.proofsPerHour === null ? "-" : r.proofsPerHour.toFixed(1),
            r.curioProduction.length === 0
              ? "-"
              : r.curioProduction
                  .map(
                    (c) =>
                      `${c.taskType} ${c.proofsPerHour.toFixed(1)}${c.failures > 0 ? ` (${c.failures} failed)` : ""}`,
                  )
                  .join(", "),
            r.dphPerHour.toFixed(3),
            r.reason ?? "",
          ]);
        }
        io.stdout.write(rows.length === 0 ? "no instances\n" : `${table.toString()}\n`);
      } finally {
        await store.close();
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
        await store.close();
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
