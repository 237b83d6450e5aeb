import { InvalidInputError } from "@cuzkit/core";

// The checks resolveFleetConfig runs, grouped by concern, each throwing InvalidInputError that
// names the flag to fix. They run in this order (keep rule, name, rentals, benchmark, URL), so
// a config with several faults always reports the same one first.

/** The fields of FleetConfig the checks read (FleetConfig fits it). */
export interface CheckedConfigFields {
  minProofsPerHour?: number | undefined;
  maxUsdPer1000Proofs?: number | undefined;
  maxDph?: number | undefined;
  interruptibleBidFactor?: number | undefined;
  diskGb?: number | undefined;
  exclusionPeriodMs?: number | undefined;
  maxInstances?: number | undefined;
  benchmarkProofs?: number | undefined;
  minTimedProofs?: number | undefined;
  suspectFactor?: number | undefined;
  contradictionFactor?: number | undefined;
  productionWindowMs?: number | undefined;
  managerUrl?: string | undefined;
}

const fleetNamePattern = /^[a-z0-9]{1,32}$/;

function positive(name: string, flag: string, value: number | undefined): void {
  if (value !== undefined && (!Number.isFinite(value) || value <= 0)) {
    throw new InvalidInputError(`${name} must be a positive number, got ${String(value)}`, {
      hint: `pass ${flag} with a number above 0`,
    });
  }
}

const wholeAtLeastOne = (value: number | undefined): boolean =>
  value === undefined || (Number.isInteger(value) && value >= 1);

/** A keep rule is required (a floor, a price ceiling or both), and each is positive. */
export function checkKeepRule(config: CheckedConfigFields): void {
  if (config.minProofsPerHour === undefined && config.maxUsdPer1000Proofs === undefined) {
    throw new InvalidInputError("the fleet needs a keep rule to decide which machines to keep", {
      hint: "pass --min-proofs-per-hour N (measured proofs per hour at or above which a machine is kept) or --max-usd-per-1000-proofs USD (the most a kept machine may cost per 1000 proofs), or both",
    });
  }
  positive("minProofsPerHour", "--min-proofs-per-hour", config.minProofsPerHour);
  positive("maxUsdPer1000Proofs", "--max-usd-per-1000-proofs", config.maxUsdPer1000Proofs);
}

/** The fleet's name goes into every label: 1-32 of a-z, 0-9. */
export function checkFleetName(fleet: string): void {
  if (!fleetNamePattern.test(fleet)) {
    throw new InvalidInputError(`fleet name "${fleet}" is not 1-32 lowercase letters and digits`, {
      hint: "pass --fleet with a name such as prod or f1 (it becomes part of every instance label)",
    });
  }
}

/** What and how much to rent: the $/h cap, the spot bid, the disk, exclusions, the instance cap. */
export function checkRentalLimits(config: CheckedConfigFields): void {
  positive("maxDph", "--max-dph", config.maxDph);
  const bid = config.interruptibleBidFactor;
  if (bid !== undefined && !(Number.isFinite(bid) && bid >= 1)) {
    throw new InvalidInputError(`interruptibleBidFactor must be a number >= 1, got ${String(bid)}`, {
      hint: "pass --interruptible-bid F with F >= 1 (the bid as a multiple of the offer's minimum bid, e.g. 1.2)",
    });
  }
  positive("diskGb", "--disk", config.diskGb);
  positive("exclusionPeriodMs", "exclusionPeriodMs", config.exclusionPeriodMs);
  if (!wholeAtLeastOne(config.maxInstances)) {
    throw new InvalidInputError(`maxInstances must be a whole number >= 1, got ${config.maxInstances}`, {
      hint: "pass --max-instances N",
    });
  }
}

/** How machines are measured: proofs per benchmark, the suspect and contradiction factors, the window. */
export function checkMeasurement(config: CheckedConfigFields): void {
  if (!wholeAtLeastOne(config.benchmarkProofs)) {
    throw new InvalidInputError(
      `benchmarkProofs must be a whole number >= 1, got ${config.benchmarkProofs}`,
      {
        hint: "pass --bench-proofs N",
      },
    );
  }
  if (!wholeAtLeastOne(config.minTimedProofs)) {
    throw new InvalidInputError(`minTimedProofs must be a whole number >= 1, got ${config.minTimedProofs}`, {
      hint: "set the fleet config's minTimedProofs to a whole number of proofs (default: the benchmark's size)",
    });
  }
  const suspect = config.suspectFactor;
  if (suspect !== undefined && !(Number.isFinite(suspect) && suspect > 1)) {
    throw new InvalidInputError(`suspectFactor must be a number above 1, got ${suspect}`, {
      hint: "set the fleet config's suspectFactor above 1 (how many times the model's rate a benchmark may reach before it is suspect; default 3)",
    });
  }
  const contradiction = config.contradictionFactor;
  if (contradiction !== undefined && !(Number.isFinite(contradiction) && contradiction >= 1)) {
    throw new InvalidInputError(`contradictionFactor must be a number >= 1, got ${contradiction}`, {
      hint: "set the fleet config's contradictionFactor to 1 or more (how far a claim may sit above its own records before it is a lie; default 1.25)",
    });
  }
  positive("productionWindowMs", "the fleet config's productionWindowMs", config.productionWindowMs);
}

/** The manager URL, when given, parses as a URL. */
export function checkManagerUrl(managerUrl: string | undefined): void {
  if (managerUrl === undefined) return;
  try {
    new URL(managerUrl);
  } catch (error) {
    throw new InvalidInputError(`the manager URL "${managerUrl}" is not a URL`, {
      hint: "pass --manager-url http://HOST:PORT, the address agents on rented machines can reach",
      cause: error,
    });
  }
}
