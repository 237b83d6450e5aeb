import type { DaemonDialect } from "@cuzkit/core";
import type { DeadlinePolicy } from "../deadlines.js";
import { fleetDefaults } from "../defaults.js";
import {
  checkFleetName,
  checkKeepRule,
  checkManagerUrl,
  checkMeasurement,
  checkRentalLimits,
} from "./config-checks.js";

/** What a fleet is: its name, the keep rule, what to rent and how much to spend. */
export interface FleetConfig {
  /** The fleet's name, in labels `cuzkit-fleet-<fleet>-<instance>`: 1-32 of a-z, 0-9. Default "default". */
  fleet?: string | undefined;
  /**
   * The keep floor in measured proofs/hour. This or maxUsdPer1000Proofs (or both) is required:
   * there is no safe default. Default: none (only the price ceiling).
   */
  minProofsPerHour?: number | undefined;
  /**
   * The keep ceiling in $ per 1000 proofs: a machine is kept when its price over its measured rate
   * is at or below it (its own floor: dph x 1000 / this). Default: none (only minProofsPerHour).
   */
  maxUsdPer1000Proofs?: number | undefined;
  /** The URL agents reach the manager at (CUZKIT_FLEET_URL). Required to rent; never defaults to the listen address. */
  managerUrl?: string | undefined;
  /**
   * Test/dev override: allow a loopback manager URL when renting (agents on this machine, as in
   * the simulated market). Default false: a loopback URL is refused, no rented machine reaches it.
   */
  allowLoopbackManagerUrl?: boolean | undefined;
  /** The prover image whose entrypoint runs `cuzkit agent`. Required to deploy. */
  image?: string | undefined;
  /** Arguments replacing the image CMD (runtype args keeps its ENTRYPOINT). Default none. */
  args?: readonly string[] | undefined;
  /** Extra environment for the instance. Default {}. */
  env?: Record<string, string> | undefined;
  /** Disk per instance, GB. Default 150 (47 GiB of parameters, the image, the PCE cache). */
  diskGb?: number | undefined;
  /** Timed proofs of each machine's benchmark. Default 12. */
  benchmarkProofs?: number | undefined;
  /** Timed proofs with their times a report needs at least. Default: benchmarkProofs. */
  minTimedProofs?: number | undefined;
  /** A benchmark more than this many times the model's rate is suspect (probation at the model's rate). Default 3. */
  suspectFactor?: number | undefined;
  /** A benchmark claim more than this many times its own records' rate is a lie: refused, and evidence against the machine. Default 1.25. */
  contradictionFactor?: number | undefined;
  /** The production window, ms: kept machines count at production over it; below the minimum for a full one, replaced. Default 2 h. */
  productionWindowMs?: number | undefined;
  /** Daemon dialect the agents tune for. Default "budget". */
  dialect?: DaemonDialect | undefined;
  /**
   * Rent interruptibly (spot) at this many times an offer's minimum bid, where that is below its
   * on-demand price (at least 1; e.g. 1.2). A preempted (outbid) rental is destroyed and replaced
   * elsewhere, and the ranking charges each preemption its lost setup. Default: on-demand only.
   */
  interruptibleBidFactor?: number | undefined;
  /** The most $/hour all billing instances together may cost. Default: no cap. */
  maxDph?: number | undefined;
  /** The most billing instances at once. Default: no cap. */
  maxInstances?: number | undefined;
  /** Deadline margin, floors and overrides. */
  deadlines?: DeadlinePolicy | undefined;
  /** Prover image size, bytes, for the booting deadline. Default 12 GiB. */
  imageBytes?: number | undefined;
  /** Parameter bytes the agent fetches, for the params deadline. Default 47 GiB. */
  paramsBytes?: number | undefined;
  /** Keep labelled instances the store does not know instead of destroying them. Default false. */
  adopt?: boolean | undefined;
  /** How long an unknown labelled instance may live before it is destroyed, ms. Default 10 min. */
  unknownGraceMs?: number | undefined;
  /** How long destroys are retried before "destroy manually", ms. Default 15 min. */
  destroyRetryWindowMs?: number | undefined;
  /** Agent heartbeat interval, ms. Default 30 s. */
  heartbeatIntervalMs?: number | undefined;
  /** How long a machine's exclusion lasts after the evidence that earned it, ms. Default 7 days. */
  exclusionPeriodMs?: number | undefined;
}

/** FleetConfig with defaults filled in. */
export type ResolvedFleetConfig = {
  [K in Exclude<keyof FleetConfig, OptionalKeys>]-?: Exclude<FleetConfig[K], undefined>;
} & {
  minProofsPerHour: number;
  maxUsdPer1000Proofs: number | undefined;
  interruptibleBidFactor: number | undefined;
  managerUrl: string | undefined;
  image: string | undefined;
  args: readonly string[] | undefined;
  maxDph: number | undefined;
  maxInstances: number | undefined;
};

type OptionalKeys =
  | "minProofsPerHour"
  | "maxUsdPer1000Proofs"
  | "interruptibleBidFactor"
  | "managerUrl"
  | "image"
  | "args"
  | "maxDph"
  | "maxInstances";

/** Checks the config and fills defaults. Throws InvalidInputError naming the flag to fix. */
export function resolveFleetConfig(config: FleetConfig): ResolvedFleetConfig {
  checkKeepRule(config);
  const fleet = config.fleet ?? fleetDefaults.fleet;
  checkFleetName(fleet);
  checkRentalLimits(config);
  checkMeasurement(config);
  checkManagerUrl(config.managerUrl);
  return {
    fleet,
    minProofsPerHour: config.minProofsPerHour ?? 0,
    maxUsdPer1000Proofs: config.maxUsdPer1000Proofs,
    interruptibleBidFactor: config.interruptibleBidFactor,
    managerUrl: config.managerUrl,
    allowLoopbackManagerUrl: config.allowLoopbackManagerUrl ?? false,
    image: config.image,
    args: config.args,
    env: config.env ?? {},
    diskGb: config.diskGb ?? fleetDefaults.diskGb,
    benchmarkProofs: config.benchmarkProofs ?? fleetDefaults.benchmarkProofs,
    minTimedProofs: config.minTimedProofs ?? config.benchmarkProofs ?? fleetDefaults.benchmarkProofs,
    suspectFactor: config.suspectFactor ?? fleetDefaults.suspectFactor,
    contradictionFactor: config.contradictionFactor ?? fleetDefaults.contradictionFactor,
    productionWindowMs: config.productionWindowMs ?? fleetDefaults.productionWindowMs,
    dialect: config.dialect ?? "budget",
    maxDph: config.maxDph,
    maxInstances: config.maxInstances,
    deadlines: config.deadlines ?? {},
    imageBytes: config.imageBytes ?? fleetDefaults.imageBytes,
    paramsBytes: config.paramsBytes ?? fleetDefaults.paramsBytes,
    adopt: config.adopt ?? false,
    unknownGraceMs: config.unknownGraceMs ?? fleetDefaults.unknownGraceMs,
    destroyRetryWindowMs: config.destroyRetryWindowMs ?? fleetDefaults.destroyRetryWindowMs,
    heartbeatIntervalMs: config.heartbeatIntervalMs ?? fleetDefaults.heartbeatIntervalMs,
    exclusionPeriodMs: config.exclusionPeriodMs ?? fleetDefaults.exclusionPeriodMs,
  };
}

/** The label prefix of a fleet's instances. */
export function fleetLabelPrefix(fleet: string): string {
  return `cuzkit-fleet-${fleet}-`;
}

/** The Vast label of one instance. */
export function instanceLabel(fleet: string, instanceId: string): string {
  return `${fleetLabelPrefix(fleet)}${instanceId}`;
}

const instanceIdPattern = /^i-[0-9a-f]{8}$/;

/** The instance id a label of this fleet carries, or undefined for anyone else's label (another fleet's too). */
export function instanceIdOfLabel(fleet: string, label: string | undefined): string | undefined {
  const prefix = fleetLabelPrefix(fleet);
  if (label === undefined || !label.startsWith(prefix)) return undefined;
  const id = label.slice(prefix.length);
  return instanceIdPattern.test(id) ? id : undefined;
}

/** True when `id` looks like an instance id (`i-` and 8 hex digits). */
export function isInstanceId(id: string): boolean {
  return instanceIdPattern.test(id);
}
