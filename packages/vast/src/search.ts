import { type CallOptions, malformedResponse } from "./call.js";
import { isObject } from "./guards.js";
import { buildOfferQuery, type OfferQuery } from "./offer-query.js";
import { normaliseOffer, type VastOffer } from "./offers.js";
import type { Transport } from "./transport.js";

/** Offer search over a transport: the query, and the single-offer look-up a create re-checks with. */
export function searchApi(transport: Transport) {
  async function searchOffers(query: OfferQuery = {}, call: CallOptions = {}): Promise<VastOffer[]> {
    const path = "/api/v0/bundles/";
    const body = await transport.request({
      endpoint: "searchOffers",
      method: "POST",
      path,
      body: buildOfferQuery(query),
      idempotent: true, // a search changes nothing
      signal: call.signal,
      timeoutMs: call.timeoutMs,
    });
    if (!isObject(body) || !Array.isArray(body.offers))
      throw malformedResponse("POST", path, 'expected {"offers": [...]}');
    const offers: VastOffer[] = [];
    let skipped = 0;
    for (const record of body.offers) {
      const offer = normaliseOffer(record);
      if (offer === undefined) skipped++;
      else offers.push(offer);
    }
    if (skipped > 0) {
      transport.logger.warn(
        "vast search skipped offers missing id, gpu_name, num_gpus, gpu_ram, cpu_ram or dph_total",
        { skipped },
      );
    }
    return offers;
  }

  /**
   * The offer with this id if it can be rented now (rentable and, unless `allowRented` for a
   * bid that may outbid the current tenant, not rented), else undefined. Verified or not.
   */
  async function findRentableOffer(
    offerId: number,
    call: CallOptions & { allowRented?: boolean | undefined } = {},
  ): Promise<VastOffer | undefined> {
    const offers = await searchOffers(
      {
        filters: { id: offerId },
        defaults: { verified: "any", rentable: true, rented: call.allowRented === true ? "any" : false },
        limit: 1,
      },
      call,
    );
    return offers.find((offer) => offer.id === offerId);
  }

  return { searchOffers, findRentableOffer };
}
