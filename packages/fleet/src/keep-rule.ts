/**
 * The keep rule: which measured rate keeps a machine. An operator states it as a floor in
 * proofs/hour (`--min-proofs-per-hour`), as a price ceiling in $ per 1000 proofs
 * (`--max-usd-per-1000-proofs`, "it pays for itself": the incidents' own manager derived its
 * minimum from the price the same way), or both (a machine must clear both).
 *
 * A price ceiling turns into a floor per machine: at `dph` $/hour a machine meets
 * `maxUsdPer1000Proofs` when it proves at least `dph * 1000 / maxUsdPer1000Proofs` per hour. So
 * every decision (benchmark, production review, ranking, the agent's early verdict) keeps taking
 * a proofs/hour minimum, computed here from the machine's own price.
 */
export interface KeepRule {
  /** The floor in proofs/hour; 0 when only the price ceiling is given. */
  minProofsPerHour: number;
  /** The most a machine may cost per 1000 proofs at its measured rate, $; undefined for no ceiling. */
  maxUsdPer1000Proofs: number | undefined;
}

/** The proofs/hour a machine billed `dphTotal` $/hour must reach to be kept under `rule`. */
export function keepMinimumProofsPerHour(rule: KeepRule, dphTotal: number): number {
  const byPrice =
    rule.maxUsdPer1000Proofs === undefined || !(dphTotal > 0)
      ? 0
      : (dphTotal * 1000) / rule.maxUsdPer1000Proofs;
  return Math.max(rule.minProofsPerHour, byPrice);
}

/** $ per 1000 proofs at `proofsPerHour` for a machine billed `dphTotal` $/hour (Infinity at 0 proofs). */
export function usdPer1000Proofs(dphTotal: number, proofsPerHour: number): number {
  return proofsPerHour > 0 ? (dphTotal * 1000) / proofsPerHour : Number.POSITIVE_INFINITY;
}

/**
 * The minimum in words for decisions and events: "the minimum 40.0/h", or with a price ceiling
 * "the minimum 40.0/h ($1.200/h at most $30.00 per 1000 proofs)".
 */
export function describeKeepMinimum(rule: KeepRule, dphTotal: number): string {
  const minimum = keepMinimumProofsPerHour(rule, dphTotal);
  const floor = `the minimum ${minimum.toFixed(1)}/h`;
  if (rule.maxUsdPer1000Proofs === undefined || minimum === rule.minProofsPerHour) return floor;
  return `${floor} ($${dphTotal.toFixed(3)}/h at most $${rule.maxUsdPer1000Proofs.toFixed(2)} per 1000 proofs)`;
}
