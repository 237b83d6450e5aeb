import { preemptionShare, shrunkPreemptionRate } from "../economics/interruptible.js";
import {
  type RankCandidate,
  type RankedCandidate,
  type RankingOptions,
  rankCandidates,
} from "../economics/ranking.js";
import { type FleetDecision, type FleetMember, planFleetStep } from "../economics/run-planner.js";
import {
  endRental,
  excludedOnly,
  type FleetDay,
  hostOf,
  learningKnowledge,
  measure,
  pricing,
  type Rental,
  setupHoursOf,
  stateOf,
} from "./fleet-day-state.js";
import { gaussian } from "./hidden-truth.js";
import { listedAt, type MovingOffer, trueRateAt, warmupHours } from "./moving-market.js";

// The four steps of a simulated fleet day, run in this order every step (the order of the
// random draws is the order of these steps): outcomes, decisions, bills, production reports.

/** 1. Outcomes: outbids, deaths, verdicts. */
export function settleOutcomes(day: FleetDay, now: number): void {
  for (const r of [...day.rentals]) {
    const o = r.offer;
    const m = stateOf(day, o);
    if (now >= r.outbidAtH) {
      // Outbid: the market's doing, not the machine's; the setup is lost and the work goes elsewhere.
      day.interruptible.preemptions += 1;
      day.log.push({ atHours: now, kind: "preempted", offerId: o.candidate.offerId });
      endRental(day, r);
      continue;
    }
    if (now >= r.dieAtH) {
      m.deaths += 1;
      hostOf(day, o).deaths += 1;
      day.fleet.deaths += 1;
      if (!day.learning || !day.rules.deathsAsEvidence) m.excludedReason = "the host died";
      day.log.push({ atHours: now, kind: "died", offerId: o.candidate.offerId });
      endRental(day, r);
      continue;
    }
    if (r.stage === "vetting" && now >= r.verdictAtH) settleVerdict(day, r, now);
  }
}

function settleVerdict(day: FleetDay, r: Rental, now: number): void {
  const o = r.offer;
  const m = stateOf(day, o);
  if (o.quirk === "never-params") {
    m.excludedReason = "FAILED: the parameters never finished";
    day.log.push({ atHours: now, kind: "failed", offerId: o.candidate.offerId });
    endRental(day, r);
    return;
  }
  day.paramsSeen.push(o.paramsHours);
  const rate = trueRateAt(o, m.keptHours) * Math.exp(0.03 * gaussian(day.random));
  measure(day, o, rate);
  if (rate < day.minProofsPerHour) {
    m.excludedReason = `BELOW: ${rate.toFixed(1)} proofs/hour`;
    day.log.push({ atHours: now, kind: "rejected", offerId: o.candidate.offerId });
    endRental(day, r);
    return;
  }
  r.stage = "active";
  r.believed = rate;
}

/** 2. Decisions: rank what is listed and free, plan the step towards the catch-up goal, act. */
export function decideStep(day: FleetDay, now: number): void {
  const { learning } = day;
  const hoursLeft = day.hours - now;
  const available = day.market.offers.filter((o) => !day.rented.has(o.candidate.offerId) && listedAt(o, now));
  const preemptionsPerHour = day.rules.preemptionPriced
    ? shrunkPreemptionRate(day.interruptible.preemptions, day.interruptible.hours)
    : 0;
  const ranked = rankAvailable(day, available, now, preemptionsPerHour);
  // A rental at a bid counts at the share of its hours that prove (its slot is refilled after
  // each outbid, setup and all), as the ranking counts the candidates.
  const members: FleetMember[] = day.rentals.map((r) => ({
    instanceId: r.id,
    stage: r.stage,
    dphPerHour: r.dph,
    proofsPerHour:
      (!learning
        ? r.offer.candidate.predictedProofsPerHour
        : r.stage === "active"
          ? r.believed
          : r.estimate) *
      (r.interruptible ? preemptionShare(preemptionsPerHour, setupHoursOf(day, r.offer.candidate)) : 1),
  }));
  // Catch up: the rate that finishes the day's work in the hours left. Spreading the shortfall
  // over six hours or more instead left some days 4% short (the benchmark's delivered share).
  const goal = Math.min(
    1.5 * day.target,
    Math.max(day.target, (day.work - day.proofs) / Math.max(hoursLeft, day.stepH)),
  );
  const decisions = planFleetStep({
    members,
    ranked,
    target: { proofsPerHour: goal },
    replaceMargin: learning ? 1.25 : Number.POSITIVE_INFINITY,
    usefulRate: learning && day.rules.usefulRate,
  });
  for (const d of decisions) {
    if (d.action === "destroy") {
      const r = day.rentals.find((x) => x.id === d.instanceId);
      if (r !== undefined) {
        endRental(day, r);
        day.log.push({ atHours: now, kind: "destroy", offerId: r.offer.candidate.offerId });
      }
      continue;
    }
    rent(day, d, available, now);
  }
}

/** The fleet's ranking of the available listings, at the prices it would pay now. */
function rankAvailable(
  day: FleetDay,
  available: readonly MovingOffer[],
  now: number,
  preemptionsPerHour: number,
): RankedCandidate[] {
  const { learning, priors } = day;
  const candidates: RankCandidate[] = available.map((o) => {
    const price = pricing(day, o, now);
    return { ...o.candidate, dphTotal: price.dphTotal, interruptible: price.bidPricePerHour !== undefined };
  });
  const knowledge = learning
    ? { ...learningKnowledge(day, candidates), preemptionsPerHour }
    : { calibration: new Map(), machines: excludedOnly(day), hosts: new Map(), preemptionsPerHour };
  const rankOptions: RankingOptions = {
    minProofsPerHour: day.minProofsPerHour,
    optimism: learning ? priors.optimism : 0,
    modelSpreadLog: priors.modelSpreadLog,
    classSpreadFloorLog: priors.classSpreadLog,
  };
  if (learning && day.rules.chargeSetup) {
    rankOptions.hoursLeft = day.hours - now;
    rankOptions.setupOf = (c) => ({ hours: setupHoursOf(day, c), usd: day.paramsUsd.get(c.offerId) ?? 0 });
  }
  return rankCandidates(candidates, knowledge, rankOptions).ranked;
}

function rent(
  day: FleetDay,
  d: Extract<FleetDecision, { action: "rent" }>,
  available: readonly MovingOffer[],
  now: number,
): void {
  const o = available.find((x) => x.candidate.offerId === d.offerId) as MovingOffer;
  const m = stateOf(day, o);
  day.seq += 1;
  day.rentalCount += 1;
  const life = o.lifetimesHours[m.rentals] ?? Number.POSITIVE_INFINITY;
  m.rentals += 1;
  day.rented.add(o.candidate.offerId);
  day.log.push({ atHours: now, kind: "rent", offerId: o.candidate.offerId });
  const rate = trueRateAt(o, m.keptHours);
  const proofsRun =
    rate < 0.7 * day.minProofsPerHour ? Math.ceil(day.benchmarkProofs / 3) : day.benchmarkProofs;
  const price = pricing(day, o, now);
  const bid = price.bidPricePerHour !== undefined;
  day.rentals.push({
    id: `r${day.seq}`,
    offer: o,
    dph: price.dphTotal,
    rentedAtH: now,
    dieAtH: now + life,
    outbidAtH: bid
      ? now - Math.log(Math.max(day.outbids(), 1e-12)) / Math.max(o.outbidPerHour, 1e-9)
      : Number.POSITIVE_INFINITY,
    interruptible: bid,
    verdictAtH:
      now + (o.quirk === "never-params" ? 1 : o.paramsHours + warmupHours + proofsRun / Math.max(rate, 1)),
    stage: "vetting",
    estimate: d.candidate.estimateProofsPerHour,
    believed: d.candidate.estimateProofsPerHour,
  });
  day.dollars += o.paramsUsd;
}

/** 3. Bills, production, exposure. */
export function billStep(day: FleetDay): void {
  const { stepH } = day;
  for (const r of day.rentals) {
    const m = stateOf(day, r.offer);
    day.dollars += r.dph * stepH;
    if (r.stage === "active") day.proofs += trueRateAt(r.offer, m.keptHours) * stepH;
    m.keptHours += stepH;
    if (r.interruptible) day.interruptible.hours += stepH;
    hostOf(day, r.offer).rentedHours += stepH;
    day.fleet.rentedHours += stepH;
  }
}

/** 4. Hourly production reports. */
export function reportProduction(day: FleetDay, now: number): void {
  if (!(Math.abs((now + day.stepH) % 1) < day.stepH / 2)) return;
  for (const r of day.rentals) {
    if (r.stage !== "active") continue;
    const m = stateOf(day, r.offer);
    const rate = trueRateAt(r.offer, m.keptHours) * Math.exp(0.02 * gaussian(day.random));
    if (day.learning) {
      measure(day, r.offer, rate);
      if (day.rules.productionRates) {
        m.current = rate;
        r.believed = rate;
      }
    }
  }
}
