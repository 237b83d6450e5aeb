import { describe, expect, it } from "vitest";
import type { HostPerformanceRecord } from "../store/host-performance.js";
import type { InstanceRecord } from "../store/records.js";
import { countedRate, implausibleProduction, productionRate, reviewProduction } from "./counted-rate.js";

const hour = 3_600_000;
const window = 2 * hour;

const active = (overrides: Partial<InstanceRecord> = {}) =>
  ({
    state: "active",
    proofsPerHour: 60,
    rateBasis: "benchmark",
    benchmarkProofsPerHour: 60,
    phaseStartedAt: 0,
    ...overrides,
  }) as InstanceRecord;

const sample = (at: number, proofsPerHour: number, extra: Partial<HostPerformanceRecord> = {}) =>
  ({
    kind: "production",
    at,
    proofsPerHour,
    windowMs: hour / 2,
    source: "agent",
    seq: at,
    ...extra,
  }) as HostPerformanceRecord;

describe("countedRate", () => {
  it("is the stored rate and basis of a serving machine, 0 for any other state", () => {
    expect(countedRate(active())).toEqual({ proofsPerHour: 60, basis: "benchmark" });
    expect(countedRate(active({ rateBasis: "probation", proofsPerHour: 62 }))).toEqual({
      proofsPerHour: 62,
      basis: "probation",
    });
    // Rows from before claims were checked: benchmark basis.
    expect(countedRate(active({ rateBasis: undefined })).basis).toBe("benchmark");
    expect(countedRate(active({ state: "rejected" })).proofsPerHour).toBe(0);
    expect(countedRate(active({ proofsPerHour: Number.POSITIVE_INFINITY })).proofsPerHour).toBe(0);
  });
});

describe("productionRate", () => {
  const opts = { nowMs: 2 * hour, windowMs: window, activeSinceMs: 0, source: "agent" as const };
  it("is undefined before a full window of serving, then proofs over the reports' time", () => {
    const rows = [0.5, 1, 1.5, 2].map((h) => sample(h * hour, h < 1.2 ? 60 : 20));
    expect(productionRate(rows, { ...opts, nowMs: 1.5 * hour })).toBeUndefined();
    expect(productionRate(rows, opts)).toEqual({ proofsPerHour: 40, source: "agent", samples: 4 });
    // Curio's rows are the truth with a Curio link; the agent's are then not mixed in.
    expect(productionRate(rows, { ...opts, source: "curio" })).toBeUndefined();
  });

  it("sums Curio's proof types per sync and averages the syncs", () => {
    const rows = [
      sample(hour, 10, { source: "curio", taskType: "PoRep" }),
      sample(hour, 2, { source: "curio", taskType: "UpdateProve" }),
      sample(2 * hour, 14, { source: "curio", taskType: "PoRep" }),
    ];
    expect(productionRate(rows, { ...opts, source: "curio" })?.proofsPerHour).toBe(13);
  });
});

describe("reviewProduction (keep rule with hysteresis)", () => {
  const policy = { windowMs: window, minProofsPerHour: 40 };
  const prod = (proofsPerHour: number) => ({ proofsPerHour, source: "agent" as const, samples: 4 });

  it("counts at production once there is a window of it", () => {
    const r = reviewProduction(active(), prod(36), policy, 2 * hour);
    expect(r.counted).toEqual({ proofsPerHour: 36, basis: "production" });
    expect(r.events.map((e) => e.type)).toEqual(["counted-at-production", "production-below"]);
    expect(r).toMatchObject({ belowKeepSince: 2 * hour, replace: false });
  });

  it("replaces after a full window below; a recovery needs 1.1x the minimum", () => {
    const below = active({ rateBasis: "production", proofsPerHour: 36, belowKeepSince: 2 * hour });
    expect(reviewProduction(below, prod(36), policy, 3 * hour).replace).toBe(false);
    expect(reviewProduction(below, prod(36), policy, 4 * hour).replace).toBe(true);
    // Without a new sample, the clock still runs out.
    expect(reviewProduction(below, undefined, policy, 4 * hour).replace).toBe(true);
    // 42/h is above the minimum but inside the band: the clock keeps running.
    expect(reviewProduction(below, prod(42), policy, 4 * hour)).toMatchObject({
      belowKeepSince: 2 * hour,
      replace: true,
    });
    const recovered = reviewProduction(below, prod(44), policy, 3 * hour);
    expect(recovered).toMatchObject({ belowKeepSince: undefined, replace: false });
    expect(recovered.events.map((e) => e.type)).toEqual(["production-recovered"]);
  });

  it("confirms a probation when production reaches 80% of the benchmark, else counts it at production", () => {
    const probation = active({ rateBasis: "probation", proofsPerHour: 62, benchmarkProofsPerHour: 195 });
    const confirmed = reviewProduction(probation, prod(170), policy, 2 * hour);
    expect(confirmed.counted).toEqual({ proofsPerHour: 170, basis: "production" });
    expect(confirmed.events.map((e) => e.type)).toEqual(["claim-confirmed"]);
    const not = reviewProduction(probation, prod(100), policy, 2 * hour);
    expect(not.counted).toEqual({ proofsPerHour: 100, basis: "production" });
    expect(not.events.map((e) => e.type)).toEqual(["claim-not-confirmed"]);
  });
});

describe("implausibleProduction", () => {
  const base = {
    proofsPerHour: 60,
    windowMs: hour / 2,
    servedMs: hour,
    modelProofsPerHour: 62.5,
    benchmarkProofsPerHour: 60,
    suspectFactor: 3,
  };
  it("believes a report within the model bound from a machine that served its window", () => {
    expect(implausibleProduction(base)).toBeUndefined();
  });
  it("refuses a window longer than the machine served, and a rate over the model bound", () => {
    expect(implausibleProduction({ ...base, servedMs: 10 * 60_000 })).toMatch(
      /30 min window .* served 10 min/,
    );
    expect(implausibleProduction({ ...base, proofsPerHour: 200 })).toMatch(
      /over 3x the model's rate .* 187\.5\/h/,
    );
    // Without a model, the benchmark's rate bounds it.
    expect(implausibleProduction({ ...base, modelProofsPerHour: undefined, proofsPerHour: 200 })).toMatch(
      /benchmark's rate/,
    );
  });
});
