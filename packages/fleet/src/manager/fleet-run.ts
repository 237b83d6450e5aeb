import { type Clock, type Sleep, systemClock, toCuzkitError } from "@cuzkit/core";
import type { OfferQuery } from "@cuzkit/vast";
import { fleetDefaults } from "../defaults.js";
import { type BudgetBound, budgetBound } from "../economics/budget-bound.js";
import { interruptibleSetupHours, learnPreemptionRate, preemptionShare } from "../economics/interruptible.js";
import {
  type FleetDecision,
  type FleetMember,
  type FleetTarget,
  planFleetStep,
} from "../economics/run-planner.js";
import { FleetBudgetError, FleetConfigError } from "../errors.js";
import { countedRate } from "../evidence/counted-rate.js";
import { type InstanceState, timedStates } from "../lifecycle.js";
import { modelledDeadlineInputs } from "../modelled-durations.js";
import { repeatUntilStopped } from "../repeat-until-stopped.js";
import { type BacklogStep, type FollowBacklogOptions, followerOf } from "./backlog-follower.js";
import type { FleetManager } from "./fleet-manager.js";

/** Options of `cuzkit fleet run`. */
export interface FleetRunOptions {
  /** Proofs/hour or instances to keep; exactly one. Required. */
  target: FleetTarget;
  /** Cap on $/hour of the whole fleet. Default: the fleet's --max-dph, else none. */
  maxDph?: number | undefined;
  /** Machines vetting at once. Default 2. */
  maxVetting?: number | undefined;
  /** Factor by which a trial must beat the dearest kept machine. Default 1.25. */
  replaceMargin?: number | undefined;
  /** The offer search. Default: every offer the Vast client's defaults find. */
  query?: OfferQuery | undefined;
}

/** What one step did. */
export interface FleetRunStep {
  decisions: FleetDecision[];
  /** Decisions that could not be carried out, with the error code. */
  skipped: Array<{ decision: FleetDecision; code: string }>;
  /** Set when the $/h cap is what keeps the fleet under target (the budget alert). */
  budgetBound?: BudgetBound | undefined;
}

/** States before the keep decision: planned, then every timed phase of renting and vetting. */
const vettingStates: readonly InstanceState[] = ["planned", ...timedStates];

/** Throws FleetConfigError unless exactly one target is a positive number. */
export function checkFleetTarget(target: FleetTarget): void {
  const given = [target.proofsPerHour, target.instances].filter((v) => v !== undefined);
  if (given.length !== 1 || !given.every((v) => Number.isFinite(v) && (v as number) > 0)) {
    throw new FleetConfigError("fleet run needs exactly one positive target", {
      hint: "pass --target-proofs-per-hour N or --target-instances N (not both), or --follow-backlog with --curio-db",
    });
  }
}

/** The planner's view of the fleet's instances: vetting ones at the model's estimate, active ones at their counted rate (countedRate). */
export async function fleetMembers(manager: FleetManager): Promise<FleetMember[]> {
  const members: FleetMember[] = [];
  const records = await manager.store.list();
  // A rental at a bid counts at the share of its hours that prove (outbid, its slot redoes its
  // setup elsewhere), as the ranking counts interruptible offers. Hours rented: to its last
  // change or heartbeat (the store's own clock, no wall clock here).
  const share = preemptionShare(
    learnPreemptionRate(
      records,
      (i) => (Math.max(i.updatedAt, i.lastHeartbeatAt ?? 0) - i.createdAt) / 3_600_000,
    ),
    interruptibleSetupHours,
  );
  for (const r of records) {
    if (r.fleet !== manager.config.fleet) continue;
    const useful = r.offer.bidPricePerHour === undefined ? 1 : share;
    if (r.state === "active") {
      members.push({
        instanceId: r.id,
        stage: "active",
        dphPerHour: r.dphPerHour,
        proofsPerHour: countedRate(r).proofsPerHour * useful,
      });
    } else if (vettingStates.includes(r.state)) {
      const estimate = modelledDeadlineInputs(r.offer, {
        dialect: manager.config.dialect,
      }).modelledProofsPerHour;
      members.push({
        instanceId: r.id,
        stage: "vetting",
        dphPerHour: r.dphPerHour,
        proofsPerHour: estimate * useful,
      });
    }
  }
  return members;
}

/**
 * One step of `fleet run`: ranks the current offers with everything measured so far, plans
 * (`planFleetStep`), and carries the plan out: rents (each new instance vets itself
 * with the bench's early verdict, and the keep rule decides) and destroys. Each decision is an
 * event (`fleet-run`) with its reason, on the instance it concerns.
 */
export async function runFleetStep(manager: FleetManager, options: FleetRunOptions): Promise<FleetRunStep> {
  checkFleetTarget(options.target);
  const members = await fleetMembers(manager);
  const rentedOffers = new Set(
    (await manager.store.list()).filter((r) => r.state !== "destroyed").map((r) => r.offerId),
  );
  const ranked = (await manager.rank(options.query))
    .filter((r) => !rentedOffers.has(r.offer.id))
    .map((r) => r.ranking);
  const maxDph = options.maxDph ?? manager.config.maxDph;
  const decisions = planFleetStep({
    members,
    ranked,
    target: options.target,
    maxDph,
    maxVetting: options.maxVetting,
    replaceMargin: options.replaceMargin,
  });
  const skipped: FleetRunStep["skipped"] = [];
  for (const decision of decisions) {
    try {
      if (decision.action === "destroy") {
        await manager.store.appendEvent(decision.instanceId, "fleet-run", {
          action: "destroy",
          reason: decision.reason,
        });
        // An over-target trim (a backlog scale-down too): a Curio node is cordoned and drained first.
        await manager.destroy(decision.instanceId, { eventType: "over-target", reason: decision.reason });
      } else {
        const record = await manager.deploy(decision.offerId);
        await manager.store.appendEvent(record.id, "fleet-run", {
          action: "rent",
          offerId: decision.offerId,
          reason: decision.reason,
          source: decision.candidate.source,
          costPer1000: decision.candidate.costPer1000,
          optimisticCostPer1000: decision.candidate.optimisticCostPer1000,
        });
      }
    } catch (error) {
      const code = toCuzkitError(error).code;
      skipped.push({ decision, code });
      if (error instanceof FleetBudgetError) break;
    }
  }
  return {
    decisions,
    skipped,
    budgetBound: budgetBound({ members, decisions, ranked, target: options.target, maxDph }),
  };
}

/** Options of {@link startFleetRun}. */
export interface FleetRunLoopOptions extends Omit<FleetRunOptions, "target"> {
  /** Proofs/hour or instances to keep; exactly one. Required unless followBacklog sets the target. */
  target?: FleetTarget | undefined;
  /** Sets the target from Curio's backlog each step (createBacklogFollower); not with `target`. Default: none. */
  followBacklog?: FollowBacklogOptions | undefined;
  /** Called with each backlog step before the fleet step (the CLI prints it). Default: nothing. */
  onBacklog?: ((step: BacklogStep) => void) | undefined;
  /** Time between steps. Default 60 s. */
  intervalMs?: number | undefined;
  /** Injected for tests. Default: the system clock. */
  clock?: Clock | undefined;
  /** Injected for tests. Default: setTimeout. */
  sleep?: Sleep | undefined;
  /** Called after each step (the CLI prints it). */
  onStep?: ((step: FleetRunStep, at: number) => void) | undefined;
  /** Called when a step throws; the loop goes on. */
  onError?: ((error: unknown) => void) | undefined;
}

/** Runs {@link runFleetStep} every `intervalMs` until the returned stop is called; stop resolves once the running step ends. */
export function startFleetRun(manager: FleetManager, options: FleetRunLoopOptions): () => Promise<void> {
  const clock = options.clock ?? systemClock;
  const follower = followerOf(manager, options.target, options.followBacklog, clock);
  if (follower === undefined) checkFleetTarget(options.target ?? {});
  const targetOf = async (): Promise<FleetTarget> => {
    if (follower === undefined) return options.target as FleetTarget;
    const { target, step } = await follower.next(await fleetMembers(manager));
    options.onBacklog?.(step);
    return { instances: target };
  };
  return repeatUntilStopped(
    async () => {
      try {
        options.onStep?.(await runFleetStep(manager, { ...options, target: await targetOf() }), clock.now());
      } catch (error) {
        options.onError?.(error);
      }
    },
    options.intervalMs ?? fleetDefaults.runEveryMs,
    options.sleep,
  );
}
