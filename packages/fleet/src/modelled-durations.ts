import type { DaemonDialect } from "@cuzkit/core";
import { recommend } from "@cuzkit/tuner";
import type { DeadlineInputs } from "./deadlines.js";
import { fleetDefaults } from "./defaults.js";
import type { OfferSnapshot } from "./store/records.js";

/** Options of {@link modelledDeadlineInputs}. */
export interface ModelledDurationOptions {
  /** Timed proofs the agent's benchmark runs. Default 12 (as the incidents' benchmark). */
  benchmarkProofs?: number | undefined;
  /** The daemon dialect the agent tunes for. Default "budget". */
  dialect?: DaemonDialect | undefined;
  /** Compressed image size, bytes. Default fleetDefaults.imageBytes (12 GiB). */
  imageBytes?: number | undefined;
  /** Parameter bytes the agent fetches. Default fleetDefaults.paramsBytes (47 GiB). */
  paramsBytes?: number | undefined;
}

/** The deadline inputs for an offer, with the tuner's modelled durations; `feasible` false when the tuner finds no safe config. */
export function modelledDeadlineInputs(
  offer: OfferSnapshot,
  options: ModelledDurationOptions = {},
): DeadlineInputs & { feasible: boolean; modelledProofsPerHour: number } {
  const recommendation = recommend(offer.hardware, { dialect: options.dialect ?? "budget" });
  const predicted = recommendation.predicted;
  return {
    feasible: recommendation.feasible,
    modelledProofsPerHour: predicted.proofsPerHour,
    inetDownMbps: offer.inetDownMbps,
    imageBytes: options.imageBytes ?? fleetDefaults.imageBytes,
    paramsBytes: options.paramsBytes ?? fleetDefaults.paramsBytes,
    warmupProofSec: recommendation.warmup.firstProofSec,
    secPerProof: predicted.secPerProof,
    proofLatencySec: predicted.proofLatencySec,
    benchmarkProofs: options.benchmarkProofs ?? 12,
    restartAfterWarmup: recommendation.warmup.restart,
  };
}
