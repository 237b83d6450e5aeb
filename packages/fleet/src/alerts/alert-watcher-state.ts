import type { Clock } from "@cuzkit/core";
import type { FleetTarget } from "../economics/run-planner.js";
import type { FleetManager } from "../manager/fleet-manager.js";
import { type FleetAlert, slackSafe } from "./alert.js";
import type { WebhookSender } from "./webhook-sender.js";

// The alert watcher's state, shared by its steps (events, exclusions, fleet conditions): which
// alerts are active (sent, not yet cleared) and where it stopped reading.

/** One alert as a step raises it: the watcher adds the fleet and the time. */
export type RaisedAlert = Omit<FleetAlert, "fleet" | "at">;

/** The watcher's state: one per createAlertWatcher. */
export interface AlertWatcherState {
  manager: Pick<FleetManager, "store" | "config" | "machines">;
  sender: Pick<WebhookSender, "send">;
  fleet: string;
  clock: Clock;
  target: FleetTarget | undefined;
  belowTargetForMs: number;
  /** The last event seq read; undefined until the first check (it then starts at the log's end). */
  cursor: number | undefined;
  /** Since when the fleet has been under target; undefined while it is not. */
  belowSince: number | undefined;
  /** Keys of alerts sent and not cleared: each is sent once until it clears. */
  active: Set<string>;
  /** Machines seen excluded. */
  excludedSeen: Set<number>;
  /** True until the machines were read once: exclusions in force then are not news. */
  firstMachinesRead: boolean;
}

/** Sends `alert` unless its key is active, and adds it to `alerts`. */
export function raiseAlert(state: AlertWatcherState, alerts: FleetAlert[], alert: RaisedAlert): void {
  if (state.active.has(alert.key)) return;
  state.active.add(alert.key);
  const { fleet } = state;
  const full = { ...alert, fleet, at: state.clock.now(), text: slackSafe(`[${fleet}] ${alert.text}`) };
  alerts.push(full);
  state.sender.send(full);
}

/** Clears an alert: the next occurrence of its key is sent again. */
export function clearAlert(state: AlertWatcherState, key: string): void {
  state.active.delete(key);
}
