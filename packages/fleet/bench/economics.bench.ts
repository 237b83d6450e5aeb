// pnpm bench:economics — the fleet's realised $ per 1000 proofs over a simulated day on
// seeded hidden markets, against an oracle that knows the truth and against ranking by the
// spec sheet alone with no learning. In-process: the fleet's own ranking, calibration and
// decision functions; only the machines are simulated.

import { type EconomyPolicy, simulateEconomy } from "../src/testing/economy-sim.js";
import { hiddenMarket } from "../src/testing/hidden-truth.js";

const seeds = Number(process.env.SEEDS ?? 24);
const started = performance.now();
const rows: Array<Record<EconomyPolicy, number> & { seed: number; rentals: number }> = [];
for (let seed = 1; seed <= seeds; seed += 1) {
  const market = hiddenMarket(seed);
  const learning = simulateEconomy(market, { policy: "learning" });
  const oracle = simulateEconomy(market, { policy: "oracle" });
  const spec = simulateEconomy(market, { policy: "spec-only" });
  rows.push({
    seed,
    learning: learning.costPer1000,
    oracle: oracle.costPer1000,
    "spec-only": spec.costPer1000,
    rentals: learning.rentals,
  });
}
const elapsedS = (performance.now() - started) / 1000;
const pad = (s: string | number, n: number) => String(s).padStart(n);
console.log(`fleet economics: ${seeds} seeded markets, 80 offers each, a simulated day at 300 proofs/hour\n`);
console.log(
  `${pad("seed", 4)} ${pad("learning $/1k", 14)} ${pad("oracle $/1k", 12)} ${pad("spec-only $/1k", 15)} ${pad("vs oracle", 10)} ${pad("vs spec", 8)} ${pad("rentals", 8)}`,
);
const ratios: number[] = [];
let ahead = 0;
for (const r of rows) {
  const vsOracle = r.learning / r.oracle;
  const vsSpec = r.learning / r["spec-only"];
  ratios.push(vsOracle);
  if (r.learning < r["spec-only"]) ahead += 1;
  console.log(
    `${pad(r.seed, 4)} ${pad(r.learning.toFixed(2), 14)} ${pad(r.oracle.toFixed(2), 12)} ${pad(r["spec-only"].toFixed(2), 15)} ${pad(`${((vsOracle - 1) * 100).toFixed(1)}%`, 10)} ${pad(`${((vsSpec - 1) * 100).toFixed(0)}%`, 8)} ${pad(r.rentals, 8)}`,
  );
}
const sorted = [...ratios].sort((a, b) => a - b);
const median =
  ((sorted[Math.floor((sorted.length - 1) / 2)] as number) +
    (sorted[Math.ceil((sorted.length - 1) / 2)] as number)) /
  2;
const medianPct = (median - 1) * 100;
const aheadPct = (ahead / rows.length) * 100;
console.log(
  `\nmedian seed: ${medianPct.toFixed(1)}% above the oracle (target <= 15%): ${medianPct <= 15 ? "MET" : "MISSED"}`,
);
console.log(
  `ahead of spec-only on ${ahead}/${rows.length} seeds = ${aheadPct.toFixed(0)}% (target >= 90%): ${aheadPct >= 90 ? "MET" : "MISSED"}`,
);
console.log(`${rows.length * 3} simulated days in ${elapsedS.toFixed(1)} s`);
if (medianPct > 15 || aheadPct < 90) process.exitCode = 1;
