// The tests that guard the mutated decision code (stryker.config.mjs), apart from the mutate
// ranges: vitest.stryker.config.ts loads this while Stryker has the source files instrumented,
// where the ranges (found by reading those files) cannot be resolved.

/** The tests that guard those files, per run (colocated, and the routes' for the token rule). */
export const guardTests = {
  core: ["packages/core/src/time.test.ts", "packages/core/src/retry.test.ts"],
  tuner: ["packages/tuner/src/search.test.ts"],
  bench: ["packages/bench/src/verdict.test.ts", "packages/bench/src/early-verdict.test.ts"],
  client: [
    "packages/client/src/map-error.test.ts",
    "packages/client/src/recovery.test.ts",
    "packages/client/src/prove.test.ts",
  ],
  fleet: [
    "packages/fleet/src/decision.test.ts",
    "packages/fleet/src/keep-rule.test.ts",
    "packages/fleet/src/economics/ranking.test.ts",
    "packages/fleet/src/manager/leadership.test.ts",
    "packages/fleet/src/server/admin-token.test.ts",
    "packages/fleet/src/server/host-check.test.ts",
    "packages/fleet/src/server/dashboard-routes.test.ts",
    "packages/fleet/src/server/server-limits.test.ts",
  ],
  "fleet-lease": ["packages/fleet/src/store/writer-lease.test.ts"],
};

/** The package this run mutates (scripts/check-mutations.mjs sets it); unset: every package. */
export const mutationPackage = process.env.CUZKIT_MUTATION_PACKAGE || undefined;
