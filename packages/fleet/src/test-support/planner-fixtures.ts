import {
  noKnowledge,
  type RankCandidate,
  type RankedCandidate,
  rankCandidates,
} from "../economics/ranking.js";
import type { FleetMember } from "../economics/run-planner.js";

// Inputs of the run planner's tests: offers ranked on the model alone, and fleet members.

/** Offers `[offerId, proofsPerHour, $/h]`, ranked with no knowledge (minimum 20 proofs/h, no optimism). */
export const rankedOffers = (...specs: Array<[number, number, number]>): RankedCandidate[] =>
  rankCandidates(
    specs.map(
      ([offerId, pph, dph]): RankCandidate => ({
        offerId,
        machineId: offerId,
        hostId: undefined,
        classKey: `c${offerId}`,
        dphTotal: dph,
        predictedProofsPerHour: pph,
        feasible: true,
        marketReliability: undefined,
      }),
    ),
    noKnowledge,
    { minProofsPerHour: 20, optimism: 0 },
  ).ranked;

/** A kept machine at a measured rate and price. */
export const activeMember = (instanceId: string, proofsPerHour: number, dphPerHour: number): FleetMember => ({
  instanceId,
  stage: "active",
  proofsPerHour,
  dphPerHour,
});

/** A machine still vetting, at its estimated rate. */
export const vettingMember = (
  instanceId: string,
  proofsPerHour: number,
  dphPerHour: number,
): FleetMember => ({
  ...activeMember(instanceId, proofsPerHour, dphPerHour),
  stage: "vetting",
});
