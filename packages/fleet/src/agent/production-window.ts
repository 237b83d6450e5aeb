import type { ThroughputBody } from "../protocol/requests.js";

/** A reading of the daemon's `cuzk_proofs_completed_total` and when it was taken (epoch ms). */
export interface CompletedReading {
  total: number;
  at: number;
}

/** Shortest window worth reporting (the manager refuses less than a minute). */
export const minProductionWindowMs = 60_000;

/**
 * The production report between two readings of the completed-proofs counter, or undefined
 * when there is nothing to report: no earlier reading, a window under a minute, or a counter
 * that went back (the daemon restarted: the next window starts from the new reading).
 */
export function productionWindow(
  previous: CompletedReading | undefined,
  current: CompletedReading,
): ThroughputBody | undefined {
  if (previous === undefined) return undefined;
  const windowMs = Math.round(current.at - previous.at);
  const proofs = current.total - previous.total;
  if (windowMs < minProductionWindowMs || proofs < 0 || !Number.isInteger(proofs)) return undefined;
  return { proofs, windowMs: Math.min(windowMs, 86_400_000) };
}
