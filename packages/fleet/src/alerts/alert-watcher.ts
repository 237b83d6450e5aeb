import { type Clock, systemClock } from "@cuzkit/core";
import type { FleetTarget } from "../economics/run-planner.js";
import { fleetFailureClass } from "../failure-class.js";
import type { FleetManager } from "../manager/fleet-manager.js";
import type { FleetRunStep } from "../manager/fleet-run.js";
import { fleetSummary } from "../server/dashboard-views.js";
import { readEventsAfter } from "../store/events-after.js";
import type { FleetEvent } from "../store/records.js";
import { type FleetAlert, slackSafe } from "./alert.js";
import type { WebhookSender } from "./webhook-sender.js";

/**
 * Event types that leave a Curio node cordoned with nobody undoing it: a drain that could not
 * write its uncordon, or stopped with the node cordoned.
 */
export const curioCordonLeftEvents: readonly string[] = ["curio-cordon-left", "curio-uncordon-failed"];

/** Options of createAlertWatcher. */
export interface AlertWatcherOptions {
  /** The manager whose store and machines are watched. Required. */
  manager: Pick<FleetManager, "store" | "config" | "machines">;
  /** Where alerts go. Required. */
  sender: Pick<WebhookSender, "send">;
  /** The fleet run's target (below-target alerts need it). Default: none, no below-target alert. */
  target?: FleetTarget | undefined;
  /** How long the fleet must stay under target before it alerts, ms. Default 30 min. */
  belowTargetForMs?: number | undefined;
  /** Injected for tests. Default: the system clock. */
  clock?: Clock | undefined;
}

/** Watches the fleet's log and figures and sends each alert once per occurrence. */
export interface AlertWatcher {
  /** Reads what happened since the last check and sends new alerts; returns them. Call after each step. */
  check(step?: FleetRunStep): Promise<FleetAlert[]>;
}

/**
 * The fleet's alerts: a machine failed (with its class), a machine newly excluded, the fleet under
 * target for `belowTargetForMs`, the $/h cap keeping it under target, a Curio node left cordoned.
 * Each is keyed: a failure or an exclusion is sent once; a condition (under target, budget) once
 * per episode, and again only after it has cleared. Starts at the log's end: a restarted manager
 * does not replay last week's failures. Reads are serialised; nothing here throws into the loop
 * that calls it, beyond a failed store read.
 */
// shape-exception: a closure over the watcher's state; its handlers are small and share it
export function createAlertWatcher(options: AlertWatcherOptions): AlertWatcher {
  const { manager, sender } = options;
  const { store } = manager;
  const fleet = manager.config.fleet;
  const clock = options.clock ?? systemClock;
  const belowTargetForMs = options.belowTargetForMs ?? 30 * 60_000;
  let cursor: number | undefined;
  let belowSince: number | undefined;
  const active = new Set<string>();
  const excludedSeen = new Set<number>();
  let firstMachinesRead = true;
  let checking: Promise<FleetAlert[]> = Promise.resolve([]);

  const raise = (alerts: FleetAlert[], alert: Omit<FleetAlert, "fleet" | "at">) => {
    if (active.has(alert.key)) return;
    active.add(alert.key);
    const full = { ...alert, fleet, at: clock.now(), text: slackSafe(`[${fleet}] ${alert.text}`) };
    alerts.push(full);
    sender.send(full);
  };
  const clear = (key: string) => active.delete(key);

  const fromEvent = (alerts: FleetAlert[], event: FleetEvent) => {
    if (event.toState === "failed" && event.fromState !== "failed") {
      const failureClass = fleetFailureClass(event);
      const reason = typeof event.detail?.reason === "string" ? event.detail.reason : event.type;
      raise(alerts, {
        kind: "machine-failed",
        key: `machine-failed:${event.instanceId}`,
        instanceId: event.instanceId,
        failureClass,
        text: `${event.instanceId} failed (${failureClass}) in ${event.fromState ?? "?"}: ${reason}`,
        detail: { fromState: event.fromState ?? null, eventType: event.type, reason },
      });
    } else if (curioCordonLeftEvents.includes(event.type)) {
      const node = event.detail?.curioMachineId;
      raise(alerts, {
        kind: "curio-cordon-left",
        key: `curio-cordon-left:${event.instanceId}:${event.seq}`,
        instanceId: event.instanceId,
        text: `Curio node ${String(node ?? "?")} of ${event.instanceId} is left cordoned: uncordon it with \`cuzkit fleet uncordon ${event.instanceId}\` once Curio's database answers`,
        detail: { curioMachineId: node ?? null, eventType: event.type },
      });
    }
  };

  const fleetConditions = async (alerts: FleetAlert[], step: FleetRunStep | undefined) => {
    const { target } = options;
    if (target !== undefined) {
      const summary = await fleetSummary(store, fleet, clock.now());
      const byRate = target.instances === undefined;
      const have = byRate ? summary.proofsPerHour : summary.countsByState.active;
      const goal = (byRate ? target.proofsPerHour : target.instances) ?? 0;
      if (have < goal - 1e-9) {
        belowSince ??= clock.now();
        if (clock.now() - belowSince >= belowTargetForMs) {
          const unit = byRate ? "proofs/hour" : "active instances";
          raise(alerts, {
            kind: "below-target",
            key: "below-target",
            text: `fleet under target for ${Math.round((clock.now() - belowSince) / 60_000)} min: ${have.toFixed(byRate ? 1 : 0)} of ${goal} ${unit}`,
            detail: { have, goal, unit, belowSince },
          });
        }
      } else {
        belowSince = undefined;
        clear("below-target");
      }
    }
    if (step !== undefined) {
      const bound = step.budgetBound;
      const refused = step.skipped.some((s) => s.code === "FLEET_BUDGET_EXCEEDED");
      if (bound !== undefined || refused) {
        raise(alerts, {
          kind: "budget-reached",
          key: "budget-reached",
          text:
            bound === undefined
              ? "a rental was refused by the $/h cap (--max-dph)"
              : `the $/h cap keeps the fleet under target: $${bound.dphPerHour.toFixed(2)}/h of $${bound.maxDph.toFixed(2)}/h, the cheapest offer left costs $${bound.cheapestLeftOutDph.toFixed(2)}/h; ${bound.capacity.toFixed(1)} of ${bound.goal}`,
          detail: { ...bound },
        });
      } else {
        clear("budget-reached");
      }
    }
  };

  const newlyExcluded = async (alerts: FleetAlert[]) => {
    const report = await manager.machines();
    for (const m of report.machines) {
      if (!m.excluded) {
        // Lifted or expired: a later exclusion is news again.
        if (excludedSeen.delete(m.machineId)) clear(`machine-excluded:${m.machineId}`);
        continue;
      }
      if (excludedSeen.has(m.machineId)) continue;
      excludedSeen.add(m.machineId);
      // Exclusions already in force when the watcher starts are not news.
      if (firstMachinesRead) {
        active.add(`machine-excluded:${m.machineId}`);
        continue;
      }
      raise(alerts, {
        kind: "machine-excluded",
        key: `machine-excluded:${m.machineId}`,
        text: `machine ${m.machineId} excluded from rentals: ${m.exclusionReason ?? "its failures"} (failure rate ${(m.failureRate * 100).toFixed(0)}%)`,
        detail: {
          machineId: m.machineId,
          reason: m.exclusionReason ?? null,
          failures: m.failures,
          excludedUntil: m.excludedUntil ?? null,
        },
      });
    }
    firstMachinesRead = false;
  };

  const run = async (step: FleetRunStep | undefined): Promise<FleetAlert[]> => {
    const alerts: FleetAlert[] = [];
    cursor ??= await store.lastEventSeq();
    cursor = await readEventsAfter(store, cursor, (event) => fromEvent(alerts, event));
    await newlyExcluded(alerts);
    await fleetConditions(alerts, step);
    return alerts;
  };
  return {
    check(step) {
      checking = checking.then(
        () => run(step),
        () => run(step),
      );
      return checking;
    },
  };
}
