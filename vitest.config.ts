import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// One config for the whole workspace: package imports resolve to their TypeScript sources,
// so tests never need a build first.
const src = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  resolve: {
    // Exact matches, so `@cuzkit/core` does not also catch `@cuzkit/core/testing`.
    alias: [
      { find: /^@cuzkit\/core$/, replacement: src("./packages/core/src/index.ts") },
      { find: /^@cuzkit\/proto$/, replacement: src("./proto/src/index.ts") },
      { find: /^@cuzkit\/client$/, replacement: src("./packages/client/src/index.ts") },
      { find: /^@cuzkit\/tuner$/, replacement: src("./packages/tuner/src/index.ts") },
      { find: /^@cuzkit\/vast$/, replacement: src("./packages/vast/src/index.ts") },
      { find: /^@cuzkit\/sim$/, replacement: src("./packages/sim/src/index.ts") },
      { find: /^@cuzkit\/bench$/, replacement: src("./packages/bench/src/index.ts") },
      { find: /^@cuzkit\/fleet$/, replacement: src("./packages/fleet/src/index.ts") },
      { find: /^@cuzkit\/fleet\/agent$/, replacement: src("./packages/fleet/src/agent/index.ts") },
      { find: /^@cuzkit\/fleet\/defaults$/, replacement: src("./packages/fleet/src/defaults.ts") },
      { find: /^@cuzkit\/fleet\/testing$/, replacement: src("./packages/fleet/src/testing/index.ts") },
      { find: /^@cuzkit\/fleet\/demo$/, replacement: src("./packages/fleet/src/demo/index.ts") },
      { find: /^@cuzkit\/core\/testing$/, replacement: src("./packages/core/src/testing/index.ts") },
      { find: /^@cuzkit\/client\/testing$/, replacement: src("./packages/client/src/testing/index.ts") },
      { find: /^@cuzkit\/sim\/testing$/, replacement: src("./packages/sim/src/testing/index.ts") },
      { find: /^@cuzkit\/vast\/testing$/, replacement: src("./packages/vast/src/testing/index.ts") },
    ],
  },
  test: {
    include: [
      "proto/src/**/*.test.ts",
      "packages/*/src/**/*.test.ts",
      "examples/**/*.test.ts",
      "test/**/*.test.ts",
    ],
    // Bundles the `cuzkit` command once per run for the tests that start it as a process.
    globalSetup: ["./test/support/cli-bundle-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two cores here; gRPC servers and child processes are heavier than the tests themselves.
    pool: "forks",
    maxWorkers: 2,
  },
});
