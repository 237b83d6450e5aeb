import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// One config for the whole workspace: package imports resolve to their TypeScript sources,
// so tests never need a build first.
const src = (path: string) => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  resolve: {
    alias: {
      "@cuzkit/core": src("./packages/core/src/index.ts"),
      "@cuzkit/proto": src("./proto/src/index.ts"),
      "@cuzkit/client": src("./packages/client/src/index.ts"),
      "@cuzkit/tuner": src("./packages/tuner/src/index.ts"),
      "@cuzkit/vast": src("./packages/vast/src/index.ts"),
      "@cuzkit/sim": src("./packages/sim/src/index.ts"),
      "@cuzkit/bench": src("./packages/bench/src/index.ts"),
      "@cuzkit/fleet": src("./packages/fleet/src/index.ts"),
    },
  },
  test: {
    include: [
      "proto/src/**/*.test.ts",
      "packages/*/src/**/*.test.ts",
      "examples/**/*.test.ts",
      "test/**/*.test.ts",
    ],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Two cores here; gRPC servers and child processes are heavier than the tests themselves.
    pool: "forks",
    maxWorkers: 2,
  },
});
