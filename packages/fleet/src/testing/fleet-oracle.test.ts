import { seededRandom } from "@cuzkit/core";
import { describe, expect, it } from "vitest";
import { chain, fleetOracle, minCostCover, type OracleItem, workConstantCost } from "./fleet-oracle.js";
import { movingMarket } from "./moving-market.js";

/** Every choice of at most one option per item, the cheapest that delivers `need`. */
function bruteForce(items: readonly OracleItem[], need: number): number {
  let best = Number.POSITIVE_INFINITY;
  const walk = (i: number, cost: number, proofs: number) => {
    if (i === items.length) {
      if (proofs >= need && cost < best) best = cost;
      return;
    }
    walk(i + 1, cost, proofs);
    for (const o of (items[i] as OracleItem).options) walk(i + 1, cost + o.cost, proofs + o.proofs);
  };
  walk(0, 0, 0);
  return best;
}

function smallMarket(seed: number): OracleItem[] {
  const random = seededRandom(seed);
  return Array.from({ length: 2 + Math.floor(random() * 6) }, (_, i) => ({
    offerId: i,
    options: Array.from({ length: 1 + Math.floor(random() * 3) }, (_, k) => ({
      cost: Math.round(random() * 1000) / 10,
      proofs: Math.floor(random() * 60),
      label: `${i}.${k}`,
    })),
  }));
}

describe("the fleet oracle", () => {
  it("is the exact minimum: equal to brute force on 300 small markets", () => {
    for (let seed = 1; seed <= 300; seed += 1) {
      const items = smallMarket(seed);
      const need = 10 + (seed % 90);
      const solution = minCostCover(items, need, need + 30);
      expect(solution.cost).toBeCloseTo(bruteForce(items, need), 9);
      if (Number.isFinite(solution.cost)) {
        // The plan it returns is that cost and delivers the work, one option per machine.
        const chosen = [...solution.chosen.values()];
        expect(chosen.reduce((s, o) => s + o.cost, 0)).toBeCloseTo(solution.cost, 9);
        expect(chosen.reduce((s, o) => s + o.proofs, 0)).toBeGreaterThanOrEqual(need);
      }
    }
  });

  it("prices the vetting no fleet can avoid: the download and warmup of every rental", () => {
    const market = movingMarket(4, "param-download");
    const o = market.offers.find((x) => x.quirk === "none") as (typeof market.offers)[number];
    const { cost, proofs } = chain(o, 0, 24);
    expect(cost).toBeCloseTo(o.candidate.dphTotal * 24 + o.paramsUsd, 9);
    expect(proofs).toBeCloseTo(o.trueProofsPerHour * (24 - o.paramsHours - 0.2), 6);
  });

  it("meets the day's work at or below a fleet of the truth's best machines kept all day", () => {
    const market = movingMarket(2, "base");
    const oracle = fleetOracle(market);
    expect(oracle.workProofs).toBe(7200);
    const delivered = [...oracle.plan.values()].reduce((s, o) => s + o.proofs, 0);
    expect(delivered).toBeGreaterThanOrEqual(7200);
    // Greedy by true $ per proof, whole days: a feasible fleet, so never cheaper than the optimum.
    const byCost = market.offers
      .filter((o) => o.quirk === "none" && o.candidate.feasible)
      .map((o) => chain(o, 0, 24))
      .sort((a, b) => a.cost / a.proofs - b.cost / b.proofs);
    let cost = 0;
    let proofs = 0;
    for (const c of byCost) {
      if (proofs >= 7200) break;
      cost += c.cost;
      proofs += Math.floor(c.proofs);
    }
    expect(oracle.cost).toBeLessThanOrEqual(cost + 1e-9);
    expect(oracle.marginalUsdPerProof).toBeGreaterThan(0);
  });

  it("holds the work constant: a shortfall costs the oracle's marginal price, an excess earns nothing", () => {
    const oracle = { workProofs: 1000, cost: 10, marginalUsdPerProof: 0.02, plan: new Map() };
    expect(workConstantCost(8, 900, oracle)).toBeCloseTo(10, 9);
    expect(workConstantCost(12, 1100, oracle)).toBeCloseTo(12, 9);
  });
});
