import type { FleetRunStep } from "../manager/fleet-run.js";
import { fleetSummary } from "../server/dashboard-views.js";
import type { FleetAlert } from "./alert.js";
import { type AlertWatcherState, clearAlert, raiseAlert } from "./alert-watcher-state.js";

// The alerts of conditions that last (once per episode, again only after they cleared): the
// fleet under target, the $/h cap binding, and machines newly excluded from rentals.

/** Alerts when the fleet has stayed under its target for belowTargetForMs; clears when it is not. */
export async function belowTargetCondition(state: AlertWatcherState, alerts: FleetAlert[]): Promise<void> {
  const { target, clock } = state;
  if (target === undefined) return;
  const summary = await fleetSummary(state.manager.store, state.fleet, clock.now());
  const byRate = target.instances === undefined;
  const have = byRate ? summary.proofsPerHour : summary.countsByState.active;
  const goal = (byRate ? target.proofsPerHour : target.instances) ?? 0;
  if (have >= goal - 1e-9) {
    state.belowSince = undefined;
    clearAlert(state, "below-target");
    return;
  }
  state.belowSince ??= clock.now();
  const belowSince = state.belowSince;
  if (clock.now() - belowSince < state.belowTargetForMs) return;
  const unit = byRate ? "proofs/hour" : "active instances";
  raiseAlert(state, alerts, {
    kind: "below-target",
    key: "below-target",
    text: `fleet under target for ${Math.round((clock.now() - belowSince) / 60_000)} min: ${have.toFixed(byRate ? 1 : 0)} of ${goal} ${unit}`,
    detail: { have, goal, unit, belowSince },
  });
}

/** Alerts when the run's step was held back by the $/h cap; clears on a step that was not. */
export function budgetCondition(
  state: AlertWatcherState,
  alerts: FleetAlert[],
  step: FleetRunStep | undefined,
): void {
  if (step === undefined) return;
  const bound = step.budgetBound;
  const refused = step.skipped.some((s) => s.code === "FLEET_BUDGET_EXCEEDED");
  if (bound === undefined && !refused) {
    clearAlert(state, "budget-reached");
    return;
  }
  raiseAlert(state, alerts, {
    kind: "budget-reached",
    key: "budget-reached",
    text:
      bound === undefined
        ? "a rental was refused by the $/h cap (--max-dph)"
        : `the $/h cap keeps the fleet under target: $${bound.dphPerHour.toFixed(2)}/h of $${bound.maxDph.toFixed(2)}/h, the cheapest offer left costs $${bound.cheapestLeftOutDph.toFixed(2)}/h; ${bound.capacity.toFixed(1)} of ${bound.goal}`,
    detail: { ...bound },
  });
}

/** Alerts for each machine excluded since the last read (not for those excluded at start). */
export async function newlyExcluded(state: AlertWatcherState, alerts: FleetAlert[]): Promise<void> {
  const report = await state.manager.machines();
  const { excludedSeen } = state;
  for (const m of report.machines) {
    if (!m.excluded) {
      // Lifted or expired: a later exclusion is news again.
      if (excludedSeen.delete(m.machineId)) clearAlert(state, `machine-excluded:${m.machineId}`);
      continue;
    }
    if (excludedSeen.has(m.machineId)) continue;
    excludedSeen.add(m.machineId);
    // Exclusions already in force when the watcher starts are not news.
    if (state.firstMachinesRead) {
      state.active.add(`machine-excluded:${m.machineId}`);
      continue;
    }
    raiseAlert(state, alerts, {
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
  state.firstMachinesRead = false;
}
