import { describe, expect, it } from "vitest";
import { listedAt, marketScenarios, movingMarket, priceAt, trueRateAt } from "./moving-market.js";

const classes = (seed: number, scenario: Parameters<typeof movingMarket>[1]) => {
  const byClass = new Map<string, number>();
  for (const o of movingMarket(seed, scenario).offers)
    byClass.set(o.candidate.classKey, (byClass.get(o.candidate.classKey) ?? 0) + 1);
  return byClass;
};

describe("markets that move", () => {
  it("base: listed all day at one price, a download of 0.35-0.45 h and no charge, no degradation", () => {
    for (const o of movingMarket(1, "base").offers) {
      expect([o.listedFromH, o.listedUntilH, o.priceChange, o.degrade, o.paramsUsd]).toEqual([
        0,
        Number.POSITIVE_INFINITY,
        undefined,
        undefined,
        0,
      ]);
      expect(o.paramsHours).toBeGreaterThanOrEqual(0.35);
      expect(o.paramsHours).toBeLessThanOrEqual(0.45);
    }
  });

  it("random-deaths: every host dies at a steady hazard (about 1 in 20 h), whatever its quality", () => {
    const offers = [1, 2, 3].flatMap((seed) => movingMarket(seed, "random-deaths").offers);
    const honest = offers.filter((o) => o.quirk !== "flaky");
    const lives = honest.flatMap((o) => o.lifetimesHours);
    expect(lives.every(Number.isFinite)).toBe(true);
    const mean = lives.reduce((a, b) => a + b, 0) / lives.length;
    expect(mean).toBeGreaterThan(17);
    expect(mean).toBeLessThan(23);
    // Independent of quality: the fast half dies as often as the slow half.
    const sorted = [...honest].sort((a, b) => a.trueFactor - b.trueFactor);
    const meanLife = (xs: typeof honest) =>
      xs.flatMap((o) => o.lifetimesHours).reduce((a, b) => a + b, 0) / (xs.length * 40);
    const half = Math.floor(sorted.length / 2);
    const ratio = meanLife(sorted.slice(0, half)) / meanLife(sorted.slice(half));
    expect(ratio).toBeGreaterThan(0.85);
    expect(ratio).toBeLessThan(1.15);
    // The base market's honest hosts never die.
    expect(
      movingMarket(1, "base")
        .offers.filter((o) => o.quirk !== "flaky")
        .flatMap((o) => o.lifetimesHours)
        .every((l) => l === Number.POSITIVE_INFINITY),
    ).toBe(true);
  });

  it("degrading: about a third of the machines slow down after hours kept", () => {
    const offers = movingMarket(2, "degrading").offers;
    const degrading = offers.filter((o) => o.degrade !== undefined);
    expect(degrading.length / offers.length).toBeGreaterThan(0.2);
    expect(degrading.length / offers.length).toBeLessThan(0.45);
    for (const o of degrading) {
      const after = o.degrade?.afterHours as number;
      expect(trueRateAt(o, after - 0.01)).toBe(o.trueProofsPerHour);
      expect(trueRateAt(o, after)).toBeLessThan(0.71 * o.trueProofsPerHour);
    }
  });

  it("lemons: classes shared by several offers, and lemons in every class of three or more", () => {
    const market = movingMarket(3, "lemons");
    const byClass = new Map<string, typeof market.offers>();
    for (const o of market.offers)
      byClass.set(o.candidate.classKey, [...(byClass.get(o.candidate.classKey) ?? []), o]);
    expect(byClass.size).toBeLessThanOrEqual(10);
    for (const members of byClass.values()) {
      if (members.length < 3) continue;
      const lemons = members.filter((o) => o.quirk === "slow-memory");
      expect(lemons.length).toBeGreaterThanOrEqual(1);
      expect(lemons.length / members.length).toBeLessThanOrEqual(0.34);
    }
  });

  it("moving-prices: prices change during the day, offers appear and vanish", () => {
    const offers = movingMarket(4, "moving-prices").offers;
    const moved = offers.filter((o) => o.priceChange !== undefined);
    expect(moved.length).toBeGreaterThan(10);
    for (const o of moved) {
      const at = o.priceChange?.atH as number;
      expect(priceAt(o, at - 0.01)).toBe(o.candidate.dphTotal);
      expect(priceAt(o, at)).toBe(o.priceChange?.dphTotal);
    }
    const late = offers.filter((o) => o.listedFromH > 0);
    const gone = offers.filter((o) => Number.isFinite(o.listedUntilH));
    expect(late.length).toBeGreaterThan(5);
    expect(gone.length).toBeGreaterThan(5);
    for (const o of late) expect(listedAt(o, 0)).toBe(false);
    for (const o of gone) expect(listedAt(o, 23.9)).toBe(false);
  });

  it("shared-classes: ten hardware shapes, so classes have several machines", () => {
    const shared = classes(5, "shared-classes");
    expect(shared.size).toBeLessThanOrEqual(10);
    expect([...shared.values()].filter((n) => n >= 3).length).toBeGreaterThanOrEqual(5);
    // The base market's classes are almost all unique.
    expect(classes(5, "base").size).toBeGreaterThan(50);
  });

  it("param-download: downloads of 0.2-2.5 h that cost $0.05-0.60 per rental", () => {
    const offers = movingMarket(6, "param-download").offers;
    const hours = offers.map((o) => o.paramsHours);
    expect(Math.min(...hours)).toBeGreaterThanOrEqual(0.2);
    expect(Math.max(...hours)).toBeGreaterThan(1.5);
    expect(Math.max(...hours)).toBeLessThanOrEqual(2.5);
    expect(offers.every((o) => o.paramsUsd >= 0.05 && o.paramsUsd <= 0.6)).toBe(true);
  });

  it("specs-right: every machine within about 10% of the spec sheet, no quirks", () => {
    const offers = movingMarket(7, "specs-right").offers;
    expect(offers.every((o) => o.quirk === "none" && Math.abs(Math.log(o.trueFactor)) < 0.12)).toBe(true);
    expect(offers.every((o) => o.lifetimesHours.every((l) => l === Number.POSITIVE_INFINITY))).toBe(true);
  });

  it("is the same market for the same seed and scenario", () => {
    for (const scenario of marketScenarios) {
      expect(JSON.stringify(movingMarket(9, scenario))).toBe(JSON.stringify(movingMarket(9, scenario)));
    }
  });
});
