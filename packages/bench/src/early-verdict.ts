import { InvalidInputError, type Resolved } from "@cuzkit/core";
import type { EarlyVerdictInfo } from "./verdict.js";

// An early verdict: Wald's sequential probability ratio test on proof latencies. With
// `concurrency` proofs always in flight, throughput = concurrency / mean latency (Little's law),
// so "proofs/hour >= T" is "mean latency <= concurrency x 1 h / T". The test weighs
// H_above (throughput T x (1 + d)) against H_below (T x (1 - d)) with normally distributed
// latencies, variance estimated from the samples (with a floor, so near-identical first samples
// cannot decide alone), and stops at Wald's bounds for error rates alpha = beta = 1 - confidence.

/** Options of the early verdict. */
export interface EarlyVerdictOptions {
  /** Confidence of the decision at the edges of the indifference zone. Default 0.95. */
  confidence?: number | undefined;
  /** Half-width of the indifference zone around the threshold, as a share. Default 0.1 (+-10%). */
  indifference?: number | undefined;
  /** Latency samples before any decision. Default 3. */
  minSamples?: number | undefined;
  /** Smallest coefficient of variation assumed for latencies. Default 0.05. */
  minVariation?: number | undefined;
}

/** A sequential test fed one latency at a time. */
export interface EarlyVerdictTest {
  /** Adds a completed proof's latency (submit to settle, ms); returns the decision once there is one. */
  add(latencyMs: number): { above: boolean; info: EarlyVerdictInfo } | undefined;
  /** Samples so far. */
  readonly samples: number;
}

/** Checks the options; throws InvalidInputError naming the bad one. */
export function resolveEarlyVerdictOptions(options: EarlyVerdictOptions = {}): Resolved<{
  [K in keyof EarlyVerdictOptions]: number;
}> {
  const confidence = options.confidence ?? 0.95;
  const indifference = options.indifference ?? 0.1;
  const minSamples = options.minSamples ?? 3;
  const minVariation = options.minVariation ?? 0.05;
  if (!(confidence > 0.5 && confidence < 1))
    throw new InvalidInputError(`early verdict confidence must be in (0.5, 1), got ${confidence}`, {
      hint: "use 0.95",
    });
  if (!(indifference > 0 && indifference < 1))
    throw new InvalidInputError(`early verdict indifference must be in (0, 1), got ${indifference}`, {
      hint: "use 0.1",
    });
  if (!Number.isInteger(minSamples) || minSamples < 2)
    throw new InvalidInputError(`early verdict minSamples must be a whole number >= 2, got ${minSamples}`, {
      hint: "use 3",
    });
  if (!(minVariation >= 0))
    throw new InvalidInputError(`early verdict minVariation must be >= 0, got ${minVariation}`, {
      hint: "use 0.05",
    });
  return { confidence, indifference, minSamples, minVariation };
}

/** Creates the test for a threshold in proofs/hour at a concurrency. */
export function createEarlyVerdictTest(
  minProofsPerHour: number,
  concurrency: number,
  options: EarlyVerdictOptions = {},
): EarlyVerdictTest {
  const o = resolveEarlyVerdictOptions(options);
  const hourMs = 3_600_000;
  const latencyAbove = (concurrency * hourMs) / (minProofsPerHour * (1 + o.indifference));
  const latencyBelow = (concurrency * hourMs) / (minProofsPerHour * (1 - o.indifference));
  const middle = (latencyAbove + latencyBelow) / 2;
  const alpha = 1 - o.confidence;
  const upper = Math.log((1 - alpha) / alpha); // accept "below"
  const lower = Math.log(alpha / (1 - alpha)); // accept "above"
  const values: number[] = [];
  return {
    get samples() {
      return values.length;
    },
    add(latencyMs) {
      values.push(latencyMs);
      const n = values.length;
      if (n < o.minSamples) return undefined;
      const mean = values.reduce((sum, v) => sum + v, 0) / n;
      const variance = values.reduce((sum, v) => sum + (v - mean) ** 2, 0) / (n - 1);
      const floor = (o.minVariation * mean) ** 2;
      const sigma2 = Math.max(variance, floor, Number.MIN_VALUE);
      const llr = ((latencyBelow - latencyAbove) / sigma2) * values.reduce((sum, v) => sum + (v - middle), 0);
      if (llr > lower && llr < upper) return undefined;
      return {
        above: llr <= lower,
        info: {
          test: "sprt",
          confidence: o.confidence,
          indifference: o.indifference,
          samples: n,
          logLikelihoodRatio: llr,
        },
      };
    },
  };
}
