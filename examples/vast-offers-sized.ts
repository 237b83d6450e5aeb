// Search Vast.ai offers and size each one before renting: predicted proofs/hour and proofs
// per dollar from the tuner's model, using the RAM and CPU share the offer really gives.
//   VAST_API_KEY=... npx tsx examples/vast-offers-sized.ts
import { recommend } from "@cuzkit/tuner";
import { createVastClient, offerHardware } from "@cuzkit/vast";

const vast = createVastClient(); // key from VAST_API_KEY or the vastai key file; VAST_URL for another server
const offers = await vast.searchOffers({
  filters: { numGpus: { gte: 1 }, cpuRamBytes: { gte: "128GiB" } },
  order: [["dphTotal", "asc"]],
  limit: 20,
  allocatedStorageGb: 200, // parameters need ~200 GB of disk
});

const rows = offers.map((offer) => {
  const tuned = recommend(offerHardware(offer), { dialect: "budget" });
  const perHour = tuned.feasible ? tuned.predicted.proofsPerHour : 0;
  return {
    offer: offer.id,
    gpus: `${offer.numGpus}x ${offer.gpuName}`,
    ramGiB: Math.round(offer.cpuRamBytes / 2 ** 30),
    dollarsPerHour: offer.dphTotal,
    proofsPerHour: Number(perHour.toFixed(1)),
    proofsPerDollar: Number((perHour / offer.dphTotal).toFixed(1)),
  };
});
rows.sort((a, b) => b.proofsPerDollar - a.proofsPerDollar);
console.table(rows); // a prediction: rent the best few, then let `cuzkit bench` decide
