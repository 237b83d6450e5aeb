import type { RankedCandidate } from "./ranking.js";

/** One machine of the running fleet, as the planner sees it. */
export interface FleetMember {
  instanceId: string;
  /** `vetting` from renting to the benchmark's verdict; `active` once kept. */
  stage: "vetting" | "active";
  /** Price, $/hour. */
  dphPerHour: number;
  /** Measured proofs/hour when active; the ranking's point estimate while vetting. */
  proofsPerHour: number;
}

/** What the fleet keeps: a total rate or a number of machines. Exactly one is set. */
export interface FleetTarget {
  proofsPerHour?: number | undefined;
  instances?: number | undefined;
}

/** Inputs of `planFleetStep`. */
export interface FleetPlanInput {
  members: readonly FleetMember[];
  /** Offers best first (the ranking's order), leaving out those already rented. */
  ranked: readonly RankedCandidate[];
  target: FleetTarget;
  /** Cap on $/hour of all machines together; none when undefined. */
  maxDph?: number | undefined;
  /** Machines vetting at once, at most. Default 2. */
  maxVetting?: number | undefined;
  /** An active machine is replaced only when a candidate's optimistic cost beats its cost by this factor. Default 1.25. */
  replaceMargin?: number | undefined;
  /**
   * Rank what to rent under target by $ per *useful* proof: a machine's rate counts only up to
   * what the fleet still needs, so the last gap is filled by a machine its size, not by a big
   * one whose excess is paid for and wasted. Default false (the ranking's order).
   */
  usefulRate?: boolean | undefined;
}

/** The next offer to rent under target: the ranking's first that fits, or the cheapest per useful proof. */
function nextToRent(
  ranked: readonly RankedCandidate[],
  chosen: ReadonlySet<RankedCandidate>,
  need: number,
  fits: (c: RankedCandidate) => boolean,
  useful: boolean,
): RankedCandidate | undefined {
  let best: RankedCandidate | undefined;
  let bestCost = Number.POSITIVE_INFINITY;
  for (const c of ranked) {
    if (chosen.has(c) || !fits(c)) continue;
    if (!useful) return c;
    // The optimistic cost scaled by the share of the machine's rate the fleet can use.
    const rate = c.optimisticProofsPerHour * c.preemptionShare;
    const usable = Math.min(rate, need) / rate;
    const cost = c.optimisticCostPer1000 / Math.max(usable, 1e-9);
    if (cost < bestCost) {
      best = c;
      bestCost = cost;
    }
  }
  return best;
}

/** One decision, with the reason logged for it. */
export type FleetDecision =
  | { action: "rent"; offerId: number; reason: string; candidate: RankedCandidate }
  | { action: "destroy"; instanceId: string; reason: string };

const costOf = (m: FleetMember) => (m.dphPerHour * 1000) / Math.max(m.proofsPerHour, 1e-9);
const money = (x: number) => `$${x.toFixed(2)}`;

function describe(c: RankedCandidate): string {
  return `${c.source} ${c.estimateProofsPerHour.toFixed(1)} proofs/hour at $${c.candidate.dphTotal.toFixed(3)}/h: ${money(c.costPer1000)} per 1000 proofs (optimistic ${money(c.optimisticCostPer1000)})`;
}

/**
 * One step of `cuzkit fleet run`: what to rent and what to destroy now. Pure: the same input
 * gives the same decisions.
 *
 * - Over target, with measured capacity only (a machine still vetting may fail), the active
 *   machine with the highest $ per 1000 proofs is destroyed while the rest still meet it.
 * - Under target, counting vetting machines at their estimate, the best-ranked offers are
 *   rented while the budget allows, at most `maxVetting` vetting at once.
 * - At target, one offer is tried when its optimistic cost beats the dearest active
 *   machine's measured cost by `replaceMargin` and its estimated rate can take the dearest's
 *   place in the target: if it measures well, the over-target rule then destroys the dearer
 *   machine; if not, the benchmark rejects it.
 */
export function planFleetStep(input: FleetPlanInput): FleetDecision[] {
  const { target } = input;
  const maxVetting = input.maxVetting ?? 2;
  const margin = input.replaceMargin ?? 1.25;
  const decisions: FleetDecision[] = [];
  const byRate = target.instances === undefined;
  const goal = (byRate ? target.proofsPerHour : target.instances) ?? 0;
  const amount = (m: FleetMember) => (byRate ? m.proofsPerHour : 1);

  const active = input.members.filter((m) => m.stage === "active");
  const vetting = input.members.filter((m) => m.stage === "vetting");
  let activeCapacity = active.reduce((s, m) => s + amount(m), 0);

  // Over target: drop the dearest per proof while the rest still meet the target.
  const dearestFirst = [...active].sort((a, b) => costOf(b) - costOf(a));
  const kept: FleetMember[] = [];
  for (const m of dearestFirst) {
    if (activeCapacity - amount(m) >= goal - 1e-9) {
      activeCapacity -= amount(m);
      decisions.push({
        action: "destroy",
        instanceId: m.instanceId,
        reason: `over target (${byRate ? `${(activeCapacity + amount(m)).toFixed(1)} proofs/hour` : `${active.length} instances`} for ${goal}): the dearest per proof at ${money(costOf(m))} per 1000 proofs`,
      });
    } else {
      kept.push(m);
    }
  }

  let dph = [...kept, ...vetting].reduce((s, m) => s + m.dphPerHour, 0);
  let capacity = activeCapacity + vetting.reduce((s, m) => s + amount(m), 0);
  let vettingCount = vetting.length;
  const fits = (c: RankedCandidate) =>
    input.maxDph === undefined || dph + c.candidate.dphTotal <= input.maxDph + 1e-9;

  const chosen = new Set<RankedCandidate>();
  while (capacity < goal - 1e-9 && vettingCount < maxVetting) {
    const c = nextToRent(input.ranked, chosen, goal - capacity, fits, input.usefulRate === true && byRate);
    if (c === undefined) break;
    chosen.add(c);
    decisions.push({
      action: "rent",
      offerId: c.candidate.offerId,
      candidate: c,
      reason: `under target (${byRate ? `${capacity.toFixed(1)} proofs/hour` : `${kept.length + vettingCount} instances`} for ${goal}): best ranked, ${describe(c)}`,
    });
    dph += c.candidate.dphTotal;
    // An interruptible rental proves only part of its hours (outbid, it redoes its setup elsewhere).
    capacity += byRate ? c.estimateProofsPerHour * c.preemptionShare : 1;
    vettingCount += 1;
  }

  // At target: try to replace the dearest kept machine, one trial at a time.
  if (capacity >= goal - 1e-9 && vettingCount === 0 && kept.length > 0) {
    const dearest = [...kept].sort((a, b) => costOf(b) - costOf(a))[0] as FleetMember;
    const challenger = input.ranked.find(
      (c) =>
        c.optimisticCostPer1000 * margin < costOf(dearest) &&
        // The trial must be able to take the dearest's place: once it measures as estimated, the
        // rest without the dearest still meets the target, so the over-target rule drops the
        // dearest. A smaller one would be dropped itself (the dearest cannot go), a trial that
        // only ever buys vetting: on the benchmark's markets such loops rented one machine
        // 30 times a day.
        (byRate
          ? activeCapacity - dearest.proofsPerHour + c.estimateProofsPerHour * c.preemptionShare >=
            goal - 1e-9
          : true) &&
        (input.maxDph === undefined || dph + c.candidate.dphTotal <= input.maxDph + 1e-9),
    );
    if (challenger !== undefined) {
      decisions.push({
        action: "rent",
        offerId: challenger.candidate.offerId,
        candidate: challenger,
        reason: `trial to replace ${dearest.instanceId} (${money(costOf(dearest))} per 1000 proofs): ${describe(challenger)}`,
      });
    }
  }
  return decisions;
}
