import type { RateSample } from "../economics/calibration.js";
import { levelledCalibration } from "../economics/calibration-levels.js";
import { type DeathExposure, deathHazards, hazardAsFailureRate } from "../economics/death-hazard.js";
import { type RentalPricing, rentalPricing } from "../economics/interruptible.js";
import type { MachineMeasurements, RankCandidate, RankingKnowledge } from "../economics/ranking.js";
import {
  defaultFleetDayPriors,
  type FleetDayOptions,
  type FleetDayPriors,
  type FleetDayResult,
  type FleetDayRules,
} from "./fleet-day-types.js";
import { seededRandom } from "./hidden-truth.js";
import { type MovingMarket, type MovingOffer, priceAt, warmupHours } from "./moving-market.js";

// The state of one simulated fleet day and what the fleet derives from it (its knowledge, its
// setup estimates); the steps that advance it are in fleet-day-steps.ts.

export interface Rental {
  id: string;
  offer: MovingOffer;
  dph: number;
  rentedAtH: number;
  dieAtH: number;
  /** When the rental is outbid (Infinity for on-demand). */
  outbidAtH: number;
  interruptible: boolean;
  verdictAtH: number;
  stage: "vetting" | "active";
  estimate: number;
  /** The rate the fleet believes now: the benchmark's, then the latest production report. */
  believed: number;
}

export interface MachineState {
  rentals: number;
  keptHours: number;
  deaths: number;
  runs: number[];
  current: number | undefined;
  excludedReason: string | undefined;
}

/** One simulated day: the options resolved, what the fleet has seen, what it rents, paid and proved. */
export interface FleetDay {
  market: MovingMarket;
  options: FleetDayOptions;
  /** Benchmark and production noise, in step order. */
  random: () => number;
  /** Outbids from a stream of their own: an on-demand day draws exactly what it drew before. */
  outbids: () => number;
  hours: number;
  stepH: number;
  target: number;
  minProofsPerHour: number;
  benchmarkProofs: number;
  priors: FleetDayPriors;
  learning: boolean;
  /** The day's work, proofs. */
  work: number;
  rules: FleetDayRules;
  machines: Map<number, MachineState>;
  hostExposure: Map<number, DeathExposure>;
  fleet: DeathExposure;
  samples: RateSample[];
  rentals: Rental[];
  rented: Set<number>;
  /** Parameter downloads seen, hours: how long a download takes is learnt. */
  paramsSeen: number[];
  /** The listing says what a download costs (bandwidth $/GB). */
  paramsUsd: Map<number, number>;
  dollars: number;
  proofs: number;
  rentalCount: number;
  seq: number;
  interruptible: { preemptions: number; hours: number };
  log: FleetDayResult["log"];
}

export function startFleetDay(market: MovingMarket, options: FleetDayOptions): FleetDay {
  const hours = options.hours ?? 24;
  const target = options.targetProofsPerHour ?? 300;
  return {
    market,
    options,
    random: seededRandom(market.seed * 6271 + 17),
    outbids: seededRandom(market.seed * 3571 + 29),
    hours,
    stepH: (options.stepMinutes ?? 5) / 60,
    target,
    minProofsPerHour: options.minProofsPerHour ?? 40,
    benchmarkProofs: options.benchmarkProofs ?? 12,
    priors: options.priors ?? defaultFleetDayPriors,
    learning: options.policy === "learning",
    work: target * hours,
    rules: {
      deathsAsEvidence: true,
      productionRates: true,
      chargeSetup: true,
      coarseCalibration: true,
      usefulRate: true,
      preemptionPriced: true,
      ...options.rules,
    },
    machines: new Map(),
    hostExposure: new Map(),
    fleet: { deaths: 0, rentedHours: 0 },
    samples: [],
    rentals: [],
    rented: new Set(),
    paramsSeen: [],
    paramsUsd: new Map(market.offers.map((o) => [o.candidate.offerId, o.paramsUsd])),
    dollars: 0,
    proofs: 0,
    rentalCount: 0,
    seq: 0,
    interruptible: { preemptions: 0, hours: 0 },
    log: [],
  };
}

/** What the fleet pays for a listing now: a bid where allowed and cheaper, else the listed price. */
export function pricing(day: FleetDay, o: MovingOffer, now: number): RentalPricing {
  return rentalPricing({ dphTotal: priceAt(o, now), minBid: o.minBid }, day.options.interruptibleBidFactor);
}

export function stateOf(day: FleetDay, o: MovingOffer): MachineState {
  const id = o.candidate.machineId as number;
  let m = day.machines.get(id);
  if (m === undefined) {
    m = { rentals: 0, keptHours: 0, deaths: 0, runs: [], current: undefined, excludedReason: undefined };
    day.machines.set(id, m);
  }
  return m;
}

export function hostOf(day: FleetDay, o: MovingOffer): DeathExposure {
  const id = o.candidate.hostId as number;
  const h = day.hostExposure.get(id) ?? { deaths: 0, rentedHours: 0 };
  day.hostExposure.set(id, h);
  return h;
}

export function measure(day: FleetDay, o: MovingOffer, rate: number): void {
  stateOf(day, o).runs.push(rate);
  day.samples.push({
    classKey: o.candidate.classKey,
    machineId: o.candidate.machineId,
    measuredProofsPerHour: rate,
    predictedProofsPerHour: o.candidate.predictedProofsPerHour,
  });
}

export function endRental(day: FleetDay, r: Rental): void {
  day.rentals.splice(day.rentals.indexOf(r), 1);
  day.rented.delete(r.offer.candidate.offerId);
}

function meanParamsHours(day: FleetDay): number {
  return day.paramsSeen.length === 0
    ? 0.4
    : day.paramsSeen.reduce((a, b) => a + b, 0) / day.paramsSeen.length;
}

/** A rental's setup before it proves: the download (as learnt), the warmup and the benchmark. */
export function setupHoursOf(day: FleetDay, c: RankCandidate): number {
  return meanParamsHours(day) + warmupHours + day.benchmarkProofs / Math.max(c.predictedProofsPerHour, 1);
}

/** What the learning fleet knows of the candidates: hazards, runs, exclusions, calibration. */
export function learningKnowledge(day: FleetDay, candidates: readonly RankCandidate[]): RankingKnowledge {
  const { rules } = day;
  const hazards = deathHazards(day.fleet, { priorPerHour: day.priors.hazardPerHour });
  const vettingHours = meanParamsHours(day) + warmupHours + 0.15;
  const known = new Map<number, MachineMeasurements>();
  for (const c of candidates) {
    const m = day.machines.get(c.machineId as number);
    const machineExposure = m === undefined ? undefined : { deaths: m.deaths, rentedHours: m.keptHours };
    const perHour = hazards.machinePerHour(machineExposure, day.hostExposure.get(c.hostId as number));
    known.set(c.machineId as number, {
      runsProofsPerHour: m?.runs ?? [],
      excludedReason: m?.excludedReason,
      failureRate: hazardAsFailureRate(perHour, vettingHours),
      currentProofsPerHour: rules.productionRates ? m?.current : undefined,
    });
  }
  const calibration = rules.coarseCalibration
    ? levelledCalibration(
        day.samples,
        candidates.map((c) => c.classKey),
      )
    : perClassOnly(day.samples);
  return { calibration, machines: known, hosts: new Map() };
}

/** The spec-only fleet's knowledge: its exclusions, nothing measured. */
export function excludedOnly(day: FleetDay): Map<number, MachineMeasurements> {
  const out = new Map<number, MachineMeasurements>();
  for (const [id, m] of day.machines)
    if (m.excludedReason !== undefined)
      out.set(id, { runsProofsPerHour: [], excludedReason: m.excludedReason });
  return out;
}

/** Per-class calibration without coarser levels (the rule turned off). */
function perClassOnly(samples: readonly RateSample[]) {
  const keys = new Set(samples.map((s) => s.classKey));
  // levelledCalibration restricted to classes measured themselves, and no borrowing: shrink weight 0.
  const all = levelledCalibration(samples, keys, { priorMachines: 0 });
  return all;
}
