import { describe, expect, it } from "vitest";
import { simulateFleetDay } from "./fleet-day.js";
import { movingMarket } from "./moving-market.js";

// Each of the learning fleet's rules, turned off, loses what it is for on the market it is for.

describe("a fleet day on a market that moves", () => {
  it("production rates: a degrading machine is noticed and the day's work still delivered", () => {
    const market = movingMarket(204, "degrading");
    const on = simulateFleetDay(market, { policy: "learning" });
    const off = simulateFleetDay(market, { policy: "learning", rules: { productionRates: false } });
    expect(on.proofs / 7200).toBeGreaterThanOrEqual(0.98);
    expect(off.proofs / 7200).toBeLessThan(0.98);
  });

  it("deaths as evidence: a good machine whose host died at random is rented again", () => {
    for (const seed of [201, 202]) {
      const market = movingMarket(seed, "random-deaths");
      const rentedAfterDying = (rules: { deathsAsEvidence: boolean }) => {
        const { log } = simulateFleetDay(market, { policy: "learning", rules });
        expect(log.some((e) => e.kind === "died")).toBe(true);
        return log.filter(
          (e, i) =>
            e.kind === "rent" && log.slice(0, i).some((p) => p.kind === "died" && p.offerId === e.offerId),
        ).length;
      };
      expect(rentedAfterDying({ deathsAsEvidence: true })).toBeGreaterThan(0);
      expect(rentedAfterDying({ deathsAsEvidence: false })).toBe(0);
    }
  });

  it("setup charged over the hours left: no late trial whose download outlasts its use, and cheaper", () => {
    const market = movingMarket(205, "param-download");
    const on = simulateFleetDay(market, { policy: "learning" });
    const off = simulateFleetDay(market, { policy: "learning", rules: { chargeSetup: false } });
    const late = (log: typeof on.log) => log.filter((e) => e.kind === "rent" && e.atHours > 21).length;
    expect(late(on.log)).toBe(0);
    expect(late(off.log)).toBeGreaterThan(0);
    expect(on.dollars).toBeLessThan(off.dollars);
    expect(on.proofs).toBeGreaterThanOrEqual(0.98 * 7200);
  });

  it("the spec-only fleet never learns: one death excludes, and it never rents a measured-slow machine again", () => {
    const market = movingMarket(201, "random-deaths");
    const { log } = simulateFleetDay(market, { policy: "spec-only" });
    const again = log.filter(
      (e, i) =>
        e.kind === "rent" && log.slice(0, i).some((p) => p.kind === "died" && p.offerId === e.offerId),
    );
    expect(again).toEqual([]);
  });

  it("interruptible rentals: bids are outbid and replaced, the work is still delivered, and each proof costs less", () => {
    const market = movingMarket(206, "base");
    const onDemand = simulateFleetDay(market, { policy: "learning" });
    const bids = simulateFleetDay(market, { policy: "learning", interruptibleBidFactor: 1.2 });
    expect(onDemand.preemptions).toBe(0);
    expect(bids.preemptions).toBeGreaterThan(0);
    expect(bids.interruptibleHours).toBeGreaterThan(0);
    // Every outbid rental's work goes elsewhere: a rent follows each preemption.
    const preempted = bids.log.filter((e) => e.kind === "preempted");
    for (const p of preempted)
      expect(bids.log.some((e) => e.kind === "rent" && e.atHours >= p.atHours)).toBe(true);
    expect(bids.proofs).toBeGreaterThanOrEqual(0.97 * 7200);
    expect(bids.dollars / bids.proofs).toBeLessThan(onDemand.dollars / onDemand.proofs);
  });

  it("the preemption rate is priced in: where bids are outbid every two hours, pricing it delivers more than counting bids as on-demand", () => {
    for (const seed of [207, 208]) {
      const stormy = movingMarket(seed, "base");
      for (const o of stormy.offers) o.outbidPerHour = 0.5;
      const bids = { policy: "learning", interruptibleBidFactor: 1.2 } as const;
      const priced = simulateFleetDay(stormy, bids);
      const blind = simulateFleetDay(stormy, { ...bids, rules: { preemptionPriced: false } });
      // More of the day's work: the planner counts each bid at the share of its hours that prove.
      expect(priced.proofs).toBeGreaterThan(1.08 * blind.proofs);
    }
  });
});
