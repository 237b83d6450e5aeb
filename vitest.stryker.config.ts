import { defineConfig } from "vitest/config";
import { guardTests, mutationPackage } from "./scripts/mutation-guard-tests.mjs";
import base from "./vitest.config.js";

// The workspace's config, with only the tests that guard the mutated decision code of the
// package under test (scripts/check-mutations.mjs): the full suite per mutant would take hours.
const include =
  mutationPackage === undefined ? Object.values(guardTests).flat() : guardTests[mutationPackage];

export default defineConfig({
  ...base,
  test: { ...base.test, include, maxWorkers: 1 },
});
