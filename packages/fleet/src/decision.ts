import { terminalFailureStatuses } from "@cuzkit/vast";

/** A benchmark verdict as the agent reports it (the bench harness's four outcomes). */
export type BenchVerdict = "MET" | "BELOW" | "UNSTABLE" | "FAILED";

/** Every verdict. */
export const benchVerdicts: readonly BenchVerdict[] = ["MET", "BELOW", "UNSTABLE", "FAILED"];

/** What the manager does with a benchmarked machine. */
export interface Decision {
  /** The state it moves to from benchmarking. */
  to: "active" | "rejected" | "failed";
  /** True when the rental must be destroyed now. */
  destroy: boolean;
  /** True when this machine id must not be rented again. */
  excludeMachine: boolean;
  /** One sentence for status and the event log. */
  reason: string;
}

const rate = (perHour: number) => `${perHour.toFixed(1)}/h`;

/**
 * The keep rule. The manager checks the rate itself, so an agent that says MET below the
 * fleet's minimum is still rejected: MET at or above the minimum -> active; BELOW or UNSTABLE
 * -> rejected and destroyed (UNSTABLE also excludes the machine); FAILED -> failed and destroyed.
 */
export function decideBenchmark(
  verdict: BenchVerdict,
  proofsPerHour: number,
  minProofsPerHour: number,
  /** The minimum in words (describeKeepMinimum: it names a price ceiling). Default "the minimum N/h". */
  minimumText = `the minimum ${rate(minProofsPerHour)}`,
): Decision {
  const measured = Number.isFinite(proofsPerHour) ? proofsPerHour : 0;
  switch (verdict) {
    case "MET":
      if (measured >= minProofsPerHour) {
        return {
          to: "active",
          destroy: false,
          excludeMachine: false,
          reason: `kept: ${rate(measured)} >= ${minimumText}`,
        };
      }
      return {
        to: "rejected",
        destroy: true,
        excludeMachine: false,
        reason: `rejected: ${rate(measured)} < ${minimumText} (the agent said MET against another threshold)`,
      };
    case "BELOW":
      return {
        to: "rejected",
        destroy: true,
        excludeMachine: false,
        reason: `rejected: ${rate(measured)} < ${minimumText}`,
      };
    case "UNSTABLE":
      return {
        to: "rejected",
        destroy: true,
        excludeMachine: true,
        reason: `rejected as unstable (${rate(measured)}): proofs failed or the daemon restarted; machine excluded`,
      };
    case "FAILED":
      return {
        to: "failed",
        destroy: true,
        excludeMachine: false,
        reason: "failed: the benchmark could not run",
      };
  }
}

/** True when a Vast `actual_status` means the instance will never run: fail and destroy it at once. */
export function isVastFailureStatus(actualStatus: string | null | undefined): boolean {
  return typeof actualStatus === "string" && terminalFailureStatuses.includes(actualStatus);
}
