import { InvalidInputError } from "@cuzkit/core";
import type { DeadlinePhase, DeadlinePolicy, FleetConfig } from "@cuzkit/fleet";
import { fleetDefaults } from "@cuzkit/fleet/defaults";
import { type Command, InvalidArgumentError } from "commander";
import {
  durationOption,
  durationText,
  parseDurationMs,
  positiveNumberOption,
  wholeNumberOption,
} from "../../parse.js";

/** Flags of every fleet subcommand that opens the store. */
export interface StoreFlags {
  db?: string | undefined;
  dbSchema?: string | undefined;
  fleet: string;
  url?: string | undefined;
}

/** Flags of the commands that write to the store (they hold the fleet's writer lease meanwhile). */
export interface LeaseFlags {
  leasePeriod?: number | undefined;
}

/** --lease-period: how long this command's writer lease lasts unless renewed. */
export function addLeaseOptions(command: Command): Command {
  return command.option(
    "--lease-period <duration>",
    `how long this manager's writer lease lasts unless renewed: another manager takes over a frozen or killed one within this plus one check (default ${durationText(fleetDefaults.leasePeriodMs)})`,
    durationOption("--lease-period"),
  );
}

/** Flags of the subcommands that build a manager (the fleet's config). */
export interface ConfigFlags extends StoreFlags, CurioFlags {
  minProofsPerHour?: number | undefined;
  maxUsdPer1000Proofs?: number | undefined;
  interruptibleBid?: number | undefined;
  managerUrl?: string | undefined;
  allowLoopbackManagerUrl?: boolean | undefined;
  image?: string | undefined;
  disk?: number | undefined;
  maxDph?: number | undefined;
  maxInstances?: number | undefined;
  benchProofs?: number | undefined;
  adopt?: boolean | undefined;
  deadline: string[];
  deadlineMargin?: number | undefined;
  env: string[];
}

/** PHASE=DURATION with a valid duration; the phase is checked against the fleet's own list in {@link configFrom}. */
function parseDeadline(text: string, previous: string[]): string[] {
  const [phase, duration] = text.split("=");
  if (phase === undefined || phase === "" || duration === undefined) {
    throw new InvalidArgumentError(`"${text}" is not PHASE=DURATION, such as params=40m`);
  }
  parseDurationMs(duration, { what: `--deadline ${phase}`, example: `${phase}=30m` });
  return [...previous, text];
}

function parseEnv(text: string, previous: string[]): string[] {
  if (!/^[A-Za-z_][A-Za-z0-9_]*=/.test(text)) throw new InvalidArgumentError(`"${text}" is not NAME=VALUE`);
  return [...previous, text];
}

/** --db, --fleet, --url. */
export function addStoreOptions(command: Command): Command {
  return command
    .option(
      "--db <path-or-url>",
      "the fleet's store: a SQLite file (default $CUZKIT_FLEET_DB, else $XDG_STATE_HOME/cuzkit/fleet.db, else ~/.local/state/cuzkit/fleet.db), or postgres://USER@HOST:PORT/DB (the password from PGPASSWORD or ~/.pgpass, or the URL in CUZKIT_FLEET_DB: an argument shows in ps)",
    )
    .option(
      "--db-schema <name>",
      `the PostgreSQL schema of the fleet's tables (default ${fleetDefaults.postgresSchema})`,
    )
    .option(
      "--fleet <name>",
      "the fleet's name, part of every label cuzkit-fleet-<fleet>-<instance>",
      fleetDefaults.fleet,
    )
    .option("--url <url>", "Vast.ai API base URL (default: VAST_URL, else https://console.vast.ai)");
}

/** The options of a command that serves the dashboard and may run as one of several replicas on a PostgreSQL store. */
export function addReplicaOptions(command: Command): Command {
  return addLeaseOptions(command)
    .option(
      "--admin-token <token>",
      "token for the dashboard's actions (and its reads beyond loopback); better: env CUZKIT_FLEET_ADMIN_TOKEN or --admin-token-file (an argument shows in ps); default: generated once, kept in the store's folder as admin-token (mode 0600); replicas on one PostgreSQL store share one",
    )
    .option("--admin-token-file <file>", "read the admin token from FILE (not with --admin-token)")
    .option(
      "--alert-webhook <url>",
      "POST alerts (a machine failed, excluded, the fleet under target, the $/h cap reached, a Curio node left cordoned) as JSON with a Slack-compatible text field; better: env CUZKIT_FLEET_ALERT_WEBHOOK or --alert-webhook-file (the URL is a secret; an argument shows in ps); default: no alerts",
    )
    .option("--alert-webhook-file <file>", "read the alert webhook URL from FILE (not with --alert-webhook)")
    .option(
      "--lease-check-every <duration>",
      `how often a follower tries to take the writer lease, and the leader renews it (default ${durationText(fleetDefaults.leaseCheckEveryMs)}, at most a third of --lease-period)`,
      durationOption("--lease-check-every"),
    );
}

/** Flags of the Curio cluster's HarmonyDB. */
export interface CurioFlags {
  curioDb?: string | undefined;
  curioSchema?: string | undefined;
  /** --curio-poll: how long a drain waits after the cordon for Curio's poller to read it, ms. */
  curioPoll?: number | undefined;
}

/** --curio-db, --curio-schema: the Curio cluster (checked before the command acts). */
export function addCurioOptions(command: Command): Command {
  return command
    .option(
      "--curio-db <url>",
      "the Curio cluster's HarmonyDB, postgres://USER@HOST:PORT/DB (default $CUZKIT_CURIO_DB; a password from PGPASSWORD or ~/.pgpass, not in the argument): production rates are read from it, and a Curio machine is cordoned and drained before it is destroyed; checked before the command acts",
    )
    .option(
      "--curio-schema <name>",
      `the schema of Curio's tables in --curio-db (default ${fleetDefaults.curioSchema})`,
    )
    .option(
      "--curio-poll <duration>",
      "how often Curio's nodes read their cordon flag: a drain waits at least this long after the cordon before it calls a node drained (default 30s, Curio's pollRarely)",
      durationOption("--curio-poll", "30s"),
    );
}

/** The fleet's config flags: the keep rule, what to rent, budget caps, deadlines, the Curio cluster. */
export function addConfigOptions(command: Command): Command {
  return addCurioOptions(command)
    .option(
      "--min-proofs-per-hour <n>",
      "keep a machine only at or above this measured rate (this, --max-usd-per-1000-proofs or both are required)",
      positiveNumberOption("--min-proofs-per-hour"),
    )
    .option(
      "--max-usd-per-1000-proofs <usd>",
      "keep a machine only while its $/h over its measured rate is at most this per 1000 proofs (it pays for itself); with --min-proofs-per-hour both must hold",
      positiveNumberOption("--max-usd-per-1000-proofs"),
    )
    .option(
      "--interruptible-bid <factor>",
      "rent interruptibly (spot) at FACTOR x an offer's minimum bid where that is below its on-demand price (FACTOR >= 1, e.g. 1.2); an outbid machine is destroyed and replaced (default: on-demand only)",
      positiveNumberOption("--interruptible-bid"),
    )
    .option(
      "--manager-url <url>",
      "the URL agents on rented machines reach this manager at (CUZKIT_FLEET_URL); renting needs it, or a stored one that answers as this manager; never loopback",
    )
    .option(
      "--allow-loopback-manager-url",
      "tests and local simulations only: allow a loopback --manager-url (no rented machine can reach it)",
    )
    .option("--image <image>", "the prover image; its entrypoint runs `cuzkit agent`")
    .option(
      "--disk <gb>",
      `disk per instance in GB (default ${fleetDefaults.diskGb})`,
      positiveNumberOption("--disk"),
    )
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
      `timed proofs of each machine's benchmark (default ${fleetDefaults.benchmarkProofs})`,
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
      `factor on modelled durations (default ${fleetDefaults.deadlineMargin})`,
      positiveNumberOption("--deadline-margin"),
    )
    .option("--env <NAME=VALUE>", "extra environment for instances (repeatable)", parseEnv, []);
}

/**
 * The fleet's config from the flags over what `fleet serve` saved. `phases` are the deadline
 * phases the fleet knows (its `timedStates`), passed in so this module loads none of the fleet.
 */
export function configFrom(
  flags: ConfigFlags,
  saved: Record<string, unknown> | undefined,
  phases: readonly string[],
): FleetConfig {
  const base = (saved ?? {}) as Partial<FleetConfig>;
  const overridesMs: NonNullable<DeadlinePolicy["overridesMs"]> = { ...base.deadlines?.overridesMs };
  for (const entry of flags.deadline) {
    const [phase, duration] = entry.split("=") as [DeadlinePhase, string];
    if (!phases.includes(phase)) {
      throw new InvalidInputError(`--deadline ${entry}: "${phase}" is not a phase with a deadline`, {
        hint: `use one of ${phases.join(", ")}, such as --deadline params=40m`,
      });
    }
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
    // A saved 0 is a resolved config's "no floor" (only a price ceiling was given).
    minProofsPerHour: pick(flags.minProofsPerHour, base.minProofsPerHour || undefined),
    maxUsdPer1000Proofs: pick(flags.maxUsdPer1000Proofs, base.maxUsdPer1000Proofs),
    interruptibleBidFactor: pick(flags.interruptibleBid, base.interruptibleBidFactor),
    managerUrl: pick(flags.managerUrl, base.managerUrl),
    // Not saved: the override holds for the command that passes it.
    allowLoopbackManagerUrl: flags.allowLoopbackManagerUrl,
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
      margin: pick(flags.deadlineMargin, base.deadlines?.margin),
    },
  };
  if (config.minProofsPerHour === undefined && config.maxUsdPer1000Proofs === undefined) {
    throw new InvalidInputError("the fleet needs a keep rule to decide which machines to keep", {
      hint: "pass --min-proofs-per-hour N or --max-usd-per-1000-proofs USD, or both (to cuzkit fleet serve; deploy and destroy reuse what serve saved)",
    });
  }
  return config;
}
