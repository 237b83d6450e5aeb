import { type Clock, systemClock, toCuzkitError } from "@cuzkit/core";
import type { CurioBacklogSource } from "../curio/backlog-source.js";
import type { FleetMember, FleetTarget } from "../economics/run-planner.js";
import { FleetConfigError } from "../errors.js";
import { keepMinimumProofsPerHour } from "../keep-rule.js";
import type { FleetStore } from "../store/fleet-store.js";
import {
  type BacklogDecision,
  type BacklogPolicyOptions,
  type BacklogState,
  decideBacklogTarget,
  resolveBacklogPolicy,
} from "./backlog-target.js";
import type { FleetManager } from "./fleet-manager.js";

/** Options of `fleet run`'s backlog following (FleetRunLoopOptions.followBacklog). */
export interface FollowBacklogOptions extends BacklogPolicyOptions {
  /** Curio's backlog (openCurioBacklogSource). Required. */
  source: CurioBacklogSource;
}

/** Where the follower records its decisions, and with what. */
export interface BacklogFollowerDeps {
  /** The store its events go to (`fleet-backlog`, on `fleet-<name>`). */
  store: Pick<FleetStore, "appendEvent">;
  /** The fleet's name. */
  fleet: string;
  /** One machine's rate when none is active yet: the keep rule's minimum, proofs/hour. */
  fallbackMachineProofsPerHour: number;
  /** Clock of the decisions. Default: the system clock. */
  clock?: Clock | undefined;
}

/** A step's outcome: the decision, or the error that kept the last target. */
export type BacklogStep =
  | { kind: "decided"; decision: BacklogDecision }
  | { kind: "kept"; target: number; code: string; message: string };

/** Follows the backlog step by step; holds the target and the quiet clock between steps. */
export interface BacklogFollower {
  /** Reads Curio, decides, records, and answers the target (machines) for this step. */
  next(members: readonly FleetMember[]): Promise<{ target: number; step: BacklogStep }>;
}

/** The event type of every backlog decision. */
export const backlogEventType = "fleet-backlog";

/** The pseudo instance id fleet-wide events are recorded on. */
export const fleetEventId = (fleet: string) => `fleet-${fleet}`;

/**
 * Creates a follower. Its first target is the fleet's present size within min and max (a
 * restart does not shrink the fleet), and the idle window starts at its first quiet step.
 * Every up or down is an event with its figures; a hold is recorded when its reason changes;
 * an unreadable HarmonyDB keeps the last target, forgets the quiet clock (no scale-down on
 * missing evidence) and is recorded once per outage with its error code (FLEET_CURIO_DB).
 */
export function createBacklogFollower(
  options: FollowBacklogOptions,
  deps: BacklogFollowerDeps,
): BacklogFollower {
  const policy = resolveBacklogPolicy(options);
  const clock = deps.clock ?? systemClock;
  const eventId = fleetEventId(deps.fleet);
  let state: BacklogState | undefined;
  let lastRecorded: string | undefined;
  return {
    async next(members) {
      const active = members.filter((m) => m.stage === "active");
      const current: BacklogState = state ?? {
        target: Math.min(policy.maxInstances, Math.max(policy.minInstances, members.length)),
        quietSinceMs: undefined,
      };
      let backlog: Awaited<ReturnType<CurioBacklogSource["read"]>>;
      try {
        backlog = await options.source.read();
      } catch (error) {
        const { code, message } = toCuzkitError(error);
        state = { target: current.target, quietSinceMs: undefined };
        // One event per outage (and per change of error), not one a step.
        if (lastRecorded !== `kept:${code}`) {
          lastRecorded = `kept:${code}`;
          await deps.store.appendEvent(eventId, backlogEventType, {
            action: "keep",
            reason: "curio-unreadable",
            code,
            message,
            target: current.target,
          });
        }
        return { target: current.target, step: { kind: "kept", target: current.target, code, message } };
      }
      const fleetProofsPerHour = active.reduce((s, m) => s + m.proofsPerHour, 0);
      const decision = decideBacklogTarget(
        {
          nowMs: clock.now(),
          waiting: backlog.waiting,
          oldestPostedMs: backlog.oldestPostedMs,
          fleetProofsPerHour,
          machineProofsPerHour:
            active.length > 0 && fleetProofsPerHour > 0
              ? fleetProofsPerHour / active.length
              : deps.fallbackMachineProofsPerHour,
        },
        current,
        policy,
      );
      state = decision.state;
      if (decision.action !== "hold" || lastRecorded !== decision.reason) {
        lastRecorded = decision.reason;
        await deps.store.appendEvent(eventId, backlogEventType, {
          action: decision.action,
          reason: decision.reason,
          previousTarget: decision.previousTarget,
          target: decision.target,
          text: decision.text,
          ...decision.figures,
          byType: backlog.byType,
        });
      }
      return { target: decision.target, step: { kind: "decided", decision } };
    },
  };
}

/**
 * The follower of a run on `manager`, or undefined when the run keeps a fixed target (checked
 * by checkFleetTarget); throws FleetConfigError, naming the flags, when a target is given too.
 */
export function followerOf(
  manager: Pick<FleetManager, "store" | "config">,
  target: FleetTarget | undefined,
  followBacklog: FollowBacklogOptions | undefined,
  clock?: Clock | undefined,
): BacklogFollower | undefined {
  if (followBacklog === undefined) return undefined;
  if (target !== undefined && (target.instances !== undefined || target.proofsPerHour !== undefined)) {
    throw new FleetConfigError("--follow-backlog sets the fleet's target itself", {
      hint: "drop --target-proofs-per-hour and --target-instances, or drop --follow-backlog",
    });
  }
  // The fleet's own cap on billing instances (--max-instances) is the backlog's maximum unless given.
  const maxInstances = followBacklog.maxInstances ?? manager.config.maxInstances;
  return createBacklogFollower(
    { ...followBacklog, maxInstances },
    {
      store: manager.store,
      fleet: manager.config.fleet,
      // With only a price ceiling there is no fleet-wide floor: a machine without production
      // counts at the ceiling's floor for a typical $1/h machine (the number is a placeholder
      // until production arrives, which is minutes after a machine is kept).
      fallbackMachineProofsPerHour: keepMinimumProofsPerHour(manager.config, 1),
      clock,
    },
  );
}
