import { describe, expect, it } from "vitest";
import { benchmarkRecords, runTrustDay, trustMarket } from "./trust-day.js";

describe("trust day", () => {
  it("builds a market with every behaviour from a seed, the same each time", () => {
    const a = trustMarket(3);
    expect(trustMarket(3)).toEqual(a);
    const behaviours = new Set(a.map((h) => h.behaviour));
    expect([...behaviours].sort()).toEqual(["absurd", "degrades", "honest", "inconsistent"]);
  });

  it("writes honest records whose window adds up to the rate", () => {
    const records = benchmarkRecords(60, 12, 10_000_000, 2);
    const windowMs =
      Math.max(...records.map((r) => r.settleMs ?? 0)) - Math.min(...records.map((r) => r.submitMs ?? 0));
    // 12 proofs, 2 at a time, 120 s each: 13 spacings of 60 s.
    expect(windowMs).toBe(13 * 60_000);
  });

  it("keeps no lie at its claim and delivers the target on a day with liars and degraders", async () => {
    // Seed 3: its 12 hours rent liars and degraders at this target (seed 7 stopped renting any
    // once honest small batches were no longer read 8% low, so it proved nothing).
    const day = await runTrustDay(3, { hours: 12, targetProofsPerHour: 400 });
    // The day must exercise the faults, else the outcome proves nothing.
    expect(day.liarsRented).toBeGreaterThan(0);
    expect(day.degraded).toBeGreaterThan(0);
    expect(day.liesKeptAtClaim).toBe(0);
    expect(day.liarsOvercounted).toBe(0);
    expect(day.degradedStillOvercounted).toBe(0);
    expect(day.deliveredShare).toBeGreaterThanOrEqual(0.98);
  }, 60_000);
});
