import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { defaultSqliteDriver } from "../packages/fleet/src/store/sqlite-driver.js";

// Every package must work when installed from the registry: build, pack with pnpm (which
// rewrites workspace: versions), install the tarballs into an empty npm project, then import
// each entry point as ESM and with require(), and run the `cuzkit` binary.
const root = join(import.meta.dirname, "..");
const packageDirs = ["proto", ...readdirSync(join(root, "packages")).map((name) => `packages/${name}`)];
const packageNames = packageDirs.map(
  (dir) => JSON.parse(readFileSync(join(root, dir, "package.json"), "utf8")).name as string,
);
let scratch = "";
// better-sqlite3 (the fleet's store) compiles from source here, minutes on 2 cores: the consumer
// links the copy the workspace already built, and the install runs no scripts (no other
// dependency of ours needs one).
const builtSqlite = join(
  createRequire(join(root, "packages/fleet/package.json")).resolve("better-sqlite3/package.json"),
  "..",
);

const run = (command: string, args: string[], cwd: string) =>
  execFileSync(command, args, { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 600_000 });

describe("packages as published", () => {
  beforeAll(() => {
    scratch = mkdtempSync(join(tmpdir(), "cuzkit-pack-"));
    // dist/ does not depend on the Node that runs the tests: .ci/run builds it in its first
    // (Node 20) run and sets CUZKIT_REUSE_BUILD=1 for the Node 22 and 24 runs of the same tree.
    if (process.env.CUZKIT_REUSE_BUILD !== "1") run("pnpm", ["run", "build"], root);
    for (const dir of packageDirs) run("pnpm", ["pack", "--pack-destination", scratch], join(root, dir));
    const tarballs = readdirSync(scratch).filter((file) => file.endsWith(".tgz"));
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
        ...tarballs.map((file) => `./${file}`),
      ],
      scratch,
    );
  }, 900_000);

  afterAll(() => {
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it("passes publint", () => {
    for (const dir of packageDirs) {
      const output = run("npx", ["publint", "--strict", join(root, dir)], root);
      expect(output, dir).not.toMatch(/error|warning/i);
    }
  }, 300_000); // eight npx runs: 45 s on a loaded 2-core machine

  it.each(packageNames)("%s imports as ESM and with require()", (name) => {
    const esm = run(
      "node",
      [
        "--input-type=module",
        "-e",
        `const m = await import(${JSON.stringify(name)}); console.log(Object.keys(m).length);`,
      ],
      scratch,
    );
    expect(Number(esm.trim())).toBeGreaterThan(0);
    const cjs = run(
      "node",
      ["-e", `const m = require(${JSON.stringify(name)}); console.log(Object.keys(m).length);`],
      scratch,
    );
    expect(Number(cjs.trim())).toBeGreaterThan(0);
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
    const keys = JSON.parse(
      run(
        "node",
        [
          "--input-type=module",
          "-e",
          `console.log(JSON.stringify(Object.keys(await import(${JSON.stringify(name)}))));`,
        ],
        scratch,
      ),
    ) as string[];
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
  const typecheckConsumer = (module: string, type: "module" | "commonjs") => {
    const dir = mkdtempSync(join(scratch, `ts-${module}-${type}-`));
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "ts-consumer", private: true, type }));
    writeFileSync(join(dir, "consumer.ts"), consumer);
    const compilerOptions = {
      module,
      moduleResolution: module,
      strict: true,
      exactOptionalPropertyTypes: true,
      noEmit: true,
      skipLibCheck: false,
      types: ["node"],
      typeRoots: [join(root, "node_modules/@types")],
      target: "ES2022",
    };
    writeFileSync(join(dir, "tsconfig.json"), JSON.stringify({ compilerOptions, files: ["consumer.ts"] }));
    try {
      run("node", [join(root, "node_modules/typescript/bin/tsc"), "-p", dir], dir);
      return "";
    } catch (error) {
      return String((error as { stdout?: string }).stdout ?? error);
    }
  };

  it.each(["node16", "nodenext"])(
    "type-checks an ESM TypeScript consumer with module %s",
    (module) => {
      expect(typecheckConsumer(module, "module")).toBe("");
    },
    180_000,
  ); // a full tsc over every package's types: 20-40 s on a loaded 2-core machine

  it("a CommonJS TypeScript consumer under module node16 gets TS1479 (documented)", () => {
    expect(typecheckConsumer("node16", "commonjs")).toMatch(/TS1479/);
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
