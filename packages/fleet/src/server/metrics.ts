import { Gauge, Registry } from "prom-client";
import { countedRate } from "../evidence/counted-rate.js";
import { instanceStates } from "../lifecycle.js";
import type { FleetStore } from "../store/fleet-store.js";
import { fleetSummary } from "./dashboard-views.js";

/**
 * The manager's Prometheus metrics, read from the store at each scrape (nothing to keep in
 * sync): instances by state, counted proofs/hour per instance (with its basis) and of the fleet,
 * fleet $/h, heartbeat age, deadline slack.
 * Instance labels are our ids (`i-...`), never the Vast label: labels are operator text.
 */
export function createFleetMetrics(store: FleetStore, fleetName: string, now: () => number): Registry {
  const registry = new Registry();
  const live = async () => (await store.list()).filter((r) => r.state !== "destroyed");
  new Gauge({
    name: "cuzkit_fleet_instances",
    help: "Instances of the fleet by lifecycle state",
    labelNames: ["state"],
    registers: [registry],
    async collect() {
      const counts = (await fleetSummary(store, fleetName, now())).countsByState;
      for (const state of instanceStates) this.set({ state }, counts[state]);
    },
  });
  new Gauge({
    name: "cuzkit_fleet_instance_proofs_per_hour",
    help: "Counted proofs/hour of each benchmarked instance (basis: benchmark, probation at the model's rate, or production)",
    labelNames: ["instance", "state", "basis"],
    registers: [registry],
    async collect() {
      const rows = await live();
      this.reset();
      for (const r of rows) {
        if (r.proofsPerHour === undefined) continue;
        const counted = countedRate(r);
        // A serving machine at its counted rate; a decided one at the rate it was judged at.
        const perHour =
          r.state === "active" || r.state === "draining" ? counted.proofsPerHour : r.proofsPerHour;
        this.set({ instance: r.id, state: r.state, basis: counted.basis }, perHour);
      }
    },
  });
  new Gauge({
    name: "cuzkit_fleet_counted_proofs_per_hour",
    help: "The fleet's counted proofs/hour: every active instance at its counted rate (what the planner plans with)",
    registers: [registry],
    async collect() {
      this.set((await fleetSummary(store, fleetName, now())).proofsPerHour);
    },
  });
  new Gauge({
    name: "cuzkit_fleet_dollars_per_hour",
    help: "Price of every instance that may be billing, $/hour",
    registers: [registry],
    async collect() {
      this.set((await fleetSummary(store, fleetName, now())).dollarsPerHour);
    },
  });
  new Gauge({
    name: "cuzkit_fleet_heartbeat_age_seconds",
    help: "Seconds since each instance's last heartbeat",
    labelNames: ["instance"],
    registers: [registry],
    async collect() {
      const rows = await live();
      this.reset();
      const t = now();
      for (const r of rows)
        if (r.lastHeartbeatAt !== undefined) this.set({ instance: r.id }, (t - r.lastHeartbeatAt) / 1000);
    },
  });
  new Gauge({
    name: "cuzkit_fleet_phase_deadline_slack_seconds",
    help: "Seconds left before each instance's phase deadline (negative: overdue)",
    labelNames: ["instance", "state"],
    registers: [registry],
    async collect() {
      const rows = await live();
      this.reset();
      const t = now();
      for (const r of rows) {
        if (r.phaseDeadlineAt !== undefined)
          this.set({ instance: r.id, state: r.state }, (r.phaseDeadlineAt - t) / 1000);
      }
    },
  });
  return registry;
}
