// shape-exception: one simulation, its options and its result
import type { RateSample } from "../economics/calibration.js";
import { levelledCalibration } from "../economics/calibration-levels.js";
import { type DeathExposure, deathHazards, hazardAsFailureRate } from "../economics/death-hazard.js";
import { preemptionShare, rentalPricing, shrunkPreemptionRate } from "../economics/interruptible.js";
import {
  type MachineMeasurements,
  type RankCandidate,
  type RankingKnowledge,
  type RankingOptions,
  rankCandidates,
} from "../economics/ranking.js";
import { type FleetMember, planFleetStep } from "../economics/run-planner.js";
import { gaussian, seededRandom } from "./hidden-truth.js";
import {
  listedAt,
  type MovingMarket,
  type MovingOffer,
  priceAt,
  trueRateAt,
  warmupHours,
} from "./moving-market.js";

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

interface Rental {
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

interface MachineState {
  rentals: number;
  keptHours: number;
  deaths: number;
  runs: number[];
  current: number | undefined;
  excludedReason: string | undefined;
}

/**
 * A day of a fleet on a market that moves ({@link movingMarket}), in process: the fleet's own
 * ranking, calibration and run planner decide; only the machines are simulated. Rentals pay the
 * listed price of their start, download parameters and warm up, benchmark (early verdict for a
 * clearly slow machine), then prove at the true rate (which degrades after hours kept where the
 * market says so) until destroyed or their host dies. The planner's target catches up: the rate
 * that finishes the day's work in the hours left (at least the target, at most 1.5 times).
 */
// shape-exception: one simulation loop whose steps share the day's state
export function simulateFleetDay(market: MovingMarket, options: FleetDayOptions): FleetDayResult {
  const random = seededRandom(market.seed * 6271 + 17);
  const hours = options.hours ?? 24;
  const stepH = (options.stepMinutes ?? 5) / 60;
  const target = options.targetProofsPerHour ?? 300;
  const minProofsPerHour = options.minProofsPerHour ?? 40;
  const benchmarkProofs = options.benchmarkProofs ?? 12;
  const priors = options.priors ?? defaultFleetDayPriors;
  const learning = options.policy === "learning";
  const work = target * hours;
  const rules: FleetDayRules = {
    deathsAsEvidence: true,
    productionRates: true,
    chargeSetup: true,
    coarseCalibration: true,
    usefulRate: true,
    preemptionPriced: true,
    ...options.rules,
  };

  const machines = new Map<number, MachineState>();
  const hostExposure = new Map<number, DeathExposure>();
  const fleet: DeathExposure = { deaths: 0, rentedHours: 0 };
  const samples: RateSample[] = [];
  const rentals: Rental[] = [];
  const rented = new Set<number>();
  const paramsSeen: number[] = [];
  let dollars = 0;
  let proofs = 0;
  let rentalCount = 0;
  let seq = 0;
  const interruptible = { preemptions: 0, hours: 0 };
  // Outbids from a stream of their own: an on-demand day draws exactly what it drew before.
  const outbids = seededRandom(market.seed * 3571 + 29);
  /** What the fleet pays for a listing now: a bid where allowed and cheaper, else the listed price. */
  const pricing = (o: MovingOffer, now: number) =>
    rentalPricing({ dphTotal: priceAt(o, now), minBid: o.minBid }, options.interruptibleBidFactor);
  const log: FleetDayResult["log"] = [];

  const stateOf = (o: MovingOffer) => {
    const id = o.candidate.machineId as number;
    let m = machines.get(id);
    if (m === undefined) {
      m = { rentals: 0, keptHours: 0, deaths: 0, runs: [], current: undefined, excludedReason: undefined };
      machines.set(id, m);
    }
    return m;
  };
  const hostOf = (o: MovingOffer) => {
    const id = o.candidate.hostId as number;
    const h = hostExposure.get(id) ?? { deaths: 0, rentedHours: 0 };
    hostExposure.set(id, h);
    return h;
  };
  const measure = (o: MovingOffer, rate: number) => {
    stateOf(o).runs.push(rate);
    samples.push({
      classKey: o.candidate.classKey,
      machineId: o.candidate.machineId,
      measuredProofsPerHour: rate,
      predictedProofsPerHour: o.candidate.predictedProofsPerHour,
    });
  };
  const end = (r: Rental) => {
    rentals.splice(rentals.indexOf(r), 1);
    rented.delete(r.offer.candidate.offerId);
  };
  // The listing says what a download costs (bandwidth $/GB); how long it takes is learnt.
  const paramsUsd = new Map(market.offers.map((o) => [o.candidate.offerId, o.paramsUsd]));
  const meanParamsHours = () =>
    paramsSeen.length === 0 ? 0.4 : paramsSeen.reduce((a, b) => a + b, 0) / paramsSeen.length;

  /** A rental's setup before it proves: the download (as learnt), the warmup and the benchmark. */
  const setupHoursOf = (c: RankCandidate) =>
    meanParamsHours() + warmupHours + benchmarkProofs / Math.max(c.predictedProofsPerHour, 1);

  for (let now = 0; now < hours - 1e-9; now += stepH) {
    // 1. Outcomes: deaths, verdicts.
    for (const r of [...rentals]) {
      const o = r.offer;
      const m = stateOf(o);
      if (now >= r.outbidAtH) {
        // Outbid: the market's doing, not the machine's; the setup is lost and the work goes elsewhere.
        interruptible.preemptions += 1;
        log.push({ atHours: now, kind: "preempted", offerId: o.candidate.offerId });
        end(r);
        continue;
      }
      if (now >= r.dieAtH) {
        m.deaths += 1;
        hostOf(o).deaths += 1;
        fleet.deaths += 1;
        if (!learning || !rules.deathsAsEvidence) m.excludedReason = "the host died";
        log.push({ atHours: now, kind: "died", offerId: o.candidate.offerId });
        end(r);
        continue;
      }
      if (r.stage === "vetting" && now >= r.verdictAtH) {
        if (o.quirk === "never-params") {
          m.excludedReason = "FAILED: the parameters never finished";
          log.push({ atHours: now, kind: "failed", offerId: o.candidate.offerId });
          end(r);
          continue;
        }
        paramsSeen.push(o.paramsHours);
        const rate = trueRateAt(o, m.keptHours) * Math.exp(0.03 * gaussian(random));
        measure(o, rate);
        if (rate < minProofsPerHour) {
          m.excludedReason = `BELOW: ${rate.toFixed(1)} proofs/hour`;
          log.push({ atHours: now, kind: "rejected", offerId: o.candidate.offerId });
          end(r);
          continue;
        }
        r.stage = "active";
        r.believed = rate;
      }
    }
    // 2. Decisions.
    const hoursLeft = hours - now;
    const available = market.offers.filter((o) => !rented.has(o.candidate.offerId) && listedAt(o, now));
    const candidates: RankCandidate[] = available.map((o) => {
      const price = pricing(o, now);
      return { ...o.candidate, dphTotal: price.dphTotal, interruptible: price.bidPricePerHour !== undefined };
    });
    const preemptionsPerHour = rules.preemptionPriced
      ? shrunkPreemptionRate(interruptible.preemptions, interruptible.hours)
      : 0;
    const knowledge = learning
      ? { ...learningKnowledge(candidates), preemptionsPerHour }
      : { calibration: new Map(), machines: excludedOnly(), hosts: new Map(), preemptionsPerHour };
    const rankOptions: RankingOptions = {
      minProofsPerHour,
      optimism: learning ? priors.optimism : 0,
      modelSpreadLog: priors.modelSpreadLog,
      classSpreadFloorLog: priors.classSpreadLog,
    };
    if (learning && rules.chargeSetup) {
      rankOptions.hoursLeft = hoursLeft;
      rankOptions.setupOf = (c) => ({ hours: setupHoursOf(c), usd: paramsUsd.get(c.offerId) ?? 0 });
    }
    const { ranked } = rankCandidates(candidates, knowledge, rankOptions);
    // A rental at a bid counts at the share of its hours that prove (its slot is refilled after
    // each outbid, setup and all), as the ranking counts the candidates.
    const members: FleetMember[] = rentals.map((r) => ({
      instanceId: r.id,
      stage: r.stage,
      dphPerHour: r.dph,
      proofsPerHour:
        (!learning
          ? r.offer.candidate.predictedProofsPerHour
          : r.stage === "active"
            ? r.believed
            : r.estimate) *
        (r.interruptible ? preemptionShare(preemptionsPerHour, setupHoursOf(r.offer.candidate)) : 1),
    }));
    // Catch up: the rate that finishes the day's work in the hours left. Spreading the shortfall
    // over six hours or more instead left some days 4% short (the benchmark's delivered share).
    const goal = Math.min(1.5 * target, Math.max(target, (work - proofs) / Math.max(hoursLeft, stepH)));
    const decisions = planFleetStep({
      members,
      ranked,
      target: { proofsPerHour: goal },
      replaceMargin: learning ? 1.25 : Number.POSITIVE_INFINITY,
      usefulRate: learning && rules.usefulRate,
    });
    for (const d of decisions) {
      if (d.action === "destroy") {
        const r = rentals.find((x) => x.id === d.instanceId);
        if (r !== undefined) {
          end(r);
          log.push({ atHours: now, kind: "destroy", offerId: r.offer.candidate.offerId });
        }
        continue;
      }
      const o = available.find((x) => x.candidate.offerId === d.offerId) as MovingOffer;
      const m = stateOf(o);
      seq += 1;
      rentalCount += 1;
      const life = o.lifetimesHours[m.rentals] ?? Number.POSITIVE_INFINITY;
      m.rentals += 1;
      rented.add(o.candidate.offerId);
      log.push({ atHours: now, kind: "rent", offerId: o.candidate.offerId });
      const rate = trueRateAt(o, m.keptHours);
      const proofsRun = rate < 0.7 * minProofsPerHour ? Math.ceil(benchmarkProofs / 3) : benchmarkProofs;
      const price = pricing(o, now);
      const bid = price.bidPricePerHour !== undefined;
      rentals.push({
        id: `r${seq}`,
        offer: o,
        dph: price.dphTotal,
        rentedAtH: now,
        dieAtH: now + life,
        outbidAtH: bid
          ? now - Math.log(Math.max(outbids(), 1e-12)) / Math.max(o.outbidPerHour, 1e-9)
          : Number.POSITIVE_INFINITY,
        interruptible: bid,
        verdictAtH:
          now +
          (o.quirk === "never-params" ? 1 : o.paramsHours + warmupHours + proofsRun / Math.max(rate, 1)),
        stage: "vetting",
        estimate: d.candidate.estimateProofsPerHour,
        believed: d.candidate.estimateProofsPerHour,
      });
      dollars += o.paramsUsd;
    }
    // 3. Bills, production, exposure.
    for (const r of rentals) {
      const m = stateOf(r.offer);
      dollars += r.dph * stepH;
      if (r.stage === "active") proofs += trueRateAt(r.offer, m.keptHours) * stepH;
      m.keptHours += stepH;
      if (r.interruptible) interruptible.hours += stepH;
      hostOf(r.offer).rentedHours += stepH;
      fleet.rentedHours += stepH;
    }
    // 4. Hourly production reports.
    if (Math.abs((now + stepH) % 1) < stepH / 2) {
      for (const r of rentals) {
        if (r.stage !== "active") continue;
        const m = stateOf(r.offer);
        const rate = trueRateAt(r.offer, m.keptHours) * Math.exp(0.02 * gaussian(random));
        if (learning) {
          measure(r.offer, rate);
          if (rules.productionRates) {
            m.current = rate;
            r.believed = rate;
          }
        }
      }
    }
  }

  function learningKnowledge(candidates: readonly RankCandidate[]): RankingKnowledge {
    const hazards = deathHazards(fleet, { priorPerHour: priors.hazardPerHour });
    const vettingHours = meanParamsHours() + warmupHours + 0.15;
    const known = new Map<number, MachineMeasurements>();
    for (const c of candidates) {
      const m = machines.get(c.machineId as number);
      const machineExposure = m === undefined ? undefined : { deaths: m.deaths, rentedHours: m.keptHours };
      const perHour = hazards.machinePerHour(machineExposure, hostExposure.get(c.hostId as number));
      known.set(c.machineId as number, {
        runsProofsPerHour: m?.runs ?? [],
        excludedReason: m?.excludedReason,
        failureRate: hazardAsFailureRate(perHour, vettingHours),
        currentProofsPerHour: rules.productionRates ? m?.current : undefined,
      });
    }
    const calibration = rules.coarseCalibration
      ? levelledCalibration(
          samples,
          candidates.map((c) => c.classKey),
        )
      : perClassOnly(samples);
    return { calibration, machines: known, hosts: new Map() };
  }

  function excludedOnly(): Map<number, MachineMeasurements> {
    const out = new Map<number, MachineMeasurements>();
    for (const [id, m] of machines)
      if (m.excludedReason !== undefined)
        out.set(id, { runsProofsPerHour: [], excludedReason: m.excludedReason });
    return out;
  }

  return {
    log,
    policy: options.policy,
    dollars,
    proofs,
    rentals: rentalCount,
    deaths: fleet.deaths,
    preemptions: interruptible.preemptions,
    interruptibleHours: interruptible.hours,
    samples,
    exposure: fleet,
  };
}

/** Per-class calibration without coarser levels (the rule turned off). */
function perClassOnly(samples: readonly RateSample[]) {
  const keys = new Set(samples.map((s) => s.classKey));
  // levelledCalibration restricted to classes measured themselves, and no borrowing: shrink weight 0.
  const all = levelledCalibration(samples, keys, { priorMachines: 0 });
  return all;
}
