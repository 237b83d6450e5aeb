// The kill rates `pnpm check:mutations` measured, kept in reports/mutation/summary.json so that
// `pnpm report:shape` can print them without running Stryker (a full run takes ~25 minutes).
// Each run of check:mutations may cover some packages only: their rows replace the old ones and
// the others stay, each with the time and commit it was measured at.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";

/** The least kill rate a package's decision code may have: killed / (killed + survived). */
export const minKillRate = 0.8;

/** Where the summary lives, under the repository root. */
export const summaryPath = (root) => join(root, "reports", "mutation", "summary.json");

/** The summary at `root`, or undefined when check:mutations has not run there. */
export function readMutationSummary(root) {
  const path = summaryPath(root);
  return existsSync(path) ? JSON.parse(readFileSync(path, "utf8")) : undefined;
}

/**
 * `previous` (a summary or undefined) with this run's rows put in: `runs` maps a Stryker run (a
 * package, or a slow part of one such as fleet-lease) to { package, killed, survived, equivalent };
 * `at` is an ISO time and `commit` the commit measured.
 */
export function mergeMutationSummary(previous, runs, at, commit) {
  const merged = { ...(previous?.runs ?? {}) };
  for (const [run, counts] of Object.entries(runs)) merged[run] = { ...counts, at, commit };
  return { runs: merged };
}

/**
 * Kill rates per package, its runs added up: [{ package, killed, survived, equivalent, rate,
 * measured }], `measured` the oldest time among its runs. Undefined without a summary.
 */
export function mutationKillRates(summary) {
  if (summary === undefined) return undefined;
  const byPackage = new Map();
  for (const row of Object.values(summary.runs ?? {})) {
    const total = byPackage.get(row.package) ?? { killed: 0, survived: 0, equivalent: 0, measured: row.at };
    total.killed += row.killed;
    total.survived += row.survived;
    total.equivalent += row.equivalent;
    if (row.at < total.measured) total.measured = row.at;
    byPackage.set(row.package, total);
  }
  return [...byPackage]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([pkg, t]) => ({
      package: pkg,
      ...t,
      rate: t.killed + t.survived === 0 ? 1 : t.killed / (t.killed + t.survived),
    }));
}

/** One line per package whose kill rate is under `minKillRate`. */
export function mutationRateProblems(rates) {
  return (rates ?? [])
    .filter((r) => r.rate < minKillRate)
    .map(
      (r) => `mutation kill rate: ${r.package} ${(r.rate * 100).toFixed(1)}%, budget ${minKillRate * 100}%`,
    );
}
