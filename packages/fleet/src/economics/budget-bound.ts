import type { RankedCandidate } from "./ranking.js";
import type { FleetDecision, FleetMember, FleetTarget } from "./run-planner.js";

/** Why a plan leaves the fleet under target because of its $/h cap (for the budget alert). */
export interface BudgetBound {
  /** The fleet's $/h once the plan is carried out. */
  dphPerHour: number;
  /** The cap. */
  maxDph: number;
  /** What the fleet reaches once the plan is carried out (proofs/hour, or instances). */
  capacity: number;
  /** The target's figure in the same unit. */
  goal: number;
  /** The cheapest offer left out, $/h. */
  cheapestLeftOutDph: number;
}

/**
 * Whether the $/h cap is what keeps a plan under target: after its rents and destroys the fleet
 * is still short, and the best-ranked offer left out would pass the cap. Undefined when there is
 * no cap, the fleet reaches its target, or no offer is left to rent.
 */
export function budgetBound(input: {
  members: readonly FleetMember[];
  decisions: readonly FleetDecision[];
  ranked: readonly RankedCandidate[];
  target: FleetTarget;
  maxDph: number | undefined;
}): BudgetBound | undefined {
  const { maxDph } = input;
  if (maxDph === undefined) return undefined;
  const byRate = input.target.instances === undefined;
  const goal = (byRate ? input.target.proofsPerHour : input.target.instances) ?? 0;
  const destroyed = new Set(input.decisions.flatMap((d) => (d.action === "destroy" ? [d.instanceId] : [])));
  const rents = input.decisions.flatMap((d) => (d.action === "rent" ? [d.candidate] : []));
  const staying = input.members.filter((m) => !destroyed.has(m.instanceId));
  const capacity =
    staying.reduce((s, m) => s + (byRate ? m.proofsPerHour : 1), 0) +
    rents.reduce((s, c) => s + (byRate ? c.estimateProofsPerHour : 1), 0);
  if (capacity >= goal - 1e-9) return undefined;
  const dphPerHour =
    staying.reduce((s, m) => s + m.dphPerHour, 0) + rents.reduce((s, c) => s + c.candidate.dphTotal, 0);
  const rented = new Set(rents.map((c) => c.candidate.offerId));
  const leftOut = input.ranked.filter((c) => !rented.has(c.candidate.offerId));
  if (leftOut.length === 0) return undefined;
  const cheapestLeftOutDph = Math.min(...leftOut.map((c) => c.candidate.dphTotal));
  if (dphPerHour + cheapestLeftOutDph <= maxDph + 1e-9) return undefined;
  return { dphPerHour, maxDph, capacity, goal, cheapestLeftOutDph };
}
