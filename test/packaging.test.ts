import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultSqliteDriver } from "../packages/fleet/src/store/sqlite-driver.js";
import { packAll } from "../scripts/pack-packages.mjs";
import { publintTarball } from "../scripts/publint-tarball.mjs";
import { buildAndStamp, buildIsCurrent } from "./support/build-stamp.js";
import { exportsOf, loadEntries } from "./support/entry-exports.js";
import { typecheck } from "./support/typecheck.js";

// Every package must work when installed from the registry: build, pack with pnpm (which
// rewrites workspace: versions), install the tarballs into an empty npm project, then import
// each entry point as ESM and with require(), and run the `cuzkit` binary.
const root = join(import.meta.dirname, "..");
const packageDirs = ["proto", ...readdirSync(join(root, "packages")).map((name) => `packages/${name}`)];
const packageNames = packageDirs.map(
  (dir) => JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8")).name as string,
);
let scratch = "";
let packed: { name: string; tarball: string }[] = [];
// better-sqlite3 (the fleet's store) compiles from source here, minutes on 2 cores: the consumer
// links the copy the workspace already built, and the install runs no scripts (no other
// dependency of ours needs one).
const builtSqlite = join(
  createRequire(join(root, "packages/fleet/package.json")).resolve("better-sqlite3/package.json"),
  "..",
);

const run = (command: string, args: string[], cwd: string) =>
  execFileSync(command, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 600_000 });

// Every entry loaded in one node process per loader (below), once, by the first test that asks.
const memo = <T>(compute: () => T) => {
  let value: { computed: T } | undefined;
  return () => {
    value ??= { computed: compute() };
    return value.computed;
  };
};

describe("packages as published", () => {
  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), "cuzkit-pack-"));
    // dist/ does not depend on the Node that runs the tests: .ci/run builds it in its first
    // (Node 20) run and sets CUZKIT_REUSE_BUILD=1 for the Node 22 and 24 runs of the same tree.
    // Locally, a dist/ built from the same inputs and untouched since is reused too
    // (test/support/build-stamp.ts).
    if (process.env.CUZKIT_REUSE_BUILD !== "1" && !buildIsCurrent(root, packageDirs))
      buildAndStamp(root, packageDirs, () => run("pnpm", ["run", "build"], root));
    // One `pnpm -r pack` for every package (scripts/pack-packages.mjs, as check:packages and
    // release pack them).
    packed = packAll(join(scratch, "tarballs"), { build: false });
    writeFileSync(
      join(scratch, "package.json"),
      JSON.stringify({ name: "consumer", private: true, type: "module" }),
    );
    run(
      "npm",
      [
        "install",
        "--no-audit",
        "--no-fund",
        "--loglevel=error",
        "--ignore-scripts",
        builtSqlite,
        ...packed.map((pkg) => `./${relative(scratch, pkg.tarball)}`),
      ],
      scratch,
    );
  }, 900_000);

  afterAll(() => {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it("every package is packed", () => {
    expect(packed.map((pkg) => pkg.name).sort()).toEqual([...packageNames].sort());
  });

  // publint --strict over each tarball, in this process (scripts/publint-tarball.mjs).
  it("passes publint", async () => {
    const reports = await Promise.all(
      packed.map(async (pkg) => [pkg.name, await publintTarball(pkg.tarball)]),
    );
    expect(Object.fromEntries(reports)).toEqual(Object.fromEntries(packed.map((pkg) => [pkg.name, []])));
  }, 120_000);

  const esmLoads = memo(() =>
    loadEntries(scratch, [...new Set([...packageNames, ...Object.keys(entries)])], "import"),
  );
  const cjsLoads = memo(() => loadEntries(scratch, packageNames, "require"));

  it.each(packageNames)("%s imports as ESM and with require()", (name) => {
    expect(exportsOf(esmLoads(), name).length).toBeGreaterThan(0);
    expect(exportsOf(cjsLoads(), name).length).toBeGreaterThan(0);
  });

  // What each entry must give its users, and internals or test kits it must not expose.
  const entries: Record<string, { has: string[]; lacks?: string[] }> = {
    "@cuzkit/core": {
      has: [
        "CuzkitError",
        "InvalidInputError",
        "C1InputError",
        "readC1Wrapper",
        "inspectC1",
        "modelDaemon",
        "withDefaults",
        "linkSignals",
      ],
      lacks: ["createManualClock"],
    },
    "@cuzkit/core/testing": { has: ["createManualClock"] },
    "@cuzkit/client": {
      has: [
        "createCuzkClient",
        "porepRequest",
        "DaemonRestartedError",
        "clientErrorCodes",
        "parseVanillaProofsFile",
        "fetchStatusJson",
      ],
      lacks: ["encodeSubmitFrame", "toCuzkError", "normalizeStatus", "decideRecovery", "startTcpProxy"],
    },
    "@cuzkit/client/testing": { has: ["startTcpProxy"] },
    "@cuzkit/vast": {
      has: ["createVastClient", "VastApiError", "vastErrorCodes", "parseOfferQuery", "offerHardware"],
      lacks: ["startFakeVastServer", "backoffDelayMs", "classifyResponse"],
    },
    "@cuzkit/vast/testing": { has: ["startFakeVastServer", "sampleOffers", "fakeRateLimitSeconds"] },
    "@cuzkit/sim": {
      has: ["startSimDaemon", "createSyntheticC1", "C1ParseError"],
      lacks: ["createPlainGrpcClient", "grpcError", "createManualScheduler", "parseC1Wrapper"],
    },
    "@cuzkit/sim/testing": {
      has: [
        "createPlainGrpcClient",
        "grpcError",
        "createManualScheduler",
        "startSimProcess",
        "simulatedProofBytes",
      ],
    },
    "@cuzkit/tuner": {
      has: ["recommend", "detectHardware", "emitCuzkToml", "checkConfig"],
      lacks: ["parseCpuMax"],
    },
    "@cuzkit/bench": {
      has: ["runBenchmark", "formatReport", "verdictExitCode", "benchDefaults"],
      lacks: ["decideVerdict"],
    },
    "@cuzkit/fleet": {
      has: [
        "createFleetManager",
        "openFleetStore",
        "connectFleetStore",
        "startFleetServer",
        "startFleetRun",
        "FleetError",
        "fleetErrorCodes",
        "fleetDefaults",
      ],
      lacks: [
        "startMarket",
        "hiddenMarket",
        "decideBenchmark",
        "transitions",
        "hashAgentToken",
        "parseListen",
        "runAgent",
        "startAgentPage",
        "runMarketDemo",
      ],
    },
    "@cuzkit/fleet/agent": {
      has: ["runAgent", "createHttpReporter", "startAgentPage"],
      lacks: ["createFleetManager", "openFleetStore"],
    },
    "@cuzkit/fleet/defaults": { has: ["fleetDefaults", "agentDefaults"] },
    "@cuzkit/fleet/testing": {
      has: ["startMarket", "hiddenMarket", "simulateEconomy"],
      lacks: ["runMarketDemo", "runEconomyDemo", "demoMarket"],
    },
    "@cuzkit/fleet/demo": {
      has: ["runMarketDemo", "runEconomyDemo", "demoMarket"],
      lacks: ["startMarket", "createFleetManager"],
    },
  };

  it.each(Object.keys(entries))("%s exports what its users call, and not its internals", (name) => {
    const keys = exportsOf(esmLoads(), name);
    const { has, lacks = [] } = entries[name]!;
    for (const key of has) expect(keys, `${name} should export ${key}`).toContain(key);
    for (const key of lacks) expect(keys, `${name} should not export ${key}`).not.toContain(key);
  });

  // A TypeScript consumer of the published types. ESM consumers work with module node16,
  // node18, node20 and nodenext; a CommonJS consumer (no "type": "module") under node16
  // cannot import ESM-only packages (TS1479), which is what the README says.
  const consumer = `import { CuzkitError, withDefaults } from "@cuzkit/core";
import { createManualClock } from "@cuzkit/core/testing";
import { createCuzkClient, type CuzkClientOptions, DaemonRestartedError } from "@cuzkit/client";
import { startFakeVastServer } from "@cuzkit/vast/testing";
import { startSimDaemon } from "@cuzkit/sim";
import { createPlainGrpcClient } from "@cuzkit/sim/testing";
import { recommend } from "@cuzkit/tuner";
import { runBenchmark } from "@cuzkit/bench";
import { createFleetManager, FleetError, type FleetErrorCode } from "@cuzkit/fleet";
import { fleetDefaults } from "@cuzkit/fleet/defaults";
import { hiddenMarket } from "@cuzkit/fleet/testing";
const fleetCode: FleetErrorCode = new FleetError("x", { code: "FLEET_CONFIG" }).code;
const options: CuzkClientOptions = { address: "127.0.0.1:9820", maxInFlight: undefined };
const error: CuzkitError = new DaemonRestartedError("gone", { jobId: "j1" });
const code: "DAEMON_RESTARTED" = new DaemonRestartedError("gone").code;
export const used = [options, error, code, fleetCode, createFleetManager, fleetDefaults, hiddenMarket, withDefaults, createManualClock, createCuzkClient, startFakeVastServer, startSimDaemon, createPlainGrpcClient, recommend, runBenchmark];
`;
  // Type-checked in this process (test/support/typecheck.ts: one TypeScript load for the three
  // runs). `everything` checks every declaration file the consumer loads, ours and those of our
  // dependencies (skipLibCheck off, as a strict consumer may have it); `consumer` only the
  // consumer's own file (its imports resolve and its uses of our types check).
  const typecheckConsumer = (
    module: string,
    type: "module" | "commonjs",
    scope: "everything" | "consumer",
  ) => {
    const dir = mkdtempSync(join(scratch, `ts-${module}-${type}-`));
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "ts-consumer", private: true, type }));
    writeFileSync(join(dir, "consumer.ts"), consumer);
    const compilerOptions = {
      module,
      moduleResolution: module,
      strict: true,
      exactOptionalPropertyTypes: true,
      skipLibCheck: false,
      types: ["node"],
      typeRoots: [join(root, "node_modules/@types")],
      target: "ES2022",
    };
    const files = [join(dir, "consumer.ts")];
    return typecheck({ files, compilerOptions, semanticFiles: scope === "consumer" ? files : undefined });
  };

  // The declarations are checked once, under node16: an ESM consumer resolves the same files under
  // node16 and nodenext (the "import" condition, the same package.json "type"s), and node16 is the
  // stricter of the two (it refuses require() of ESM and import attributes, which nodenext allows).
  it("type-checks an ESM TypeScript consumer with module node16, every declaration file included", () => {
    expect(typecheckConsumer("node16", "module", "everything")).toBe("");
  }, 180_000); // every package's types and their dependencies': 15-25 s on a loaded 2-core machine

  it("type-checks an ESM TypeScript consumer with module nodenext", () => {
    expect(typecheckConsumer("nodenext", "module", "consumer")).toBe("");
  }, 180_000);

  // TS1479 is reported in the consumer's own file.
  it("a CommonJS TypeScript consumer under module node16 gets TS1479 (documented)", () => {
    expect(typecheckConsumer("node16", "commonjs", "consumer")).toMatch(/TS1479/);
  }, 180_000);

  it("the fleet store opens on this Node, needing better-sqlite3 only where Node has no SQLite", () => {
    const driver = run(
      "node",
      [
        "--input-type=module",
        "-e",
        `const { openFleetStore } = await import("@cuzkit/fleet");
const store = openFleetStore({ path: ":memory:" });
console.log(store.db.driver);
store.close();`,
      ],
      scratch,
    ).trim();
    // node:sqlite on Node 22.13+ (the linked better-sqlite3 was built for another Node there).
    expect(driver).toBe(defaultSqliteDriver());
    const manifest = JSON.parse(
      readFileSync(join(scratch, "node_modules", "@cuzkit", "fleet", "package.json"), "utf8"),
    ) as { dependencies?: Record<string, string>; optionalDependencies?: Record<string, string> };
    // Optional, so an install on Node 22+ without a C++ compiler still succeeds.
    expect(manifest.optionalDependencies).toHaveProperty("better-sqlite3");
    expect(manifest.dependencies ?? {}).not.toHaveProperty("better-sqlite3");
  });

  it("installs a working cuzkit binary", () => {
    const help = run(join(scratch, "node_modules", ".bin", "cuzkit"), ["--help"], scratch);
    expect(help).toMatch(/Usage: cuzkit/);
    for (const command of ["tune", "sim", "bench", "prove", "status", "vast", "demo"])
      expect(help).toContain(command);
  });
});
