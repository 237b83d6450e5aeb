import type { VastOffer } from "@cuzkit/vast";
import { modelledDeadlineInputs } from "../modelled-durations.js";
import type { ResolvedFleetConfig } from "./config.js";
import { snapshotOffer } from "./deploy.js";

/** An offer with the model's rate and price per proof. */
export interface RankedOffer {
  offer: VastOffer;
  /** The tuner's modelled proofs/hour on this offer. */
  modelledProofsPerHour: number;
  /** Modelled proofs/hour per $/hour. */
  proofsPerDollar: number;
}

/**
 * Ranks offers by modelled proofs/hour per dollar, best first, leaving out excluded machines
 * and offers the tuner finds no safe config for. Offers the model expects to reach the
 * minimum come before those it does not (the benchmark still decides).
 */
export function rankOffers(
  offers: readonly VastOffer[],
  config: ResolvedFleetConfig,
  isExcluded: (machineId: number) => boolean,
): RankedOffer[] {
  const ranked: RankedOffer[] = [];
  for (const offer of offers) {
    if (offer.machineId !== undefined && isExcluded(offer.machineId)) continue;
    const modelled = modelledDeadlineInputs(snapshotOffer(offer), { dialect: config.dialect });
    if (!modelled.feasible || offer.dphTotal <= 0) continue;
    ranked.push({
      offer,
      modelledProofsPerHour: modelled.modelledProofsPerHour,
      proofsPerDollar: modelled.modelledProofsPerHour / offer.dphTotal,
    });
  }
  const reaches = (r: RankedOffer) => (r.modelledProofsPerHour >= config.minProofsPerHour ? 1 : 0);
  return ranked.sort((a, b) => reaches(b) - reaches(a) || b.proofsPerDollar - a.proofsPerDollar);
}
