import { type Clock, systemClock } from "@cuzkit/core";
import type { FleetTarget } from "../economics/run-planner.js";
import type { FleetManager } from "../manager/fleet-manager.js";
import type { FleetRunStep } from "../manager/fleet-run.js";
import { readEventsAfter } from "../store/events-after.js";
import type { FleetAlert } from "./alert.js";
import { belowTargetCondition, budgetCondition, newlyExcluded } from "./alert-conditions.js";
import { alertFromEvent } from "./alert-events.js";
import type { AlertWatcherState } from "./alert-watcher-state.js";
import type { WebhookSender } from "./webhook-sender.js";

export { curioCordonLeftEvents } from "./alert-events.js";

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
export function createAlertWatcher(options: AlertWatcherOptions): AlertWatcher {
  const { manager } = options;
  const state: AlertWatcherState = {
    manager,
    sender: options.sender,
    fleet: manager.config.fleet,
    clock: options.clock ?? systemClock,
    target: options.target,
    belowTargetForMs: options.belowTargetForMs ?? 30 * 60_000,
    cursor: undefined,
    belowSince: undefined,
    active: new Set(),
    excludedSeen: new Set(),
    firstMachinesRead: true,
  };
  let checking: Promise<FleetAlert[]> = Promise.resolve([]);
  return {
    check(step) {
      checking = checking.then(
        () => checkOnce(state, step),
        () => checkOnce(state, step),
      );
      return checking;
    },
  };
}

/** One check: the log since the cursor, then the machines, then the fleet's conditions. */
async function checkOnce(state: AlertWatcherState, step: FleetRunStep | undefined): Promise<FleetAlert[]> {
  const alerts: FleetAlert[] = [];
  const { store } = state.manager;
  state.cursor ??= await store.lastEventSeq();
  state.cursor = await readEventsAfter(store, state.cursor, (event) => alertFromEvent(state, alerts, event));
  await newlyExcluded(state, alerts);
  await belowTargetCondition(state, alerts);
  budgetCondition(state, alerts, step);
  return alerts;
}
