/// <reference path="../../../client/src/types/parse-prometheus-text-format.d.ts" />
// The client's types for the parser (the package ships none): one declaration in the workspace.
import parsePrometheusTextFormat from "parse-prometheus-text-format";
import { afterEach, describe, expect, it } from "vitest";
import { fleetFailureClass } from "../failure-class.js";
import {
  type DashboardFleet,
  seedDashboardFleet,
  startDashboardFleet,
} from "../test-support/dashboard-fleet.js";
import { createFleetMetrics } from "./metrics.js";

let d: DashboardFleet | undefined;
afterEach(async () => {
  await d?.close();
  d = undefined;
});

const scrape = async () => {
  const response = await fetch(`${(d as DashboardFleet).url}/metrics`, {
    headers: { authorization: `Bearer ${(d as DashboardFleet).adminToken}` },
  });
  return response.text();
};
/** The value of one series, found by name and exact labels, parsed by a real exposition parser. */
const seriesValue = (text: string, name: string, labels: Record<string, string> = {}) => {
  const family = parsePrometheusTextFormat(text).find((f) => f.name === name);
  const metric = family?.metrics.find(
    (m) =>
      JSON.stringify(Object.entries(m.labels ?? {}).sort()) === JSON.stringify(Object.entries(labels).sort()),
  );
  return metric !== undefined && "value" in metric ? Number(metric.value) : undefined;
};

describe("/metrics follows Prometheus conventions", () => {
  it("parses cleanly, counters end in _total, and no label is one Prometheus reserves", async () => {
    d = await startDashboardFleet();
    await seedDashboardFleet(d);
    const families = parsePrometheusTextFormat(await scrape());
    expect(families.length).toBeGreaterThanOrEqual(10);
    for (const family of families) {
      expect(family.name, family.name).toMatch(/^cuzkit_fleet_[a-z_]+$/);
      expect(family.help.length, family.name).toBeGreaterThan(10);
      if (family.type === "COUNTER") expect(family.name).toMatch(/_total$/);
      else expect(family.name).not.toMatch(/_total$/);
      for (const metric of family.metrics)
        for (const label of Object.keys(metric.labels ?? {})) {
          // `instance` and `job` are attached by the scraper; `__` names are Prometheus's own.
          expect(["instance", "job"], `${family.name}{${label}}`).not.toContain(label);
          expect(label.startsWith("__"), label).toBe(false);
        }
    }
    const counters = families.filter((f) => f.type === "COUNTER").map((f) => f.name);
    expect(counters.sort()).toEqual([
      "cuzkit_fleet_destroys_total",
      "cuzkit_fleet_failures_total",
      "cuzkit_fleet_production_proofs_total",
      "cuzkit_fleet_rentals_total",
    ]);
  });

  it("counts rentals, failures by class, destroys by reason and production proofs from the log", async () => {
    d = await startDashboardFleet();
    const seeded = await seedDashboardFleet(d);
    const before = await scrape();
    // Two rentals were created (the hostile row was only planned); nothing failed or was destroyed.
    expect(seriesValue(before, "cuzkit_fleet_rentals_total")).toBe(2);
    expect(seriesValue(before, "cuzkit_fleet_failures_total", { class: "daemon-died" })).toBe(0);
    expect(seriesValue(before, "cuzkit_fleet_destroys_total", { reason: "failed" })).toBe(0);
    // The Curio row of the seed is a sliding window: not counted as proofs.
    expect(seriesValue(before, "cuzkit_fleet_production_proofs_total")).toBe(0);

    // The vetting machine's daemon dies in warmup: failed (class daemon-died), then destroyed.
    await d.agent(seeded.vetting.id, seeded.vetting.token, "failure", {
      phase: "warmup",
      errorClass: "died",
      code: "DAEMON_UNAVAILABLE",
      message: "the daemon exited (code 137)",
    });
    // The kept machine reports two production windows of 30 and 12 proofs.
    await d.agent(seeded.kept, d.fleet.tokenOf(seeded.kept), "throughput", {
      proofs: 30,
      windowMs: 3_600_000,
    });
    await d.agent(seeded.kept, d.fleet.tokenOf(seeded.kept), "throughput", {
      proofs: 12,
      windowMs: 1_200_000,
    });

    const after = await scrape();
    expect((await d.fleet.manager.store.require(seeded.vetting.id)).state).toBe("destroyed");
    expect(seriesValue(after, "cuzkit_fleet_failures_total", { class: "daemon-died" })).toBe(1);
    expect(seriesValue(after, "cuzkit_fleet_failures_total", { class: "heartbeat-lost" })).toBe(0);
    expect(seriesValue(after, "cuzkit_fleet_destroys_total", { reason: "failed" })).toBe(1);
    expect(seriesValue(after, "cuzkit_fleet_destroys_total", { reason: "retired" })).toBe(0);
    expect(seriesValue(after, "cuzkit_fleet_production_proofs_total")).toBe(42);
    // A second scrape does not count the same events twice.
    expect(seriesValue(await scrape(), "cuzkit_fleet_failures_total", { class: "daemon-died" })).toBe(1);

    // A restarted manager (a fresh registry over the same store) shows the same totals.
    const restarted = createFleetMetrics(d.fleet.manager.store, d.fleet.manager.config.fleet, () => 0);
    const fresh = await restarted.metrics();
    expect(seriesValue(fresh, "cuzkit_fleet_rentals_total")).toBe(
      seriesValue(after, "cuzkit_fleet_rentals_total"),
    );
    expect(seriesValue(fresh, "cuzkit_fleet_failures_total", { class: "daemon-died" })).toBe(1);
    expect(seriesValue(fresh, "cuzkit_fleet_production_proofs_total")).toBe(42);
  });
});

describe("fleetFailureClass", () => {
  it("maps the agent's bench classes and the manager's own events to a closed set", () => {
    expect(fleetFailureClass({ type: "agent-failure", detail: { errorClass: "froze" } })).toBe(
      "daemon-froze",
    );
    expect(fleetFailureClass({ type: "agent-failure", detail: { errorClass: "stuck" } })).toBe(
      "daemon-stuck",
    );
    expect(fleetFailureClass({ type: "lost", detail: undefined })).toBe("heartbeat-lost");
    expect(fleetFailureClass({ type: "deadline", detail: undefined })).toBe("phase-deadline");
    expect(fleetFailureClass({ type: "gone", detail: undefined })).toBe("vast-gone");
    // Text from the machine never becomes a label value: an unknown class is one bucket.
    expect(fleetFailureClass({ type: "agent-failure", detail: { errorClass: 'x"} 1\nevil_total 9' } })).toBe(
      "agent-step",
    );
    expect(fleetFailureClass({ type: "agent-failure", detail: { errorClass: "toString" } })).toBe(
      "agent-step",
    );
    expect(fleetFailureClass({ type: "something-new", detail: undefined })).toBe("other");
  });
});
