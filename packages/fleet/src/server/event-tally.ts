import { type FleetFailureClass, fleetFailureClass } from "../failure-class.js";
import { readEventsAfter } from "../store/events-after.js";
import type { FleetStore } from "../store/fleet-store.js";
import type { FleetEvent } from "../store/records.js";

/** Why a rental was destroyed: the state the destroy was decided from. */
export type DestroyReason = "rejected" | "failed" | "retired";

/** Totals over the whole event log (monotonic: events are never deleted). */
export interface EventTotals {
  /** Rentals Vast created (an instance reached `booting`). */
  rentals: number;
  /** Rentals destroyed, by the decision that led there. */
  destroys: Map<DestroyReason, number>;
  /** Instances that failed, by class. */
  failures: Map<FleetFailureClass, number>;
}

const reasonOf: Readonly<Record<string, DestroyReason>> = {
  rejected: "rejected",
  failed: "failed",
  draining: "retired",
};

/**
 * Counts the event log into totals, reading only the events after the last one it saw, so a
 * scrape costs the events since the previous scrape. Counting from the log (not from the process)
 * makes the counters survive a manager restart and agree between replicas. Reads are serialised:
 * two scrapes at once must not count the same page twice.
 */
export function createEventTally(store: Pick<FleetStore, "events">, pageSize = 10_000) {
  const totals: EventTotals = { rentals: 0, destroys: new Map(), failures: new Map() };
  // The decision of each instance on its way to `destroyed`, counted when it gets there.
  const pendingReason = new Map<string, DestroyReason>();
  let cursor = 0;
  let reading: Promise<EventTotals> = Promise.resolve(totals);
  const add = <K>(map: Map<K, number>, key: K) => map.set(key, (map.get(key) ?? 0) + 1);

  const count = (event: FleetEvent) => {
    if (event.toState === event.fromState) return;
    if (event.toState === "booting") totals.rentals += 1;
    else if (event.toState === "failed") add(totals.failures, fleetFailureClass(event));
    else if (event.toState === "destroying" && event.fromState !== undefined) {
      const reason = reasonOf[event.fromState];
      if (reason !== undefined) pendingReason.set(event.instanceId, reason);
    } else if (event.toState === "destroyed") {
      const reason = pendingReason.get(event.instanceId);
      pendingReason.delete(event.instanceId);
      if (reason !== undefined) add(totals.destroys, reason);
    }
  };
  const readNew = async (): Promise<EventTotals> => {
    cursor = await readEventsAfter(store, cursor, count, pageSize);
    return totals;
  };
  return {
    /** The totals up to the newest event. */
    read(): Promise<EventTotals> {
      reading = reading.then(readNew, readNew);
      return reading;
    },
  };
}
