import { recommend } from "@cuzkit/tuner";
import type { VastOffer } from "@cuzkit/vast";
import { toTunerCalibration } from "../economics/calibration.js";
import { hardwareClassKey } from "../economics/hardware-class.js";
import {
  type ExcludedCandidate,
  type RankCandidate,
  type RankedCandidate,
  type RankingKnowledge,
  type RankingOptions,
  rankCandidates,
} from "../economics/ranking.js";
import { modelledDeadlineInputs } from "../modelled-durations.js";
import type { ResolvedFleetConfig } from "./config.js";
import { snapshotOffer } from "./deploy.js";

/** An offer with every estimate of its rate and its price per proof. */
export interface RankedOffer {
  offer: VastOffer;
  /** The tuner's modelled proofs/hour on this offer (uncalibrated). */
  modelledProofsPerHour: number;
  /** The ranking: the estimates, the one used, $ per 1000 proofs, reliability. */
  ranking: RankedCandidate;
}

/** An offer the ranking left out, with why. */
export interface ExcludedOffer {
  offer: VastOffer;
  reason: string;
}

/** The ranking's view of a Vast offer: its class and the tuner's uncalibrated prediction. */
export function offerCandidate(
  offer: VastOffer,
  config: Pick<ResolvedFleetConfig, "dialect"> & {
    interruptibleBidFactor?: number | undefined;
  },
): RankCandidate {
  const snapshot = snapshotOffer(offer, config.interruptibleBidFactor);
  const modelled = modelledDeadlineInputs(snapshot, { dialect: config.dialect });
  return {
    offerId: offer.id,
    machineId: offer.machineId,
    hostId: offer.hostId,
    classKey: hardwareClassKey(offer),
    dphTotal: snapshot.dphTotal,
    interruptible: snapshot.bidPricePerHour !== undefined,
    predictedProofsPerHour: modelled.modelledProofsPerHour,
    feasible: modelled.feasible,
    marketReliability: offer.reliability,
  };
}

/**
 * Ranks Vast offers with the fleet's one ranking (`rankCandidates`): by $ per 1000
 * proofs at the optimistic estimate, measured machines at their measurements, unmeasured ones
 * corrected by their class's calibration through the tuner's `calibration` input. Used by
 * `fleet deploy --best`, `fleet offers` and `fleet run`.
 */
export function rankVastOffers(
  offers: readonly VastOffer[],
  config: ResolvedFleetConfig,
  knowledge: RankingKnowledge,
  options: Omit<RankingOptions, "minProofsPerHour" | "maxUsdPer1000Proofs" | "correct"> = {},
): { ranked: RankedOffer[]; excluded: ExcludedOffer[] } {
  const byId = new Map(offers.map((o) => [o.id, o]));
  const candidates = offers.map((o) => offerCandidate(o, config));
  const { ranked, excluded } = rankCandidates(candidates, knowledge, {
    ...options,
    minProofsPerHour: config.minProofsPerHour,
    maxUsdPer1000Proofs: config.maxUsdPer1000Proofs,
    correct: (candidate, calibration) => {
      const offer = byId.get(candidate.offerId) as VastOffer;
      return recommend(snapshotOffer(offer).hardware, {
        dialect: config.dialect,
        calibration: toTunerCalibration(calibration),
      }).predicted.proofsPerHour;
    },
  });
  return {
    ranked: ranked.map((r) => ({
      offer: byId.get(r.candidate.offerId) as VastOffer,
      modelledProofsPerHour: r.predictedProofsPerHour,
      ranking: r,
    })),
    excluded: excluded.map((e: ExcludedCandidate) => ({
      offer: byId.get(e.candidate.offerId) as VastOffer,
      reason: e.reason,
    })),
  };
}
