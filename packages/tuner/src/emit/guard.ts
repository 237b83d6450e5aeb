import { UnsafeConfigError, unsafeConfigMessage } from "../errors.js";
import type { Recommendation } from "../recommend.js";

/** Options every emitter takes. */
export interface EmitOptions {
  /** Emit even when no config fits (the model then expects an OOM kill). Default false. */
  force?: boolean | undefined;
}

/**
 * Throws UnsafeConfigError when the recommendation is infeasible and `force` is not set, and
 * also with `force` when not even a config with the margin waived fits the usable RAM.
 */
export function assertEmittable(recommendation: Recommendation, options: EmitOptions = {}): void {
  if (recommendation.feasible) return;
  const force = options.force === true;
  if (force && recommendation.forceable) return;
  const p = recommendation.predicted;
  const phase = p.phasePeakBytes.warmup > p.peakMemoryBytes ? "warmup" : p.governingPhase;
  const details = {
    peakBytes: Math.max(p.peakMemoryBytes, p.phasePeakBytes.warmup),
    phase,
    usableRamBytes: p.usableRamBytes,
    marginBytes: p.safetyMarginBytes,
    reason: recommendation.infeasibleReason ?? "the model expects an OOM kill",
    forceRefused: force || !recommendation.forceable,
  };
  throw new UnsafeConfigError(unsafeConfigMessage(details), details);
}

/** The header line a forced, unsafe config carries. */
export function forcedNotice(recommendation: Recommendation): string | undefined {
  if (recommendation.feasible) return undefined;
  const p = recommendation.predicted;
  const peak = Math.max(p.peakMemoryBytes, p.phasePeakBytes.warmup);
  return (
    `FORCED: no config fits with the ${(p.safetyMarginBytes / 2 ** 30).toFixed(1)} GiB safety margin; this one waives it: ` +
    `modelled peak ${(peak / 2 ** 30).toFixed(1)} GiB (${p.governingPhase}) of ${(p.usableRamBytes / 2 ** 30).toFixed(1)} GiB usable, ` +
    `${((p.usableRamBytes - peak) / 2 ** 30).toFixed(1)} GiB to spare. Watch the first proofs' memory`
  );
}
