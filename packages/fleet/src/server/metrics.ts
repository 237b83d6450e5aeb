import { Counter, Gauge, Registry } from "prom-client";
import { countedRate } from "../evidence/counted-rate.js";
import { fleetFailureClasses } from "../failure-class.js";
import { instanceStates } from "../lifecycle.js";
import type { FleetStore } from "../store/fleet-store.js";
import { fleetSummary } from "./dashboard-views.js";
import { createEventTally, type DestroyReason } from "./event-tally.js";

const destroyReasons: readonly DestroyReason[] = ["rejected", "failed", "retired"];

/**
 * The manager's Prometheus metrics, read from the store at each scrape (nothing to keep in
 * sync). Gauges: instances by state, counted proofs/hour per instance (with its basis) and of
 * the fleet, fleet $/h, heartbeat age, deadline slack. Counters (`_total`, from the event log
 * and the production records, so they survive a restart): rentals, destroys by reason, failures
 * by class, production proofs the agents reported and the manager counted.
 * Instance labels are `instance_id` with our ids (`i-...`): `instance` is the label Prometheus
 * itself attaches to every scraped series, and the Vast label is operator text.
 */
// shape-exception: one metric per block, all on one registry
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
    labelNames: ["instance_id", "state", "basis"],
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
        this.set({ instance_id: r.id, state: r.state, basis: counted.basis }, perHour);
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
    labelNames: ["instance_id"],
    registers: [registry],
    async collect() {
      const rows = await live();
      this.reset();
      const t = now();
      for (const r of rows)
        if (r.lastHeartbeatAt !== undefined) this.set({ instance_id: r.id }, (t - r.lastHeartbeatAt) / 1000);
    },
  });
  new Gauge({
    name: "cuzkit_fleet_phase_deadline_slack_seconds",
    help: "Seconds left before each instance's phase deadline (negative: overdue)",
    labelNames: ["instance_id", "state"],
    registers: [registry],
    async collect() {
      const rows = await live();
      this.reset();
      const t = now();
      for (const r of rows) {
        if (r.phaseDeadlineAt !== undefined)
          this.set({ instance_id: r.id, state: r.state }, (r.phaseDeadlineAt - t) / 1000);
      }
    },
  });
  const tally = createEventTally(store);
  // A counter's value is the log's total: set by reset-then-inc at each scrape (prom-client has
  // no set for counters), so it is monotonic as long as the log is, across restarts too.
  const setTotals = (counter: Counter<string>, totals: [Record<string, string>, number][]) => {
    counter.reset();
    for (const [labels, total] of totals) counter.inc(labels, total);
  };
  new Counter({
    name: "cuzkit_fleet_rentals_total",
    help: "Rentals Vast created for the fleet (instances that reached booting)",
    registers: [registry],
    async collect() {
      setTotals(this, [[{}, (await tally.read()).rentals]]);
    },
  });
  new Counter({
    name: "cuzkit_fleet_destroys_total",
    help: "Rentals destroyed, by the decision that led there (rejected by its benchmark, failed, retired from service)",
    labelNames: ["reason"],
    registers: [registry],
    async collect() {
      const { destroys } = await tally.read();
      setTotals(
        this,
        destroyReasons.map((reason) => [{ reason }, destroys.get(reason) ?? 0]),
      );
    },
  });
  new Counter({
    name: "cuzkit_fleet_failures_total",
    help: "Instances that failed, by class (daemon-died, daemon-froze, phase-deadline, heartbeat-lost, ...)",
    labelNames: ["class"],
    registers: [registry],
    async collect() {
      const { failures } = await tally.read();
      setTotals(
        this,
        fleetFailureClasses.map((failureClass) => [{ class: failureClass }, failures.get(failureClass) ?? 0]),
      );
    },
  });
  new Counter({
    name: "cuzkit_fleet_production_proofs_total",
    help: "Proofs the agents reported from production and the manager counted (implausible reports are not counted)",
    registers: [registry],
    async collect() {
      // Agent windows are disjoint (each starts where the last ended); Curio's rows are sliding
      // windows over its task history, so they would count a proof many times: left out.
      const rows = await store.performance.list();
      const proofs = rows
        .filter((r) => r.kind === "production" && (r.source ?? "agent") === "agent")
        .reduce((sum, r) => sum + Math.round((r.proofsPerHour * (r.windowMs ?? 0)) / 3_600_000), 0);
      setTotals(this, [[{}, proofs]]);
    },
  });
  return registry;
}
