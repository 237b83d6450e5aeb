import { learnCalibration, type RateSample } from "../economics/calibration.js";
import {
  type MachineMeasurements,
  noKnowledge,
  type RankCandidate,
  type RankingKnowledge,
  rankCandidates,
} from "../economics/ranking.js";
import {
  type FleetDecision,
  type FleetMember,
  type FleetTarget,
  planFleetStep,
} from "../economics/run-planner.js";
import { gaussian, type HiddenMarket, type HiddenOffer, seededRandom } from "./hidden-truth.js";

/** How a simulated fleet chooses. */
export type EconomyPolicy = "learning" | "spec-only" | "oracle";

/** Options of {@link simulateEconomy}. */
export interface EconomyOptions {
  policy: EconomyPolicy;
  /** Simulated hours. Default 24. */
  hours?: number | undefined;
  /** Step, minutes. Default 5. */
  stepMinutes?: number | undefined;
  /** Default 300 proofs/hour. */
  target?: FleetTarget | undefined;
  /** Default 40. */
  minProofsPerHour?: number | undefined;
  /** Default none. */
  maxDph?: number | undefined;
  /** Timed proofs of a full benchmark. Default 12. */
  benchmarkProofs?: number | undefined;
  /** Called with every decision and outcome, for the demo's log. */
  onEvent?: ((event: EconomyEvent) => void) | undefined;
}

/** A logged decision or outcome of the simulated fleet. */
export interface EconomyEvent {
  atHours: number;
  kind: "rent" | "destroy" | "kept" | "rejected" | "failed" | "died";
  offerId: number;
  reason: string;
}

/** What one simulated day cost and produced. */
export interface EconomyResult {
  policy: EconomyPolicy;
  dollars: number;
  proofs: number;
  /** Realised $ per 1000 proofs. */
  costPer1000: number;
  rentals: number;
  kept: number;
  /** The knowledge at the end (learning policy; empty otherwise). */
  knowledge: RankingKnowledge;
  samples: RateSample[];
}

interface Rental {
  id: string;
  offer: HiddenOffer;
  rentedAtH: number;
  stage: "vetting" | "active";
  /** When vetting ends (the verdict), hours. */
  verdictAtH: number;
  estimate: number;
  measured: number | undefined;
}

/**
 * A fast in-process day of a fleet on a hidden market, with the fleet's own ranking
 * (`rankCandidates`), calibration (`learnCalibration`) and decisions
 * (`planFleetStep`); only the machines are simulated. A rented machine bills from the
 * rent to the destroy; it vets (parameters, warmup, the benchmark with the early verdict)
 * and then proves at its true rate, or fails, or dies. The learning fleet sees only what it
 * measures: benchmark rates, hourly production, failures. The spec-only fleet ranks by the
 * model and never learns; the oracle ranks by the truth and never rents a bad machine.
 */
export function simulateEconomy(market: HiddenMarket, options: EconomyOptions): EconomyResult {
  const day = startEconomyDay(market, options);
  for (let now = 0; now < day.hours - 1e-9; now += day.stepH) {
    settleOutcomes(day, now);
    decideStep(day, now);
    billStep(day);
    reportProduction(day, now);
  }
  const { policy, dollars, proofs, machines, hosts, samples } = day;
  return {
    policy,
    dollars,
    proofs,
    costPer1000: proofs > 0 ? (dollars * 1000) / proofs : Number.POSITIVE_INFINITY,
    rentals: day.rentalCount,
    kept: day.keptCount,
    knowledge: { calibration: learnCalibration(samples), machines, hosts },
    samples,
  };
}

/** The day's state: the options resolved, what the fleet knows, what it rents, what it paid and proved. */
interface EconomyDay {
  market: HiddenMarket;
  /** The day's one stream of draws: vetting times, benchmark and production noise, in step order. */
  random: () => number;
  hours: number;
  stepH: number;
  target: FleetTarget;
  minProofsPerHour: number;
  benchmarkProofs: number;
  maxDph: number | undefined;
  policy: EconomyPolicy;
  emit: (event: EconomyEvent) => void;
  machines: Map<number, MachineMeasurements>;
  hosts: Map<number, { attempts: number; failures: number }>;
  samples: RateSample[];
  rented: Set<number>;
  rentals: Rental[];
  dollars: number;
  proofs: number;
  rentalCount: number;
  keptCount: number;
  seq: number;
}

function startEconomyDay(market: HiddenMarket, options: EconomyOptions): EconomyDay {
  return {
    market,
    random: seededRandom(market.seed * 7919 + 13),
    hours: options.hours ?? 24,
    stepH: (options.stepMinutes ?? 5) / 60,
    target: options.target ?? { proofsPerHour: 300 },
    minProofsPerHour: options.minProofsPerHour ?? 40,
    benchmarkProofs: options.benchmarkProofs ?? 12,
    maxDph: options.maxDph,
    policy: options.policy,
    emit: options.onEvent ?? (() => {}),
    machines: new Map(),
    hosts: new Map(),
    samples: [],
    rented: new Set(),
    rentals: [],
    dollars: 0,
    proofs: 0,
    rentalCount: 0,
    keptCount: 0,
    seq: 0,
  };
}

function machineOf(day: EconomyDay, o: HiddenOffer): MachineMeasurements {
  const id = o.candidate.machineId as number;
  let m = day.machines.get(id);
  if (m === undefined) {
    m = { runsProofsPerHour: [], excludedReason: undefined };
    day.machines.set(id, m);
  }
  return m;
}

function hostOf(day: EconomyDay, o: HiddenOffer): { attempts: number; failures: number } {
  const id = o.candidate.hostId as number;
  const h = day.hosts.get(id) ?? { attempts: 0, failures: 0 };
  day.hosts.set(id, h);
  return h;
}

function measure(day: EconomyDay, o: HiddenOffer, rate: number): void {
  const m = machineOf(day, o);
  m.runsProofsPerHour.push(rate);
  day.samples.push({
    classKey: o.candidate.classKey,
    machineId: o.candidate.machineId,
    measuredProofsPerHour: rate,
    predictedProofsPerHour: o.candidate.predictedProofsPerHour,
  });
}

function endRental(
  day: EconomyDay,
  r: Rental,
  atH: number,
  kind: EconomyEvent["kind"],
  reason: string,
): void {
  day.rentals.splice(day.rentals.indexOf(r), 1);
  day.rented.delete(r.offer.candidate.offerId);
  day.emit({ atHours: atH, kind, offerId: r.offer.candidate.offerId, reason });
}

/** Vetting time: parameters over the network, the daemon's warmup, the benchmark. */
function vettingHours(day: EconomyDay, o: HiddenOffer): number {
  const params = 0.35 + 0.1 * day.random();
  const warmup = 0.2;
  // The early verdict stops a clearly slow machine after about a third of the proofs.
  const proofsRun =
    o.trueProofsPerHour < 0.7 * day.minProofsPerHour
      ? Math.ceil(day.benchmarkProofs / 3)
      : day.benchmarkProofs;
  return params + warmup + proofsRun / Math.max(o.trueProofsPerHour, 1);
}

const truthCandidate = (o: HiddenOffer): RankCandidate => ({
  ...o.candidate,
  predictedProofsPerHour: o.trueProofsPerHour,
});

/** 1. Outcomes of this step: deaths, failed parameters, benchmark verdicts. */
function settleOutcomes(day: EconomyDay, now: number): void {
  for (const r of [...day.rentals]) {
    const o = r.offer;
    const age = now - r.rentedAtH;
    if (o.quirk === "flaky" && o.diesAfterHours !== undefined && age >= o.diesAfterHours) {
      machineOf(day, o).excludedReason = "the host died";
      hostOf(day, o).failures += 1;
      endRental(day, r, now, "died", `the instance exited after ${age.toFixed(1)} h`);
      continue;
    }
    if (r.stage === "vetting" && now >= r.verdictAtH) settleVerdict(day, r, now);
  }
}

function settleVerdict(day: EconomyDay, r: Rental, now: number): void {
  const o = r.offer;
  if (o.quirk === "never-params") {
    machineOf(day, o).excludedReason = "FAILED: the parameters never finished";
    hostOf(day, o).failures += 1;
    endRental(day, r, now, "failed", "params deadline passed");
    return;
  }
  const rate = o.trueProofsPerHour * Math.exp(0.03 * gaussian(day.random));
  measure(day, o, rate);
  if (rate < day.minProofsPerHour) {
    endRental(day, r, now, "rejected", `BELOW: ${rate.toFixed(1)} proofs/hour < ${day.minProofsPerHour}`);
    return;
  }
  r.stage = "active";
  r.measured = rate;
  day.keptCount += 1;
  day.emit({
    atHours: now,
    kind: "kept",
    offerId: o.candidate.offerId,
    reason: `MET: ${rate.toFixed(1)} proofs/hour`,
  });
}

/** What the policy lets the fleet know: everything it measured, its exclusions only, or nothing. */
function knowledgeOf(day: EconomyDay): RankingKnowledge {
  if (day.policy === "learning")
    return { calibration: learnCalibration(day.samples), machines: day.machines, hosts: day.hosts };
  if (day.policy === "spec-only")
    return {
      calibration: new Map(),
      machines: excludedOnly(day.machines, day.minProofsPerHour),
      hosts: new Map(),
    };
  return noKnowledge;
}

/** 2. Decisions: rank what is free, plan the step, destroy and rent. */
function decideStep(day: EconomyDay, now: number): void {
  const { policy } = day;
  const knowledge = knowledgeOf(day);
  const available = day.market.offers.filter((o) => !day.rented.has(o.candidate.offerId));
  const candidates =
    policy === "oracle"
      ? available.filter((o) => o.quirk !== "flaky" && o.quirk !== "never-params").map(truthCandidate)
      : available.map((o) => o.candidate);
  const { ranked } = rankCandidates(candidates, knowledge, {
    minProofsPerHour: day.minProofsPerHour,
    optimism: policy === "learning" ? 1 : 0,
  });
  const members: FleetMember[] = day.rentals.map((r) => ({
    instanceId: r.id,
    stage: r.stage,
    dphPerHour: r.offer.candidate.dphTotal,
    proofsPerHour:
      policy === "spec-only"
        ? r.offer.candidate.predictedProofsPerHour
        : r.stage === "active"
          ? (r.measured as number)
          : r.estimate,
  }));
  const decisions: FleetDecision[] = planFleetStep({
    members,
    ranked,
    target: day.target,
    maxDph: day.maxDph,
    replaceMargin: policy === "learning" ? 1.25 : Number.POSITIVE_INFINITY,
  });
  for (const d of decisions) {
    if (d.action === "destroy") {
      const r = day.rentals.find((x) => x.id === d.instanceId);
      if (r !== undefined) endRental(day, r, now, "destroy", d.reason);
      continue;
    }
    rent(day, d, now);
  }
}

function rent(day: EconomyDay, d: Extract<FleetDecision, { action: "rent" }>, now: number): void {
  const o = day.market.offers.find((x) => x.candidate.offerId === d.offerId) as HiddenOffer;
  day.seq += 1;
  day.rentalCount += 1;
  hostOf(day, o).attempts += 1;
  day.rented.add(o.candidate.offerId);
  day.rentals.push({
    id: `r${day.seq}`,
    offer: o,
    rentedAtH: now,
    stage: "vetting",
    verdictAtH: now + (o.quirk === "never-params" ? 1 : vettingHours(day, o)),
    estimate: d.candidate.estimateProofsPerHour,
    measured: undefined,
  });
  day.emit({ atHours: now, kind: "rent", offerId: o.candidate.offerId, reason: d.reason });
}

/** 3. Bills and production of the step. */
function billStep(day: EconomyDay): void {
  for (const r of day.rentals) {
    day.dollars += r.offer.candidate.dphTotal * day.stepH;
    if (r.stage === "active") day.proofs += r.offer.trueProofsPerHour * day.stepH;
  }
}

/** 4. Hourly production reports feed the learning fleet. */
function reportProduction(day: EconomyDay, now: number): void {
  if (day.policy !== "learning" || Math.abs((now + day.stepH) % 1) >= day.stepH / 2) return;
  for (const r of day.rentals)
    if (r.stage === "active")
      measure(day, r.offer, r.offer.trueProofsPerHour * Math.exp(0.02 * gaussian(day.random)));
}

/** The manager's own exclusions (failed, unstable, below the minimum) without the measured rates. */
function excludedOnly(
  machines: ReadonlyMap<number, MachineMeasurements>,
  minProofsPerHour: number,
): Map<number, MachineMeasurements> {
  const out = new Map<number, MachineMeasurements>();
  for (const [id, m] of machines) {
    const below = m.runsProofsPerHour.some((r) => r < minProofsPerHour);
    if (m.excludedReason !== undefined || below) {
      out.set(id, { runsProofsPerHour: [], excludedReason: m.excludedReason ?? "rejected by its benchmark" });
    }
  }
  return out;
}
