/// <reference lib="dom" />
import type { ExcludedOfferView, OfferView } from "../server/dashboard-views.js";
import { ApiError, getJson } from "./api.js";
import { el, formatNumber, replaceChildren, table } from "./dom.js";

// The fleet page's ranked offers panel: the offers with their proofs/hour overlay, as
// `cuzkit fleet offers` prints it, and those left out. Fetched on its own interval.

type OfferEstimate = OfferView["source"];

/** A rate cell of the offers overlay; the estimate the ranking uses is marked. */
function rateCell(
  value: number | null,
  estimate: OfferEstimate,
  used: OfferEstimate,
  suffix = "",
): HTMLElement {
  return el(
    "td",
    { class: estimate === used ? "num used" : "num", "data-estimate": estimate },
    value === null ? "–" : `${formatNumber(value)}${suffix}`,
  );
}

/** One ranked offer's row. */
function offerRow(o: OfferView): HTMLTableRowElement {
  return el(
    "tr",
    { "data-offer-id": String(o.offerId), "data-source": o.source },
    el("td", {}, String(o.offerId)),
    el("td", {}, o.machineId === null ? "–" : String(o.machineId)),
    el("td", {}, `${o.numGpus}× ${o.gpuName}`),
    el("td", {}, o.geolocation ?? "–"),
    el("td", { class: "fits" }, "yes"),
    rateCell(o.predictedProofsPerHour, "predicted", o.source),
    rateCell(o.correctedProofsPerHour, "corrected", o.source),
    rateCell(
      o.measuredProofsPerHour,
      "measured",
      o.source,
      o.measuredProofsPerHour === null ? "" : ` (${o.measuredRuns})`,
    ),
    el("td", { class: "source" }, o.source),
    el("td", { class: "num" }, `${formatNumber(o.dphPerHour, 3)}${o.interruptible ? " (bid)" : ""}`),
    el("td", { class: "num cost" }, formatNumber(o.costPer1000, 2)),
    el("td", { class: "num" }, formatNumber(o.reliability, 2)),
    el("td", { class: "num keep-at" }, formatNumber(o.keepMinimumProofsPerHour)),
    el("td", { class: "muted" }, o.worthTrying ? "worth trying" : ""),
  );
}

const offerHeadings = [
  "Offer",
  "Machine",
  "GPUs",
  "Where",
  "Fits",
  "Predicted (model)",
  "Corrected (class)",
  "Measured (runs)",
  "Used",
  "$/h",
  "$ per 1000 proofs",
  "Reliability",
  "Kept at (proofs/h)",
  "",
];

/** The offers left out of the ranking, with why. */
function excludedOffers(excluded: ExcludedOfferView[]): Node[] {
  return [
    el("h3", {}, `Left out (${excluded.length})`),
    table(
      ["Offer", "Machine", "GPUs", "Fits", "Why"],
      excluded.map((x) =>
        el(
          "tr",
          { "data-offer-id": String(x.offerId) },
          el("td", {}, String(x.offerId)),
          el("td", {}, x.machineId === null ? "–" : String(x.machineId)),
          el("td", {}, `${x.numGpus}× ${x.gpuName}`),
          el("td", { class: "fits" }, "no"),
          el("td", { class: "muted" }, x.reason),
        ),
      ),
      { id: "excluded-offers-table" },
    ),
  ];
}

/** The ranked offers with their overlay, as `cuzkit fleet offers` prints it, and those left out. */
function offersOverlay(ranked: { offers: OfferView[]; excluded: ExcludedOfferView[] }): Node[] {
  const out: Node[] = [
    table(offerHeadings, ranked.offers.map(offerRow), { id: "offers-table" }),
    el(
      "p",
      { class: "muted" },
      "Proofs/hour: the tuner's model, corrected by its hardware class's benchmarks, and measured on this very machine; the ranking uses the best-informed one (bold). $ per 1000 proofs includes the reliability. Kept at: the rate an offer must measure to be kept (the fleet's minimum, or its price over the $ per 1000 proofs ceiling).",
    ),
  ];
  if (ranked.excluded.length > 0) out.push(...excludedOffers(ranked.excluded));
  return out;
}

/** Fetches the ranked offers and renders them into `offers` (or why they are unavailable). */
export async function loadOffers(offers: HTMLElement): Promise<void> {
  try {
    const ranked = await getJson<{ offers: OfferView[]; excluded: ExcludedOfferView[] }>("/api/offers");
    replaceChildren(offers, ...offersOverlay(ranked));
  } catch (error) {
    replaceChildren(
      offers,
      el("p", { class: "muted" }, error instanceof ApiError ? error.message : "offers unavailable"),
    );
  }
}
