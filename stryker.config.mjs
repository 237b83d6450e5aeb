// Stryker's configuration for `pnpm check:mutations` (scripts/check-mutations.mjs runs it once
// per package, naming the package in CUZKIT_MUTATION_PACKAGE, and judges the reports). Only the
// decision code is mutated: the functions whose answer a user acts on (which config the tuner
// picks, a benchmark's verdict, an error's code, whether a machine is kept, which offer ranks
// first, who holds the writer lease, which read needs the admin token), and each mutant runs
// only against the tests that guard it. A range (`file.ts:115-147`) mutates those lines only; ranges are
// found by declaration name when the config loads (scripts/mutation-ranges.mjs), so they follow the code.

import { guardTests, mutationPackage } from "./scripts/mutation-guard-tests.mjs";
import { declared, lineWith } from "./scripts/mutation-ranges.mjs";

export { guardTests, mutationPackage };

/** The files (or line ranges) mutated, per run (a package, or a slow part of one). */
export const decisionFiles = {
  core: ["packages/core/src/time.ts", "packages/core/src/retry.ts"],
  // The search and its tie-breaks (createEvaluator's cache plumbing is mutated too: a few cheap mutants).
  tuner: [declared("packages/tuner/src/search.ts", "createEvaluator", "searchDaemonConfig")],
  bench: [declared("packages/bench/src/verdict.ts", "decideVerdict"), "packages/bench/src/early-verdict.ts"],
  client: [
    "packages/client/src/map-error.ts",
    "packages/client/src/recovery.ts",
    // defaultRequestIdBase and its use: the request id a proof gets when none is given.
    declared("packages/client/src/prove/state.ts", "defaultRequestIdBase"),
    lineWith("packages/client/src/prove/state.ts", "input.requestId.trim() || defaultRequestIdBase"),
  ],
  fleet: [
    "packages/fleet/src/decision.ts",
    "packages/fleet/src/keep-rule.ts",
    declared("packages/fleet/src/economics/ranking.ts", "geometricMean", "rankCandidates"),
    "packages/fleet/src/manager/leadership.ts",
    "packages/fleet/src/server/admin-token.ts",
    "packages/fleet/src/server/host-check.ts",
    // The reads' token rule: its default, the token check, and the reader/admin checks.
    declared("packages/fleet/src/server/dashboard-access.ts", "readsNeedToken", "tokenOk"),
    declared("packages/fleet/src/server/dashboard-access.ts", "admin", "reader"),
    // startFleetServer: reads need the token when the listen host is beyond loopback.
    declared("packages/fleet/src/server/fleet-server.ts", "dashboard"),
  ],
  // The writer lease's claim (who holds it, when a tenure ends: claimRow, its transaction, and
  // claim, the state it leaves), apart: its tests run on SQLite and PostgreSQL, so each of its
  // mutants costs seconds. Counted with the fleet package.
  "fleet-lease": [declared("packages/fleet/src/store/writer-lease.ts", "claimRow", "claim")],
};

const packages = mutationPackage === undefined ? Object.keys(decisionFiles) : [mutationPackage];
const name = mutationPackage ?? "all";

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: "vitest",
  vitest: { configFile: "vitest.stryker.config.ts", related: false },
  plugins: ["@stryker-mutator/vitest-runner"],
  mutate: packages.flatMap((p) => decisionFiles[p] ?? []),
  coverageAnalysis: "perTest",
  // Messages and hints are read, not decided on (codes, verdicts and states carry the decision):
  // mutating their text would make the check about wording. (The default request id's shape, a
  // string the client README documents, is pinned by prove.test.ts all the same.)
  mutator: { excludedMutations: ["StringLiteral"] },
  // Two cores shared with other work: one test runner at a time.
  concurrency: 1,
  // Mutates the files where they are and restores them at the end: pnpm's per-package
  // node_modules links do not survive a sandbox copy. Do not edit the mutated files during a run.
  inPlace: true,
  // Vitest does not type-check, so the other files need no @ts-nocheck (and stay untouched).
  disableTypeChecks: false,
  // Reuses the results of mutants whose code and covering tests did not change (--force: all).
  incremental: true,
  incrementalFile: `reports/mutation/${name}.incremental.json`,
  reporters: ["json", "clear-text", "progress"],
  jsonReporter: { fileName: `reports/mutation/${name}.json` },
  clearTextReporter: { allowColor: false, logTests: false, reportScoreTable: true, reportMutants: false },
  tempDirName: "reports/mutation/.stryker-tmp",
  // scripts/check-mutations.mjs applies the 80% per package; Stryker's own break is off.
  thresholds: { high: 90, low: 80, break: null },
  cleanTempDir: "always",
};
