import { UnsafeConfigError } from "../errors.js";
import type { Recommendation } from "../recommend.js";

/** Options every emitter takes. */
export interface EmitOptions {
  /** Emit even when no config fits (the model then expects an OOM kill). Default false. */
  force?: boolean;
}

/** Throws UnsafeConfigError when the recommendation is infeasible and `force` is not set. */
export function assertEmittable(recommendation: Recommendation, options: EmitOptions = {}): void {
  if (recommendation.feasible || options.force === true) return;
  const p = recommendation.predicted;
  const phase = p.phasePeakBytes.warmup > p.peakMemoryBytes ? "warmup" : p.governingPhase;
  throw new UnsafeConfigError({
    peakBytes: Math.max(p.peakMemoryBytes, p.phasePeakBytes.warmup),
    phase,
    usableRamBytes: p.usableRamBytes,
    marginBytes: p.safetyMarginBytes,
    reason: recommendation.infeasibleReason ?? "the model expects an OOM kill",
  });
}

/** The header line a forced, unsafe config carries. */
export function forcedNotice(recommendation: Recommendation): string | undefined {
  if (recommendation.feasible) return undefined;
  const p = recommendation.predicted;
  return (
    `FORCED: the model expects this config to exceed the usable RAM: peak ${(p.peakMemoryBytes / 2 ** 30).toFixed(1)} GiB ` +
    `(${p.governingPhase}) vs ${(p.usableRamBytes / 2 ** 30).toFixed(1)} GiB usable, ${(p.safetyMarginBytes / 2 ** 30).toFixed(1)} GiB margin`
  );
}
