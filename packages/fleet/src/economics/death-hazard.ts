/** Deaths of rentals and the hours rented, for one machine, host or the fleet. */
export interface DeathExposure {
  deaths: number;
  rentedHours: number;
}

/** Options of {@link deathHazards}. */
export interface DeathHazardOptions {
  /** The hazard assumed before any evidence, deaths per rented hour (fit it from history). Default 0.01. */
  priorPerHour?: number | undefined;
  /** Weight, in rented hours, of the prior at each level. Default 12. */
  priorHours?: number | undefined;
}

/** Shrunk hazards: the fleet's, and a function giving a machine's from its own and its host's exposure. */
export interface DeathHazards {
  fleetPerHour: number;
  /** A machine's deaths per rented hour, shrunk toward its host's, the host's toward the fleet's. */
  machinePerHour: (machine: DeathExposure | undefined, host: DeathExposure | undefined) => number;
}

/**
 * Deaths as evidence, not verdicts: a gamma-Poisson estimate of deaths per rented hour in three
 * levels (fleet toward the prior, host toward the fleet, machine toward its host), each with
 * `priorHours` of weight. One death in two hours moves a machine part of the way; a host that
 * dies every rental climbs toward its true rate; a hazard that strikes good machines at random
 * is learnt as the fleet's, not pinned on the unlucky one.
 */
export function deathHazards(fleet: DeathExposure, options: DeathHazardOptions = {}): DeathHazards {
  const prior = options.priorPerHour ?? 0.01;
  const k = options.priorHours ?? 12;
  const fleetPerHour = (fleet.deaths + k * prior) / (fleet.rentedHours + k);
  const shrink = (e: DeathExposure | undefined, toward: number) =>
    e === undefined ? toward : (e.deaths + k * toward) / (e.rentedHours + k);
  return { fleetPerHour, machinePerHour: (machine, host) => shrink(machine, shrink(host, fleetPerHour)) };
}

/**
 * A hazard priced as the ranking's failure rate: the share of a rental's paid hours lost to
 * deaths, each death costing the replacement's vetting (`vettingHours`) at about the same price.
 * So a machine dying every 2 hours with 45 minutes of vetting loses 0.375 of its hours. Capped at 0.95.
 */
export function hazardAsFailureRate(perHour: number, vettingHours: number): number {
  return Math.min(0.95, Math.max(0, perHour * vettingHours));
}
