import { fleetFailureClass } from "../failure-class.js";
import type { FleetEvent } from "../store/records.js";
import type { FleetAlert } from "./alert.js";
import { type AlertWatcherState, raiseAlert } from "./alert-watcher-state.js";

// The alerts one event of the fleet's log raises: a machine failed, a Curio node left cordoned.

/**
 * Event types that leave a Curio node cordoned with nobody undoing it: a drain that could not
 * write its uncordon, or stopped with the node cordoned.
 */
export const curioCordonLeftEvents: readonly string[] = ["curio-cordon-left", "curio-uncordon-failed"];

/** Raises the alert `event` calls for, if any. */
export function alertFromEvent(state: AlertWatcherState, alerts: FleetAlert[], event: FleetEvent): void {
  if (event.toState === "failed" && event.fromState !== "failed") {
    const failureClass = fleetFailureClass(event);
    const reason = typeof event.detail?.reason === "string" ? event.detail.reason : event.type;
    raiseAlert(state, alerts, {
      kind: "machine-failed",
      key: `machine-failed:${event.instanceId}`,
      instanceId: event.instanceId,
      failureClass,
      text: `${event.instanceId} failed (${failureClass}) in ${event.fromState ?? "?"}: ${reason}`,
      detail: { fromState: event.fromState ?? null, eventType: event.type, reason },
    });
  } else if (curioCordonLeftEvents.includes(event.type)) {
    const node = event.detail?.curioMachineId;
    raiseAlert(state, alerts, {
      kind: "curio-cordon-left",
      key: `curio-cordon-left:${event.instanceId}:${event.seq}`,
      instanceId: event.instanceId,
      text: `Curio node ${String(node ?? "?")} of ${event.instanceId} is left cordoned: uncordon it with \`cuzkit fleet uncordon ${event.instanceId}\` once Curio's database answers`,
      detail: { curioMachineId: node ?? null, eventType: event.type },
    });
  }
}
