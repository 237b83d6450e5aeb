import { backlogDefaults } from "../defaults.js";
import { FleetConfigError } from "../errors.js";

// The fleet's size from Curio's demand. Pure: the same observation and state give the same
// decision. With B the bound, R one machine's proofs/hour and F the fleet's measured proofs/hour:
//  - time to clear T = waiting / F (infinite with work and no rate): the newest task's wait, as
//    Curio claims in posting order (scheduler.go sorts by posted_time);
//  - the oldest task's slack S = deadline - ProveTimeout - its age: the time left to claim it and
//    still prove it before the market's deadline even if its proof takes all of ProveTimeout.
//    Being first in line, it waits one claim interval (3600 / F s) for a free machine;
//  - over when T > B, or when 0 < S < the claim interval (the oldest would be claimed too late).
//    A task already past its slack (S <= 0) is reported, not chased: no machine saves it;
//  - up when over: to the machines that clear the backlog within B (waiting x 3600/R s / B) and
//    claim the oldest within S (3600/R s / S), at once (one step), never above the maximum;
//  - down when T has stayed <= quietFraction x B for the whole idle window: to what would keep it
//    there, never under the minimum; the window then restarts.
//  Between the two edges the target holds: a backlog around B raises it once and never lowers it.

/** How the fleet follows Curio's backlog (fleet run's followBacklog; every field optional). */
export interface BacklogPolicyOptions {
  /** The fewest machines kept, at least 1. Default 1. */
  minInstances?: number | undefined;
  /** The most machines rented. Default 4 (in fleet run: the fleet's maxInstances, `--max-instances`, when set). */
  maxInstances?: number | undefined;
  /** The snark market's deadline of one proof from its posting, ms. Default 45 min. */
  proofDeadlineMs?: number | undefined;
  /** Curio's cuzk ProveTimeout, the longest a claimed proof may take, ms. Default 30 min. */
  proveTimeoutMs?: number | undefined;
  /** Scale up when the backlog would take longer than this to clear, ms. Default: proofDeadlineMs - proveTimeoutMs (15 min). */
  clearBoundMs?: number | undefined;
  /** Quiet: a time to clear at most this fraction of the bound, in (0, 1). Default 0.5. */
  quietFraction?: number | undefined;
  /** How long Curio stays quiet before the fleet scales down, ms. Default 30 min. */
  idleWindowMs?: number | undefined;
}

/** The policy with its defaults filled. */
export type BacklogPolicy = Required<{ [K in keyof BacklogPolicyOptions]: number }>;

/** Fills the defaults and checks the policy; throws FleetConfigError naming the CLI flag. */
export function resolveBacklogPolicy(options: BacklogPolicyOptions = {}): BacklogPolicy {
  const proofDeadlineMs = options.proofDeadlineMs ?? backlogDefaults.proofDeadlineMs;
  const proveTimeoutMs = options.proveTimeoutMs ?? backlogDefaults.proveTimeoutMs;
  const policy: BacklogPolicy = {
    minInstances: options.minInstances ?? backlogDefaults.minInstances,
    maxInstances: options.maxInstances ?? backlogDefaults.maxInstances,
    proofDeadlineMs,
    proveTimeoutMs,
    clearBoundMs: options.clearBoundMs ?? proofDeadlineMs - proveTimeoutMs,
    quietFraction: options.quietFraction ?? backlogDefaults.quietFraction,
    idleWindowMs: options.idleWindowMs ?? backlogDefaults.idleWindowMs,
  };
  const refuse = (message: string, hint: string) => {
    throw new FleetConfigError(`--follow-backlog: ${message}`, { hint });
  };
  if (!Number.isInteger(policy.minInstances) || policy.minInstances < 1)
    refuse(
      `the minimum must be a whole number >= 1, not ${policy.minInstances}`,
      "pass --min-instances N (N >= 1)",
    );
  if (!Number.isInteger(policy.maxInstances) || policy.maxInstances < policy.minInstances)
    refuse(
      `the maximum (${policy.maxInstances}) must be a whole number >= the minimum (${policy.minInstances})`,
      "pass --max-instances N with N >= --min-instances",
    );
  if (!(policy.clearBoundMs > 0))
    refuse(
      `the bound on the time to clear must be positive, not ${policy.clearBoundMs} ms`,
      "pass --backlog-bound DURATION, or a --proof-deadline longer than --prove-timeout",
    );
  if (!(policy.quietFraction > 0 && policy.quietFraction < 1))
    refuse(`the quiet fraction must be in (0, 1), not ${policy.quietFraction}`, "leave quietFraction at 0.5");
  if (!(policy.idleWindowMs > 0) || !(policy.proveTimeoutMs > 0) || !(policy.proofDeadlineMs > 0))
    refuse(
      "durations must be positive",
      "pass --idle-window, --prove-timeout and --proof-deadline as positive durations",
    );
  return policy;
}

/** What one step saw. */
export interface BacklogObservation {
  /** Now, epoch ms (the run's clock). */
  nowMs: number;
  /** Curio's unclaimed proving tasks. */
  waiting: number;
  /** posted_time of the oldest unclaimed one, epoch ms; undefined when none waits. */
  oldestPostedMs: number | undefined;
  /** The fleet's measured production, proofs/hour (its active machines summed). */
  fleetProofsPerHour: number;
  /** One machine's proofs/hour (the active machines' mean, else the keep rule's minimum); > 0. */
  machineProofsPerHour: number;
}

/** What the follower carries from step to step. */
export interface BacklogState {
  /** The target, machines. */
  target: number;
  /** Since when Curio has been quiet without a break, epoch ms; undefined when it is not. */
  quietSinceMs: number | undefined;
}

/** Why the target moved or held. */
export type BacklogReason =
  /** Time to clear over the bound, or the oldest task at risk: raised. */
  | "over-bound"
  /** Over the bound, but the target already asks for enough machines (they are renting or vetting) or is at the maximum. */
  | "over-bound-asked"
  /** Between the quiet edge and the bound: held (the hysteresis band). */
  | "within-band"
  /** Quiet, for less than the idle window or with nothing to drop. */
  | "quiet"
  /** Quiet for the whole idle window: lowered. */
  | "idle";

/** The figures a decision rests on (each decision's event carries them). */
export interface BacklogFigures {
  waiting: number;
  /** Age of the oldest unclaimed task, ms; undefined when none waits. */
  oldestAgeMs: number | undefined;
  /** Its slack: deadline - ProveTimeout - age, ms (negative: late); undefined when none waits. */
  slackMs: number | undefined;
  fleetProofsPerHour: number;
  machineProofsPerHour: number;
  /** waiting / fleet rate, ms; null when infinite (work waiting, no measured rate). */
  timeToClearMs: number | null;
  /** The bound the time to clear is held to, ms. */
  boundMs: number;
  /** Machines that would clear the backlog within the bound and claim the oldest within its slack (before min/max). */
  neededInstances: number;
}

/** One decision. */
export interface BacklogDecision {
  action: "up" | "down" | "hold";
  reason: BacklogReason;
  previousTarget: number;
  target: number;
  /** The sentence logged with it. */
  text: string;
  figures: BacklogFigures;
  /** The state for the next step. */
  state: BacklogState;
}

const minutes = (ms: number) => `${(ms / 60_000).toFixed(1)} min`;

/** What one observation comes to under the policy: the figures and the sizes the table picks from. */
interface BacklogMeasure {
  figures: BacklogFigures;
  /** Time to clear, ms; infinite with work waiting and no measured rate. */
  timeToClearMs: number;
  /** The oldest task would be claimed after its slack runs out. */
  oldestAtRisk: boolean;
  /** Machines that clear the backlog within `ms` and claim the oldest within its slack (before min/max). */
  machinesWithin(ms: number): number;
  /** The observation in words, the head of every decision's sentence. */
  seen: string;
}

/** Works out the time to clear, the oldest task's slack and the machines needed. */
function measureBacklog(observation: BacklogObservation, policy: BacklogPolicy): BacklogMeasure {
  const { nowMs, waiting, fleetProofsPerHour } = observation;
  const machineRate = Math.max(observation.machineProofsPerHour, 1e-9);
  const proofMs = 3_600_000 / machineRate;
  const oldestAgeMs =
    observation.oldestPostedMs === undefined ? undefined : nowMs - observation.oldestPostedMs;
  const slackMs =
    oldestAgeMs === undefined ? undefined : policy.proofDeadlineMs - policy.proveTimeoutMs - oldestAgeMs;
  const boundMs = policy.clearBoundMs;
  const noRate = fleetProofsPerHour <= 0;
  const timeToClearMs =
    waiting === 0 ? 0 : noRate ? Number.POSITIVE_INFINITY : (waiting / fleetProofsPerHour) * 3_600_000;
  const claimMs = waiting === 0 ? 0 : noRate ? Number.POSITIVE_INFINITY : 3_600_000 / fleetProofsPerHour;
  const oldestAtRisk = slackMs !== undefined && slackMs > 0 && claimMs > slackMs;
  // Machines for the oldest's claim: only while it can still be saved.
  const forOldest = slackMs !== undefined && slackMs > 0 ? Math.ceil(proofMs / slackMs - 1e-9) : 0;
  const machinesWithin = (ms: number) => Math.max(Math.ceil((waiting * proofMs) / ms - 1e-9), forOldest);
  const figures: BacklogFigures = {
    waiting,
    oldestAgeMs,
    slackMs,
    fleetProofsPerHour,
    machineProofsPerHour: observation.machineProofsPerHour,
    timeToClearMs: Number.isFinite(timeToClearMs) ? timeToClearMs : null,
    boundMs,
    neededInstances: machinesWithin(boundMs),
  };
  const late = slackMs !== undefined && slackMs <= 0 ? " (the oldest is past its slack)" : "";
  const seen = `${waiting} waiting${oldestAgeMs === undefined ? "" : `, oldest ${minutes(oldestAgeMs)}${late}`}, ${fleetProofsPerHour.toFixed(1)} proofs/hour: clears in ${Number.isFinite(timeToClearMs) ? minutes(timeToClearMs) : "never"} against ${minutes(boundMs)}${oldestAtRisk ? `, the oldest has ${minutes(slackMs as number)} left to be claimed` : ""}`;
  return { figures, timeToClearMs, oldestAtRisk, machinesWithin, seen };
}

/** Decides the fleet's target from Curio's backlog (see the rule above). */
export function decideBacklogTarget(
  observation: BacklogObservation,
  state: BacklogState,
  policy: BacklogPolicy,
): BacklogDecision {
  const { nowMs } = observation;
  const { figures, timeToClearMs, oldestAtRisk, machinesWithin, seen } = measureBacklog(observation, policy);
  const { boundMs, neededInstances } = figures;
  const clamp = (n: number) => Math.min(policy.maxInstances, Math.max(policy.minInstances, n));
  const previousTarget = state.target;
  const decide = (
    action: BacklogDecision["action"],
    reason: BacklogReason,
    target: number,
    quietSinceMs: number | undefined,
    why: string,
  ): BacklogDecision => ({
    action,
    reason,
    previousTarget,
    target,
    text: `${seen}; ${why}`,
    figures,
    state: { target, quietSinceMs },
  });

  if (timeToClearMs > boundMs || oldestAtRisk) {
    const wanted = clamp(neededInstances);
    if (wanted > previousTarget) {
      return decide("up", "over-bound", wanted, undefined, `up from ${previousTarget} to ${wanted} machines`);
    }
    return decide(
      "hold",
      "over-bound-asked",
      previousTarget,
      undefined,
      `holds ${previousTarget} machines (${neededInstances} needed; ${previousTarget >= policy.maxInstances ? "at the maximum" : "still renting or vetting"})`,
    );
  }
  const quietBoundMs = boundMs * policy.quietFraction;
  if (timeToClearMs > quietBoundMs) {
    return decide(
      "hold",
      "within-band",
      previousTarget,
      undefined,
      `holds ${previousTarget} machines (over ${minutes(quietBoundMs)}, within the band)`,
    );
  }
  const quietSinceMs = state.quietSinceMs ?? nowMs;
  const wanted = clamp(machinesWithin(quietBoundMs));
  if (nowMs - quietSinceMs >= policy.idleWindowMs && wanted < previousTarget) {
    return decide(
      "down",
      "idle",
      wanted,
      nowMs,
      `quiet for ${minutes(nowMs - quietSinceMs)}: down from ${previousTarget} to ${wanted} machines`,
    );
  }
  return decide(
    "hold",
    "quiet",
    previousTarget,
    quietSinceMs,
    `holds ${previousTarget} machines (quiet for ${minutes(nowMs - quietSinceMs)} of ${minutes(policy.idleWindowMs)})`,
  );
}
