import type { RateSample } from "../economics/calibration.js";
import type { DeathExposure } from "../economics/death-hazard.js";

/** How a simulated fleet chooses on a moving market. */
export type FleetDayPolicy = "learning" | "spec-only";

/** The learning fleet's priors: fit them from history (fitPriors), not from the generator. */
export interface FleetDayPriors {
  /** Default 0.35. */
  modelSpreadLog: number;
  /** Default 0.1. */
  classSpreadLog: number;
  /** Deaths per rented hour before any evidence. Default 0.01. */
  hazardPerHour: number;
  /** The ranking's optimism, standard deviations. Default 1. */
  optimism: number;
}

/** Priors nobody fitted: the ranking's defaults. */
export const defaultFleetDayPriors: FleetDayPriors = {
  modelSpreadLog: 0.35,
  classSpreadLog: 0.1,
  hazardPerHour: 0.01,
  optimism: 1,
};

/** Which of the learning fleet's rules are on (all by default): each can be turned off to show what it buys. */
export interface FleetDayRules {
  /** Deaths priced as a shrunk hazard; off: one death excludes the machine. */
  deathsAsEvidence: boolean;
  /** Production reports replace the benchmark's rate; off: the benchmark's rate stays. */
  productionRates: boolean;
  /** Exploration charged its setup over the hours left; off: no charge. */
  chargeSetup: boolean;
  /** Calibration at GPU model and RAM-tier levels when a class is thin; off: per class only. */
  coarseCalibration: boolean;
  /** The last gap filled by $ per useful proof (the planner's usefulRate); off: the ranking's order. */
  usefulRate: boolean;
  /** Preemptions priced in at the rate seen (bids' useful share); off: a bid counts as on-demand. */
  preemptionPriced: boolean;
}

/** Options of {@link simulateFleetDay}. */
export interface FleetDayOptions {
  policy: FleetDayPolicy;
  /** Default 24. */
  hours?: number | undefined;
  /** Default 5. */
  stepMinutes?: number | undefined;
  /** Default 300. */
  targetProofsPerHour?: number | undefined;
  /** Default 40. */
  minProofsPerHour?: number | undefined;
  /** Timed proofs of a benchmark. Default 12. */
  benchmarkProofs?: number | undefined;
  /** Default {@link defaultFleetDayPriors}. */
  priors?: FleetDayPriors | undefined;
  /** Default: all on. */
  rules?: Partial<FleetDayRules> | undefined;
  /**
   * Rent at a bid of this many times a listing's minimum bid where that is below its price (the
   * fleet's --interruptible-bid): such rentals are outbid at the listing's rate, and the ranking
   * charges preemptions at the rate the fleet has seen. Default: on-demand only.
   */
  interruptibleBidFactor?: number | undefined;
}

/** What one simulated day cost and produced, and what the fleet saw (to fit priors from). */
export interface FleetDayResult {
  policy: FleetDayPolicy;
  dollars: number;
  proofs: number;
  rentals: number;
  deaths: number;
  /** Interruptible rentals outbid during the day. */
  preemptions: number;
  /** Hours rented at a bid. */
  interruptibleHours: number;
  /** Every rate the fleet measured (benchmarks and production reports). */
  samples: RateSample[];
  /** Deaths over the hours rented. */
  exposure: DeathExposure;
  /** Every rent, death, failure, rejection and destroy, in order. */
  log: Array<{
    atHours: number;
    kind: "rent" | "died" | "preempted" | "failed" | "rejected" | "destroy";
    offerId: number;
  }>;
}
