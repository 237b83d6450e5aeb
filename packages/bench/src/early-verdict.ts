import { InvalidInputError, type Resolved } from "@cuzkit/core";
import { basisProofsPerHour, type ProofCycle, type RateBasis, rateBasis } from "./proof-rate.js";
import { studentTQuantile } from "./student-t.js";
import type { EarlyVerdictInfo } from "./verdict.js";

// An early verdict on the report's own figure (proof-rate.ts): proofs/hour = slots x 1 h / mean
// cycle, where a cycle is the time a worker spent per completed proof. After each completion it
// puts a one-sided Student-t confidence bound on the mean cycle and turns it into a bound on
// proofs/hour. The standard deviation is the cycles' long-run one (autocovariances up to the slot
// count added: slots sharing a GPU wait on each other) with a floor of minVariation x mean, so
// near-identical first samples cannot decide alone. It stops MET when the lower bound is at or
// above threshold x (1 + indifference / 2) and the estimate at or above threshold x
// (1 + indifference); BELOW mirrored; otherwise the full batch runs and the report's figure
// decides. The error rate 1 - confidence is split evenly over the looks the batch allows
// (Bonferroni), so it holds for the whole sequence of looks. It decides only once every slot has
// completed a proof (a pipeline that starts empty has short first cycles). Defaults are set so a
// machine within +-5% of the threshold gets no wrong-side early verdict with cycle CVs up to 0.3
// (early-verdict.test.ts; pnpm bench:early-verdict prints the rates on fresh seeds).

/** Options of the early verdict. */
export interface EarlyVerdictOptions {
  /** Confidence of the bound, over all looks of the batch together. Default 0.99. */
  confidence?: number | undefined;
  /** Indifference zone: an early stop needs the estimate outside threshold x (1 +- this) and the bound outside half of it. Default 0.1. */
  indifference?: number | undefined;
  /** Completed proofs before any decision (and at least one per slot). Default 5. */
  minSamples?: number | undefined;
  /** Smallest coefficient of variation assumed for cycles. Default 0.1. */
  minVariation?: number | undefined;
  /** Timed proofs in the batch: the looks the error rate is split over. Default 12 (runBenchmark passes its `count`). */
  maxSamples?: number | undefined;
}

/** A decision of the early verdict. */
export interface EarlyDecision {
  /** True: at or above the threshold (MET); false: below it (BELOW). */
  above: boolean;
  info: EarlyVerdictInfo;
}

/** A sequential test fed one completed proof at a time. */
export interface EarlyVerdictTest {
  /**
   * Adds a completed proof's cycle (ms since its slot's previous completion, or since the slot's
   * first submit) run by `slot` (1-based; default: round robin over the slots); returns the
   * decision once there is one.
   */
  add(cycleMs: number, slot?: number): EarlyDecision | undefined;
  /** Samples so far. */
  readonly samples: number;
  /** What the rate so far rests on (the report's basis over the same proofs). */
  readonly basis: RateBasis;
  /** Proofs/hour over the samples so far: the figure the test decides on. */
  readonly proofsPerHour: number;
}

/** Checks the options; throws InvalidInputError naming the bad one. */
export function resolveEarlyVerdictOptions(options: EarlyVerdictOptions = {}): Resolved<{
  [K in keyof EarlyVerdictOptions]: number;
}> {
  const confidence = options.confidence ?? 0.99;
  const indifference = options.indifference ?? 0.1;
  const minSamples = options.minSamples ?? 5;
  const minVariation = options.minVariation ?? 0.1;
  const maxSamples = options.maxSamples ?? 12;
  if (!(confidence > 0.5 && confidence < 1))
    throw new InvalidInputError(`early verdict confidence must be in (0.5, 1), got ${confidence}`, {
      hint: "use 0.99",
    });
  if (!(indifference >= 0 && indifference < 1))
    throw new InvalidInputError(`early verdict indifference must be in [0, 1), got ${indifference}`, {
      hint: "use 0.1",
    });
  if (!Number.isInteger(minSamples) || minSamples < 2)
    throw new InvalidInputError(`early verdict minSamples must be a whole number >= 2, got ${minSamples}`, {
      hint: "use 5",
    });
  if (!(minVariation >= 0 && Number.isFinite(minVariation)))
    throw new InvalidInputError(`early verdict minVariation must be >= 0, got ${minVariation}`, {
      hint: "use 0.1",
    });
  if (!Number.isInteger(maxSamples) || maxSamples < 1)
    throw new InvalidInputError(`early verdict maxSamples must be a whole number >= 1, got ${maxSamples}`, {
      hint: "give the batch's proof count",
    });
  return { confidence, indifference, minSamples, minVariation, maxSamples };
}

/** Creates the test for a threshold in proofs/hour with `concurrency` workers. */
export function createEarlyVerdictTest(
  minProofsPerHour: number,
  concurrency: number,
  options: EarlyVerdictOptions = {},
): EarlyVerdictTest {
  const o = resolveEarlyVerdictOptions(options);
  if (!(minProofsPerHour > 0 && Number.isFinite(minProofsPerHour)))
    throw new InvalidInputError(`early verdict threshold must be > 0, got ${minProofsPerHour}`, {
      hint: "give minProofsPerHour",
    });
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new InvalidInputError(`early verdict concurrency must be a whole number >= 1, got ${concurrency}`, {
      hint: "give the batch's concurrency",
    });
  const slots = Math.min(concurrency, o.maxSamples);
  const firstLook = Math.max(o.minSamples, slots);
  const looks = Math.max(1, o.maxSamples - firstLook + 1);
  const alphaPerLook = (1 - o.confidence) / looks;
  const hourMs = 3_600_000;
  const cycles: ProofCycle[] = [];
  const seen = new Set<number>();
  return {
    get samples() {
      return cycles.length;
    },
    get basis() {
      return rateBasis(cycles);
    },
    get proofsPerHour() {
      return basisProofsPerHour(rateBasis(cycles));
    },
    add(cycleMs, slot) {
      const at = slot ?? (cycles.length % slots) + 1;
      cycles.push({ slot: at, cycleMs });
      seen.add(at);
      const n = cycles.length;
      if (n < firstLook || seen.size < slots) return undefined;
      const basis = rateBasis(cycles);
      const rate = basisProofsPerHour(basis);
      const mean = basis.slotTimeMs / n;
      const sd = Math.max(Math.sqrt(longRunVariance(cycles, mean, slots)), o.minVariation * mean);
      const margin = (studentTQuantile(alphaPerLook, n - 1) * sd) / Math.sqrt(n);
      const perSlot = basis.slots * hourMs;
      const lower = perSlot / (mean + margin);
      const upper = mean - margin > 0 ? perSlot / (mean - margin) : Number.POSITIVE_INFINITY;
      // The bound must clear the threshold by half the zone, and the estimate must be outside it.
      const above =
        lower >= minProofsPerHour * (1 + o.indifference / 2) &&
        rate >= minProofsPerHour * (1 + o.indifference);
      const below =
        upper < minProofsPerHour * (1 - o.indifference / 2) &&
        rate <= minProofsPerHour * (1 - o.indifference);
      if (!above && !below) return undefined;
      return {
        above,
        info: {
          test: "confidence-bound",
          confidence: o.confidence,
          indifference: o.indifference,
          samples: n,
          slots: basis.slots,
          proofsPerHour: rate,
          boundProofsPerHour: above ? lower : upper,
        },
      };
    },
  };
}

/**
 * The variance of one cycle as it weighs in the mean: the sample variance plus twice the
 * autocovariances up to lag slots - 1 (never less than the sample variance). Slots that share a
 * GPU have correlated cycles (one proof's long GPU time lengthens the next one's wait, on another
 * slot), which makes the plain sample variance understate the mean's by up to the slot count.
 */
function longRunVariance(cycles: readonly ProofCycle[], mean: number, slots: number): number {
  const n = cycles.length;
  const d = cycles.map((c) => c.cycleMs - mean);
  const variance = d.reduce((sum, x) => sum + x * x, 0) / (n - 1);
  let covariances = 0;
  for (let lag = 1; lag < Math.min(slots, n - 1); lag++) {
    let sum = 0;
    for (let i = 0; i + lag < n; i++) sum += (d[i] as number) * (d[i + lag] as number);
    covariances += sum / (n - 1);
  }
  return Math.max(variance, variance + 2 * covariances);
}
