import { toCuzkitError } from "@cuzkit/core";
import type { OfferQuery } from "@cuzkit/vast";
import { knowledgeFromStore } from "../economics/knowledge.js";
import { FleetBudgetError, FleetOfferRefusedError } from "../errors.js";
import type { InstanceRecord } from "../store/records.js";
import type { ManagerContext } from "./context.js";
import { type DeployOptions, deployOffer } from "./deploy.js";
import { exclusionPolicyOf } from "./evidence.js";
import { type ExcludedOffer, type RankedOffer, rankVastOffers } from "./rank-offers.js";

/** A search's offers ranked (with the store's knowledge and exclusions), and those left out. */
export async function rankAllOffers(
  ctx: ManagerContext,
  query: OfferQuery = {},
): Promise<{ ranked: RankedOffer[]; excluded: ExcludedOffer[] }> {
  const offers = await ctx.vast.searchOffers({ allocatedStorageGb: ctx.config.diskGb, ...query });
  return rankVastOffers(
    offers,
    ctx.config,
    await knowledgeFromStore(ctx.store, ctx.clock.now(), exclusionPolicyOf(ctx)),
  );
}

/** Rents one offer by id; FleetOfferRefusedError when it is no longer offered. */
export async function deployOfferById(
  ctx: ManagerContext,
  offerId: number,
  deployOptions?: DeployOptions,
): Promise<InstanceRecord> {
  const [offer] = await ctx.vast.searchOffers({
    filters: { id: offerId },
    allocatedStorageGb: ctx.config.diskGb,
  });
  if (offer === undefined) {
    throw new FleetOfferRefusedError(
      `offer ${offerId} is not offered (rented by someone else, or not verified and rentable)`,
      { hint: "pick a current offer: cuzkit vast offers, or cuzkit fleet deploy --best N" },
    );
  }
  return deployOffer(ctx, offer, deployOptions);
}

/**
 * Rents the `count` best-ranked offers: an offer that fails is skipped; the budget stops the
 * run (thrown when nothing was rented yet).
 */
export async function deployBestOffers(
  ctx: ManagerContext,
  count: number,
  query?: OfferQuery,
): Promise<InstanceRecord[]> {
  const deployed: InstanceRecord[] = [];
  for (const ranked of (await rankAllOffers(ctx, query)).ranked) {
    if (deployed.length >= count) break;
    try {
      deployed.push(await deployOffer(ctx, ranked.offer));
    } catch (error) {
      if (error instanceof FleetBudgetError) {
        if (deployed.length === 0) throw error;
        break;
      }
      ctx.logger.warn("fleet skipped an offer", {
        offerId: ranked.offer.id,
        code: toCuzkitError(error).code,
      });
    }
  }
  return deployed;
}
