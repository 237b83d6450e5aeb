// What a benchmark run concludes about a machine, and the exit code each conclusion maps to.

/**
 * `MET`: at or above the threshold (or no threshold) with a stable daemon; `BELOW`: stable but
 * under the threshold; `UNSTABLE`: the daemon died, froze or failed proofs, whatever the
 * throughput; `FAILED`: the machine could not be benchmarked (bad setup, never ready, stopped).
 */
export type VerdictStatus = "MET" | "BELOW" | "UNSTABLE" | "FAILED";

/** Every verdict, in order of the exit codes' severity. */
export const verdictStatuses: readonly VerdictStatus[] = ["MET", "BELOW", "UNSTABLE", "FAILED"];

/** Exit code of `cuzkit bench` per verdict: 0 met, 2 below, 3 unstable, 1 could not benchmark. */
export const verdictExitCodes: Readonly<Record<VerdictStatus, number>> = {
  MET: 0,
  FAILED: 1,
  BELOW: 2,
  UNSTABLE: 3,
};

/** How an early verdict was reached (see earlyVerdict). */
export interface EarlyVerdictInfo {
  /** The test: a one-sided confidence bound on the report's proofs/hour, checked after each completion. */
  test: "confidence-bound";
  /** Stated confidence that the verdict is on the right side of the threshold, over all looks, e.g. 0.95. */
  confidence: number;
  /** Estimates within this share of the threshold never stop early (0.1 = +-10%). */
  indifference: number;
  /** Completed timed proofs the decision rests on (the report's `rateBasis.proofs`). */
  samples: number;
  /** Slots (workers) those proofs ran on. */
  slots: number;
  /** Proofs/hour over those proofs: the report's `proofsPerHour`. */
  proofsPerHour: number;
  /** The confidence bound that cleared the threshold: the lower one for MET, the upper one for BELOW. */
  boundProofsPerHour: number;
}

/** The conclusion of a run. */
export interface Verdict {
  status: VerdictStatus;
  /** The threshold in proofs/hour, when given. */
  minProofsPerHour?: number | undefined;
  /** One sentence explaining the verdict. */
  reason: string;
  /** What made it UNSTABLE (deaths, freezes, failed proofs), one line each; empty otherwise. */
  incidents: string[];
  /** Set when `--early-verdict` decided before the batch ended. */
  early?: EarlyVerdictInfo | undefined;
}

/** The exit code for a verdict (see verdictExitCodes). */
export function verdictExitCode(verdict: Pick<Verdict, "status">): number {
  return verdictExitCodes[verdict.status];
}

/** What decideVerdict looks at. */
export interface VerdictInput {
  /** Timed proofs completed. */
  completed: number;
  /** The report's proofs/hour (slots x completions per slot-hour, see proof-rate.ts). */
  proofsPerHour: number;
  /** The threshold, when given. */
  minProofsPerHour: number | undefined;
  /** Deaths, freezes and failed timed proofs, one line each. */
  incidents: readonly string[];
  /** Why the run could not benchmark (never ready, bad start, interrupted); undefined when it could. */
  couldNotBenchmark: string | undefined;
  /** An early decision of the sequential test, when it made one (decided on `proofsPerHour` above). */
  early?: { above: boolean; info: EarlyVerdictInfo } | undefined;
}

/** Decides the verdict: instability first, then whether the run could benchmark, then the threshold. */
export function decideVerdict(input: VerdictInput): Verdict {
  const threshold = { minProofsPerHour: input.minProofsPerHour };
  const rate = `${input.proofsPerHour.toFixed(1)} proofs/hour`;
  const min =
    input.minProofsPerHour === undefined ? "" : String(Number(input.minProofsPerHour.toPrecision(6)));
  const incidents = [...input.incidents];
  if (incidents.length > 0) {
    const more = incidents.length > 1 ? ` (+${incidents.length - 1} more)` : "";
    return {
      status: "UNSTABLE",
      ...threshold,
      reason: `${incidents[0]}${more}; ${rate} is not a measure of this machine`,
      incidents,
    };
  }
  if (input.couldNotBenchmark !== undefined)
    return { status: "FAILED", ...threshold, reason: input.couldNotBenchmark, incidents };
  if (input.completed === 0)
    return { status: "FAILED", ...threshold, reason: "no timed proof completed", incidents };
  if (input.early) {
    const { above, info } = input.early;
    return {
      status: above ? "MET" : "BELOW",
      ...threshold,
      reason: `early verdict after ${info.samples} proofs: ${rate}, ${above ? "at or above" : "below"} ${min} with ${Math.round(info.confidence * 100)}% confidence (${above ? "lower" : "upper"} bound ${info.boundProofsPerHour.toFixed(1)})`,
      incidents,
      early: info,
    };
  }
  if (input.minProofsPerHour === undefined)
    return { status: "MET", reason: `${rate}; no threshold given`, incidents };
  return input.proofsPerHour >= input.minProofsPerHour
    ? { status: "MET", ...threshold, reason: `${rate} >= ${min}`, incidents }
    : { status: "BELOW", ...threshold, reason: `${rate} < ${min}`, incidents };
}
