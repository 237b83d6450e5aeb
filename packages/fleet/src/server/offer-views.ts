import type { ExcludedOffer, RankedOffer } from "../manager/rank-offers.js";

// The dashboard's (and `cuzkit fleet offers --json`'s) views of the ranked offers and of those
// left out: explicit picks of fields, as every dashboard view.

/**
 * One offer as the dashboard ranks it: every estimate of its rate (the model's prediction, the
 * class-calibrated correction, this machine's measurements), which one the ranking uses, and
 * the price per proof, with the same field names as `cuzkit fleet offers --json`.
 */
export interface OfferView {
  offerId: number;
  machineId: number | null;
  gpuName: string;
  numGpus: number;
  geolocation: string | null;
  /** True: the tuner found a safe config (offers that do not fit are in `excluded`). */
  fits: true;
  /** The tuner's model, uncalibrated, proofs/hour. */
  predictedProofsPerHour: number;
  /** The model corrected by its hardware class's calibration; null before the class is measured. */
  correctedProofsPerHour: number | null;
  /** This machine's measured rate (geometric mean of `measuredRuns` runs); null before a run. */
  measuredProofsPerHour: number | null;
  measuredRuns: number;
  /** Which estimate the ranking uses. */
  source: "measured" | "corrected" | "predicted";
  /** That estimate, proofs/hour. */
  estimateProofsPerHour: number;
  dphPerHour: number;
  /** $ per 1000 proofs at the estimate, reliability included. */
  costPer1000: number;
  /** $ per 1000 proofs at the optimistic estimate (the sort key). */
  optimisticCostPer1000: number;
  /** Chance the rental survives, 0..1. */
  reliability: number;
  /** Unmeasured, and its best case beats the best measured machine. */
  worthTrying: boolean;
  /** The rate it must measure to be kept (the floor, or its $/h over the $ per 1000 proofs ceiling). */
  keepMinimumProofsPerHour: number;
  /** Rented at a bid (interruptible): dphPerHour is the bid, and reliability carries the preemption rate. */
  interruptible: boolean;
}

/** An offer the ranking left out, with why (it does not fit, or its machine is excluded). */
export interface ExcludedOfferView {
  offerId: number;
  machineId: number | null;
  gpuName: string;
  numGpus: number;
  fits: false;
  reason: string;
}

/** The dashboard's view of a ranked offer. */
export function offerView(ranked: RankedOffer): OfferView {
  const r = ranked.ranking;
  return {
    offerId: ranked.offer.id,
    machineId: ranked.offer.machineId ?? null,
    gpuName: ranked.offer.gpuName,
    numGpus: ranked.offer.numGpus,
    geolocation: ranked.offer.geolocation ?? null,
    fits: true,
    predictedProofsPerHour: r.predictedProofsPerHour,
    correctedProofsPerHour: r.correctedProofsPerHour ?? null,
    measuredProofsPerHour: r.measured?.proofsPerHour ?? null,
    measuredRuns: r.measured?.runs ?? 0,
    source: r.source,
    estimateProofsPerHour: r.estimateProofsPerHour,
    dphPerHour: r.candidate.dphTotal,
    costPer1000: r.costPer1000,
    optimisticCostPer1000: r.optimisticCostPer1000,
    reliability: r.reliability,
    worthTrying: r.worthTrying,
    keepMinimumProofsPerHour: r.keepMinimumProofsPerHour,
    interruptible: r.candidate.interruptible === true,
  };
}

/** The dashboard's view of an offer left out. */
export function excludedOfferView(excluded: ExcludedOffer): ExcludedOfferView {
  return {
    offerId: excluded.offer.id,
    machineId: excluded.offer.machineId ?? null,
    gpuName: excluded.offer.gpuName,
    numGpus: excluded.offer.numGpus,
    fits: false,
    reason: excluded.reason,
  };
}
