import {
  listedAt,
  type MovingMarket,
  type MovingOffer,
  priceAt,
  trueRateAt,
  warmupHours,
} from "./moving-market.js";

/** One way to use one machine over the day: what it costs and the proofs it delivers. */
export interface RentalOption {
  /** $ billed, setup charges included. */
  cost: number;
  /** Whole proofs delivered. */
  proofs: number;
  /** What the option is, for the plan's log. */
  label: string;
}

/** A machine the oracle may use in one of its options (or not at all). */
export interface OracleItem {
  offerId: number;
  options: RentalOption[];
}

/** The minimum-cost choice of at most one option per machine that delivers the work. */
export interface CoverSolution {
  /** Minimum $, or Infinity when the market cannot deliver the work. */
  cost: number;
  /** The chosen option per machine (offer id). */
  chosen: Map<number, RentalOption>;
  /** Minimum $ for every amount of work 0..cap proofs (the value function). */
  costFor: (proofs: number) => number;
}

/**
 * Exact minimum-cost cover: choose at most one option per item so the proofs sum to at least
 * `need`, at the least cost. A multiple-choice knapsack solved by dynamic programming over whole
 * proofs (work beyond `cap` counts as `cap`), so it is exact, not a heuristic: O(options x cap).
 */
export function minCostCover(items: readonly OracleItem[], need: number, cap: number = need): CoverSolution {
  const size = Math.max(need, cap) + 1;
  const top = size - 1;
  const first = new Float64Array(size).fill(Number.POSITIVE_INFINITY);
  first[0] = 0;
  // layers[i][w]: the least $ to deliver exactly w proofs (top: top or more) with the first i items.
  const layers: Float64Array[] = [first];
  for (const item of items) {
    const prev = layers[layers.length - 1] as Float64Array;
    const next = Float64Array.from(prev);
    for (const o of item.options) {
      const p = Math.max(0, Math.floor(o.proofs));
      for (let w = 0; w < size; w += 1) {
        const from = prev[w] as number;
        if (from === Number.POSITIVE_INFINITY) continue;
        const to = Math.min(top, w + p);
        if (from + o.cost < (next[to] as number)) next[to] = from + o.cost;
      }
    }
    layers.push(next);
  }
  const last = layers[items.length] as Float64Array;
  // At least w proofs: the cheapest of every amount at or above it, and where it is.
  const atLeast = Float64Array.from(last);
  const where = new Int32Array(size).map((_, i) => i);
  for (let w = top - 1; w >= 0; w -= 1) {
    if ((atLeast[w + 1] as number) < (atLeast[w] as number)) {
      atLeast[w] = atLeast[w + 1] as number;
      where[w] = where[w + 1] as number;
    }
  }
  const goal = Math.min(need, top);
  const chosen = new Map<number, RentalOption>();
  const same = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));
  if (Number.isFinite(atLeast[goal] as number)) {
    let w = where[goal] as number;
    for (let i = items.length - 1; i >= 0 && w > 0; i -= 1) {
      const item = items[i] as OracleItem;
      const prev = layers[i] as Float64Array;
      const here = (layers[i + 1] as Float64Array)[w] as number;
      if (same(prev[w] as number, here)) continue;
      search: for (const o of item.options) {
        const p = Math.max(0, Math.floor(o.proofs));
        const lowest = w === top ? Math.max(0, top - p) : w - p;
        const highest = w === top ? top : w - p;
        for (let x = lowest; x <= highest; x += 1) {
          if (x >= 0 && same((prev[x] as number) + o.cost, here)) {
            chosen.set(item.offerId, o);
            w = x;
            break search;
          }
        }
      }
    }
  }
  return {
    cost: atLeast[goal] as number,
    chosen,
    costFor: (proofs) => atLeast[Math.max(0, Math.min(top, Math.ceil(proofs)))] as number,
  };
}

/** Options of {@link fleetOracle}. */
export interface FleetOracleOptions {
  /** Hours of the day. Default 24. */
  hours?: number | undefined;
  /** The target, proofs/hour: the work is target x hours. Default 300. */
  targetProofsPerHour?: number | undefined;
}

/** The yardstick: the cheapest fleet that delivers the day's work, given the truth. */
export interface FleetOracle {
  /** The work held constant: target x hours, proofs. */
  workProofs: number;
  /** The minimum $ of the work. */
  cost: number;
  /** $ per proof of the plan's marginal machine (its dearest per proof): the price of a shortfall. */
  marginalUsdPerProof: number;
  /** The chosen option per offer. */
  plan: Map<number, RentalOption>;
}

/**
 * The minimum-cost fleet that delivers `target x hours` proofs over the day, given the hidden
 * truth (true rates, deaths, degradation, prices, listings, parameter downloads). Each machine
 * is used at most once in the day, as a chain of rentals from a start to an end (re-rented at
 * once when its host dies, each rental paying its download and warmup: the vetting no fleet can
 * avoid; no benchmark, the truth is known). Starts: when listed, or when its price changes.
 * Ends: the day's end, its first death, or when it starts to degrade. Among those options the
 * choice is exact ({@link minCostCover}). The work is a total over the day, not a rate every
 * hour: a relaxation of the fleet's problem, so the yardstick is at or below what any fleet
 * meeting the target every hour could pay.
 */
export function fleetOracle(market: MovingMarket, options: FleetOracleOptions = {}): FleetOracle {
  const hours = options.hours ?? 24;
  const work = Math.round((options.targetProofsPerHour ?? 300) * hours);
  const items: OracleItem[] = [];
  for (const o of market.offers) {
    if (o.quirk === "never-params" || !o.candidate.feasible || !(o.trueProofsPerHour > 0)) continue;
    const opts = rentalOptions(o, hours);
    if (opts.length > 0) items.push({ offerId: o.candidate.offerId, options: opts });
  }
  const solution = minCostCover(items, work);
  // The value function is a staircase (machines come whole), so its slope is no price: the
  // marginal machine's own $ per proof is (the dearest per proof in the optimal plan).
  const perProof = [...solution.chosen.values()].filter((o) => o.proofs > 0).map((o) => o.cost / o.proofs);
  return {
    workProofs: work,
    cost: solution.cost,
    marginalUsdPerProof: perProof.length > 0 ? Math.max(...perProof) : solution.cost / work,
    plan: solution.chosen,
  };
}

/** A machine's rental chains: each start with each end, Pareto-pruned. */
export function rentalOptions(o: MovingOffer, hours: number): RentalOption[] {
  const starts = new Set<number>();
  if (o.listedFromH < hours) starts.add(o.listedFromH);
  const change = o.priceChange?.atH;
  if (change !== undefined && change < hours && listedAt(o, change)) starts.add(change);
  const out: RentalOption[] = [];
  for (const s of starts) {
    const ends = new Set<number>([hours]);
    if (o.degrade !== undefined) ends.add(Math.min(hours, s + o.degrade.afterHours));
    const first = o.lifetimesHours[0] ?? Number.POSITIVE_INFINITY;
    if (s + first < hours) ends.add(s + first);
    for (const e of ends) {
      if (e <= s) continue;
      const { cost, proofs } = chain(o, s, e);
      out.push({
        cost,
        proofs: Math.floor(proofs),
        label: `offer ${o.candidate.offerId} ${s.toFixed(1)}-${e.toFixed(1)} h`,
      });
    }
  }
  // An option dearer than another with as many proofs is never chosen.
  return out.filter(
    (a) =>
      !out.some(
        (b) =>
          b !== a && b.cost <= a.cost && b.proofs >= a.proofs && (b.cost < a.cost || b.proofs > a.proofs),
      ),
  );
}

/** Cost and proofs of renting from `start` to `end`, re-renting at once on each death while listed. */
export function chain(o: MovingOffer, start: number, end: number): { cost: number; proofs: number } {
  let t = start;
  let kept = 0;
  let cost = 0;
  let proofs = 0;
  for (let k = 0; t < end - 1e-9; k += 1) {
    if (k > 0 && !listedAt(o, t)) break;
    const life = o.lifetimesHours[k] ?? Number.POSITIVE_INFINITY;
    const stop = Math.min(end, t + life);
    cost += priceAt(o, t) * (stop - t) + o.paramsUsd;
    const producing = t + o.paramsHours + warmupHours;
    if (producing < stop) proofs += producedBetween(o, kept + (producing - t), stop - producing);
    kept += stop - t;
    t = stop;
    if (k >= o.lifetimesHours.length - 1) break;
  }
  return { cost, proofs };
}

/** Proofs of `hours` of production from `keptHours` kept on, degradation included. */
function producedBetween(o: MovingOffer, keptHours: number, hours: number): number {
  if (o.degrade === undefined) return trueRateAt(o, keptHours) * hours;
  const before = Math.max(0, Math.min(hours, o.degrade.afterHours - keptHours));
  return o.trueProofsPerHour * before + trueRateAt(o, o.degrade.afterHours) * (hours - before);
}

/**
 * What a fleet paid for the day's work, the work held constant: its dollars plus its shortfall
 * priced at the oracle's marginal cost. Proofs beyond the work earn nothing: the operator asked
 * for the target, and the oracle pays for its own excess (machines come whole) in its cost.
 */
export function workConstantCost(dollars: number, proofs: number, oracle: FleetOracle): number {
  return dollars + Math.max(0, oracle.workProofs - proofs) * oracle.marginalUsdPerProof;
}
