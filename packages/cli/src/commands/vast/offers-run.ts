// What `cuzkit vast offers` does once its flags are parsed: build the query from them, search,
// and print the offers with the tuner's prediction for each.
import { InvalidInputError, parseByteSize, type WorkloadPreset } from "@cuzkit/core";
import { recommend } from "@cuzkit/tuner";
import {
  type OfferField,
  type OfferFilters,
  type OfferQuery,
  type OfferType,
  offerFields,
  offerHardware,
  parseOfferQuery,
  type VastOffer,
} from "@cuzkit/vast";
import type { Command } from "commander";
import { colourEnabled } from "../../colour.js";
import { parsePositiveNumber, parseWholeNumber } from "../../parse.js";
import type { VastContext } from "./context.js";
import { type OfferPrediction, offersTable } from "./format.js";
import type { OffersFlags } from "./offers.js";

/** `cuzkit vast offers`'s action: search with the query the flags make, print the offers (table or JSON). */
export async function runOffers(ctx: VastContext, opts: OffersFlags, command: Command): Promise<void> {
  const query = offerQueryFromFlags(opts);
  const client = await ctx.client(command);
  const offers = await client.searchOffers(query);
  const predictions =
    opts.workload === "none"
      ? undefined
      : offers.map((o) => predictOffer(o, opts.workload as WorkloadPreset));
  if (opts.json) {
    ctx.printJson(predictions ? offers.map((o, i) => ({ ...o, prediction: predictions[i] })) : offers);
  } else if (offers.length === 0) {
    ctx.print(noOffersText(query));
  } else ctx.print(offersTable(offers, predictions, colourEnabled(ctx.io.stdout, ctx.io.env)));
}

/**
 * The tuner's prediction for an offer: `recommend()` on the offer's hardware (the same
 * conversion `cuzkit tune` sees on the rented machine), and the $/h spread over the proofs.
 */
export function predictOffer(offer: VastOffer, workload: WorkloadPreset): OfferPrediction {
  const recommendation = recommend(offerHardware(offer), { workload });
  const proofsPerHour = recommendation.feasible ? recommendation.predicted.proofsPerHour : 0;
  return {
    fits: recommendation.feasible,
    proofsPerHour,
    usdPerThousandProofs: proofsPerHour > 0 ? (offer.dphTotal / proofsPerHour) * 1000 : undefined,
  };
}

function noOffersText(query: OfferQuery): string {
  const gpu = query.filters?.gpuName;
  return gpu === undefined
    ? "no offers match"
    : 'no offers match; GPU names are as Vast.ai writes them, such as "RTX 4090", "H100 SXM" or "A100 SXM4" (see `cuzkit vast offers --limit 50`)';
}

/** Maps `--order dph_total:asc,reliability` (API or our field names) to the query's order. */
function parseOrder(text: string): [OfferField, "asc" | "desc"][] {
  const byApiName = new Map<string, OfferField>(
    Object.entries(offerFields).map(([name, field]) => [field.api, name as OfferField]),
  );
  return text.split(",").map((part) => {
    // FIELD[:asc|desc], or vast-cli's FIELD- (descending) and FIELD+ (vastai/cli/commands/offers.py).
    const suffix = /^(.+?)([+-])$/.exec(part.trim());
    const spelled = suffix ? `${suffix[1]}:${suffix[2] === "-" ? "desc" : "asc"}` : part.trim();
    const [rawName = "", rawDirection = "asc"] = spelled.split(":");
    const name = (rawName in offerFields ? rawName : byApiName.get(rawName)) as OfferField | undefined;
    const direction = rawDirection.toLowerCase();
    if (name === undefined || (direction !== "asc" && direction !== "desc")) {
      throw new InvalidInputError(`cannot sort by "${part}"`, {
        hint: 'write FIELD[:asc|desc] with an offer column, such as "dph_total" or "reliability:desc"',
      });
    }
    return [name, direction];
  });
}

/** GPU names as people and vast-cli write them: "RTX 4090" or RTX_4090. */
function gpuNames(text: string): string[] {
  return text
    .split(",")
    .map((name) => name.replace(/_/g, " ").replace(/\s+/g, " ").trim())
    .filter((name) => name !== "");
}

/** The typed query from `--query` and the flags (flags win on the same field). */
export function offerQueryFromFlags(opts: OffersFlags): OfferQuery {
  const parsed = opts.query === undefined ? undefined : parseOfferQuery(opts.query);
  const filters: OfferFilters = { ...parsed?.filters };
  if (opts.gpu !== undefined) {
    const names = gpuNames(opts.gpu);
    if (names.length === 0)
      throw new InvalidInputError("--gpu is empty", { hint: 'such as --gpu "RTX 4090"' });
    filters.gpuName = names.length === 1 ? names[0]! : { in: names };
  }
  if (opts.numGpus !== undefined)
    filters.numGpus = parseWholeNumber(opts.numGpus, { what: "--num-gpus", example: "2" });
  if (opts.minRam !== undefined)
    filters.cpuRamBytes = { gte: parseByteSize(opts.minRam, { requireUnit: true, what: "--min-ram" }) };
  if (opts.minGpuRam !== undefined) {
    filters.gpuRamBytes = {
      gte: parseByteSize(opts.minGpuRam, { requireUnit: true, what: "--min-gpu-ram" }),
    };
  }
  if (opts.minCpus !== undefined)
    filters.cpuCoresEffective = {
      gte: parsePositiveNumber(opts.minCpus, { what: "--min-cpus", example: "32" }),
    };
  if (opts.maxPrice !== undefined)
    filters.dphTotal = { lte: parsePositiveNumber(opts.maxPrice, { what: "--max-price", example: "1.5" }) };
  if (opts.minReliability !== undefined) {
    const value = Number(opts.minReliability);
    if (!(value >= 0 && value <= 1)) {
      throw new InvalidInputError(`--min-reliability must be within 0..1, got "${opts.minReliability}"`, {
        hint: "such as 0.98",
      });
    }
    filters.reliability = { gte: value };
  }
  if (opts.minCuda !== undefined)
    filters.cudaMaxGood = { gte: parsePositiveNumber(opts.minCuda, { what: "--min-cuda", example: "12.4" }) };
  return {
    filters,
    raw: parsed?.raw,
    order: parseOrder(opts.order),
    limit: parseWholeNumber(opts.limit, { what: "--limit", example: "20" }),
    type: opts.type as OfferType,
    allocatedStorageGb: parsePositiveNumber(opts.disk, { what: "--disk", example: "50" }),
    defaults: opts.includeUnverified ? { ...parsed?.defaults, verified: "any" } : parsed?.defaults,
  };
}
