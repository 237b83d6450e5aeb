// pnpm bench:economics — what the learning fleet pays for a day's work on markets that move,
// against the optimal oracle (the minimum-cost fleet given the truth, exact) with the work held
// constant, and against ranking by the spec sheet alone. The policy's priors and optimism are
// tuned on one set of seeds and the table is reported on a disjoint set, both printed.
//
// SEEDS (report seeds per market, default 100), TUNE_SEEDS (default 12), SCENARIOS (comma list,
// default all).

import { fitPriors } from "../src/economics/priors.js";
import { defaultFleetDayPriors, type FleetDayPriors, simulateFleetDay } from "../src/testing/fleet-day.js";
import { type FleetOracle, fleetOracle, workConstantCost } from "../src/testing/fleet-oracle.js";
import { type MarketScenario, marketScenarios, movingMarket } from "../src/testing/moving-market.js";

const reportCount = Number(process.env.SEEDS ?? 100);
const tuneCount = Number(process.env.TUNE_SEEDS ?? 12);
const scenarios = (process.env.SCENARIOS?.split(",") ?? [...marketScenarios]) as MarketScenario[];
// Disjoint by construction: reporting seeds 1..N, tuning seeds from 10001.
const reportSeeds = Array.from({ length: reportCount }, (_, i) => i + 1);
const tuneSeeds = Array.from({ length: tuneCount }, (_, i) => 10_001 + i);

const quantile = (xs: readonly number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (s.length - 1) * q;
  const lo = s[Math.floor(at)] as number;
  const hi = s[Math.ceil(at)] as number;
  return lo + (hi - lo) * (at - Math.floor(at));
};
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const pad = (s: string | number, n: number) => String(s).padStart(n);

const oracles = new Map<string, FleetOracle>();
const oracleOf = (scenario: MarketScenario, seed: number) => {
  const key = `${scenario}:${seed}`;
  let o = oracles.get(key);
  if (o === undefined) {
    o = fleetOracle(movingMarket(seed, scenario));
    oracles.set(key, o);
  }
  return o;
};
/** Learning's cost over the oracle's, work constant, and its delivered share. */
const runLearning = (scenario: MarketScenario, seed: number, priors: FleetDayPriors) => {
  const market = movingMarket(seed, scenario);
  const oracle = oracleOf(scenario, seed);
  const day = simulateFleetDay(market, { policy: "learning", priors });
  return { day, ratio: workConstantCost(day.dollars, day.proofs, oracle) / oracle.cost };
};

/** Tuning, on the tuning seeds only: priors fitted from what a day there measured, then the optimism. */
function tune(scenario: MarketScenario): { priors: FleetDayPriors; note: string } {
  const samples = [];
  const exposure = { deaths: 0, rentedHours: 0 };
  for (const seed of tuneSeeds) {
    const { day } = runLearning(scenario, seed, defaultFleetDayPriors);
    samples.push(...day.samples);
    exposure.deaths += day.exposure.deaths;
    exposure.rentedHours += day.exposure.rentedHours;
  }
  const fitted = fitPriors(samples, exposure);
  let best: { priors: FleetDayPriors; median: number } | undefined;
  for (const optimism of [0.5, 1]) {
    const priors: FleetDayPriors = {
      modelSpreadLog: fitted.modelSpreadLog,
      classSpreadLog: Math.max(0.05, fitted.classSpreadLog),
      hazardPerHour: fitted.hazardPerHour,
      optimism,
    };
    const median = quantile(
      tuneSeeds.map((seed) => runLearning(scenario, seed, priors).ratio),
      0.5,
    );
    if (best === undefined || median < best.median) best = { priors, median };
  }
  const p = (best as { priors: FleetDayPriors }).priors;
  return {
    priors: p,
    note: `model spread ${p.modelSpreadLog.toFixed(2)}, class spread ${p.classSpreadLog.toFixed(2)}, hazard ${p.hazardPerHour.toFixed(3)}/h, optimism ${p.optimism} (from ${fitted.machines} machines, ${fitted.rentedHours.toFixed(0)} rented hours)`,
  };
}

interface Row {
  scenario: MarketScenario;
  median: number;
  p90: number;
  worst: number;
  specMedian: number;
  aheadShare: number;
  aheadWhere: number;
  behindSpecMedian: number;
  deliveredMedian: number;
  deliveredMin: number;
}

const started = performance.now();
console.log(
  `fleet economics: a simulated day at 300 proofs/hour (7200 proofs) on markets of 80 offers\n` +
    `tuning seeds: ${tuneSeeds[0]}-${tuneSeeds[tuneSeeds.length - 1]} (${tuneSeeds.length} per market); ` +
    `reporting seeds: ${reportSeeds[0]}-${reportSeeds[reportSeeds.length - 1]} (${reportSeeds.length} per market), disjoint\n` +
    `yardstick: the minimum-cost fleet for the day's work given the truth (exact: a multiple-choice knapsack over whole proofs);\n` +
    `each fleet's cost = its dollars + its shortfall x the oracle's marginal $ per proof (the work held constant)\n`,
);
const rows: Row[] = [];
for (const scenario of scenarios) {
  const { priors, note } = tune(scenario);
  console.log(`${scenario}: tuned ${note}`);
  const ratios: number[] = [];
  const specRatios: number[] = [];
  const delivered: number[] = [];
  let ahead = 0;
  let aheadOf = 0;
  let aheadWhere = 0;
  const vsSpec: number[] = [];
  for (const seed of reportSeeds) {
    const market = movingMarket(seed, scenario);
    const oracle = oracleOf(scenario, seed);
    const { day, ratio } = runLearning(scenario, seed, priors);
    const spec = simulateFleetDay(market, { policy: "spec-only" });
    const specRatio = workConstantCost(spec.dollars, spec.proofs, oracle) / oracle.cost;
    ratios.push(ratio - 1);
    specRatios.push(specRatio - 1);
    delivered.push(day.proofs / oracle.workProofs);
    vsSpec.push(ratio / specRatio - 1);
    if (ratio < specRatio) ahead += 1;
    if (specRatio >= 1.1) {
      aheadOf += 1;
      if (ratio < specRatio) aheadWhere += 1;
    }
    oracles.delete(`${scenario}:${seed}`);
  }
  rows.push({
    scenario,
    median: quantile(ratios, 0.5),
    p90: quantile(ratios, 0.9),
    worst: Math.max(...ratios),
    specMedian: quantile(specRatios, 0.5),
    aheadShare: ahead / reportSeeds.length,
    aheadWhere: aheadOf === 0 ? Number.NaN : aheadWhere / aheadOf,
    behindSpecMedian: quantile(vsSpec, 0.5),
    deliveredMedian: quantile(delivered, 0.5),
    deliveredMin: Math.min(...delivered),
  });
}

console.log(
  `\n${pad("market", 15)} ${pad("median", 7)} ${pad("p90", 7)} ${pad("worst", 7)} ${pad("spec med", 9)} ${pad("ahead", 6)} ${pad("ahead*", 7)} ${pad("vs spec", 8)} ${pad("deliv med", 9)} ${pad("deliv min", 9)}`,
);
for (const r of rows) {
  console.log(
    `${pad(r.scenario, 15)} ${pad(pct(r.median), 7)} ${pad(pct(r.p90), 7)} ${pad(pct(r.worst), 7)} ${pad(pct(r.specMedian), 9)} ${pad(`${(r.aheadShare * 100).toFixed(0)}%`, 6)} ${pad(Number.isNaN(r.aheadWhere) ? "-" : `${(r.aheadWhere * 100).toFixed(0)}%`, 7)} ${pad(pct(r.behindSpecMedian), 8)} ${pad(r.deliveredMedian.toFixed(3), 9)} ${pad(r.deliveredMin.toFixed(3), 9)}`,
  );
}
console.log(
  "\nmedian/p90/worst: learning above the oracle, work constant; spec med: spec-only's median; ahead: seeds where learning is cheaper than spec-only;\nahead*: the same among seeds where spec-only is >= 10% above the oracle; vs spec: learning over spec-only at the median; deliv: proofs over the work.",
);
const verdict = (ok: boolean) => (ok ? "MET" : "MISSED");
const base = rows.find((r) => r.scenario === "base");
const checks: Array<[string, boolean]> = [];
if (base !== undefined) {
  checks.push([`base median ${pct(base.median)} <= 10%`, base.median <= 0.1]);
  checks.push([`base p90 ${pct(base.p90)} <= 30%`, base.p90 <= 0.3]);
}
for (const r of rows) {
  checks.push([`${r.scenario} median ${pct(r.median)} <= 15%`, r.median <= 0.15]);
  if (r.scenario === "specs-right")
    checks.push([`specs-right: ${pct(r.behindSpecMedian)} vs spec-only <= 2%`, r.behindSpecMedian <= 0.02]);
  else if (!Number.isNaN(r.aheadWhere))
    checks.push([
      `${r.scenario} ahead of spec-only ${(r.aheadWhere * 100).toFixed(1)}% >= 90%`,
      r.aheadWhere >= 0.9,
    ]);
  checks.push([`${r.scenario} delivered min ${r.deliveredMin.toFixed(3)} >= 0.98`, r.deliveredMin >= 0.98]);
}
console.log("");
for (const [label, ok] of checks) console.log(`${verdict(ok).padEnd(7)} ${label}`);
const met = checks.filter(([, ok]) => ok).length;
console.log(`\n${met}/${checks.length} targets met; ${((performance.now() - started) / 1000).toFixed(0)} s`);
