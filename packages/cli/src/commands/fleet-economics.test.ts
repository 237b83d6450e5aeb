import type { FakeVastServer } from "@cuzkit/vast/testing";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { cuzkitArgv } from "../../../../test/support/cuzkit-process.js";
import type { CliIO } from "../io.js";
import { exitOverrideAll, type FleetCli, startFleetCli } from "../testing/fleet-cli.js";
import { memorySink, parseCapturingError } from "../testing/memory-io.js";
import { createFleetCommand, type FleetCommandDeps } from "./fleet/index.js";

let cli: FleetCli;
let fake: FakeVastServer;
let home: string;
let db: string;

beforeEach(async () => {
  cli = await startFleetCli("cuzkit-fleet-economics-");
  ({ fake, home, db } = cli);
});
afterEach(() => cli.close());

const run = (args: string[], deps?: FleetCommandDeps) => cli.run(args, deps);

describe("cuzkit fleet offers", () => {
  it("--json ranks by optimistic $ per 1000 proofs and says why the rest are left out", async () => {
    const { stdout, error } = await run(["offers", "--db", db, "--min-proofs-per-hour", "40", "--json"]);
    expect(error).toBeUndefined();
    const parsed = JSON.parse(stdout) as {
      offers: Array<{
        offerId: number;
        source: string;
        optimisticCostPer1000: number;
        costPer1000: number;
        dphPerHour: number;
      }>;
      excluded: Array<{ offerId: number; reason: string }>;
    };
    expect(parsed.offers.map((o) => o.offerId).sort()).toEqual([1002, 1003]);
    expect(parsed.offers.every((o) => o.source === "predicted")).toBe(true);
    const keys = parsed.offers.map((o) => o.optimisticCostPer1000);
    expect(keys).toEqual([...keys].sort((a, b) => a - b));
    // The dashboard's /api/offers fields: the offer, fits: false, and why.
    expect(parsed.excluded).toEqual([
      expect.objectContaining({
        offerId: 1001,
        machineId: 501,
        fits: false,
        reason: "the tuner finds no safe config for this offer",
      }),
      expect.objectContaining({
        offerId: 1004,
        machineId: 504,
        fits: false,
        reason: "the tuner finds no safe config for this offer",
      }),
    ]);
  });

  it("prints a table with every estimate and the one used", async () => {
    const { stdout } = await run(["offers", "--db", db, "--min-proofs-per-hour", "40"]);
    expect(stdout).toContain("$/1K PROOFS");
    expect(stdout).toContain("2x RTX 3090");
    expect(stdout).toContain("predicted");
    expect(stdout).toContain("2 offer(s) left out");
  });
});

describe("cuzkit fleet run", () => {
  it("--once rents the best-ranked offer to reach the target and says why", async () => {
    const { stdout, error } = await run([
      "run",
      "--once",
      "--db",
      db,
      "--min-proofs-per-hour",
      "40",
      "--image",
      "ghcr.io/example/prover:1",
      "--manager-url",
      "http://203.0.113.5:7320",
      "--target-instances",
      "1",
    ]);
    expect(error).toBeUndefined();
    expect(stdout).toMatch(/^rent offer 100[23]: under target \(0 instances for 1\): best ranked, predicted/);
    expect(fake.instances.size).toBe(1);
  });

  it("refuses no target, or both, naming the flags", async () => {
    for (const extra of [[], ["--target-instances", "1", "--target-proofs-per-hour", "50"]]) {
      const { error } = await run(["run", "--once", "--db", db, "--min-proofs-per-hour", "40", ...extra]);
      expect(error).toMatchObject({
        code: "FLEET_CONFIG",
        hint: expect.stringContaining("--target-instances"),
      });
    }
    expect(fake.instances.size).toBe(0);
  });
});

describe("cuzkit fleet run (serving)", () => {
  it("serves the agents and takes a step until stopped", async () => {
    const { stdout, error } = await run([
      "run",
      "--db",
      db,
      "--listen",
      "127.0.0.1:0",
      "--min-proofs-per-hour",
      "40",
      "--image",
      "ghcr.io/example/prover:1",
      "--manager-url",
      "http://203.0.113.5:7320",
      "--target-instances",
      "1",
    ]);
    expect(error).toBeUndefined();
    expect(stdout).not.toContain("not done");
    // It serves first (agents, and the dashboard with its admin token), then steps.
    expect(stdout).toMatch(/^listening http:\/\/127\.0\.0\.1:\d+\ndashboard http:/);
    expect(stdout).toMatch(/\nadmin token \S+ \(kept in .*admin-token\)\nrent offer 100[23]: under target/);
    expect(fake.instances.size).toBe(1);
  });
});

describe("cuzkit fleet demo", () => {
  it("--in-process: the ranking before and after, the calibration, and learning ahead of specs alone", async () => {
    const { stdout, error } = await run(["demo", "--in-process", "--seed", "3"]);
    expect(error).toBeUndefined();
    expect(stdout).toMatch(
      /ranking before any measurement[\s\S]*kept[\s\S]*ranking after measurement[\s\S]*learnt calibration/,
    );
    const achieved = /learning fleet \$([\d.]+) {3}spec-only \$([\d.]+) {3}oracle \$([\d.]+)/.exec(stdout);
    expect(Number(achieved?.[1])).toBeLessThan(Number(achieved?.[2]));
  });

  // The whole story is asserted in the fleet's market-demo test; here, that the command runs it
  // through real agent processes and ends with every one of them stopped.
  it("runs the fleet on real agent processes and prints the summary", { timeout: 90_000 }, async () => {
    const [command, args] = cuzkitArgv();
    const stdout = memorySink();
    const io: CliIO = { stdout, stderr: memorySink(), env: { HOME: home }, cwd: home };
    const fleet = createFleetCommand(io, { cuzkitCommand: { command, args } });
    exitOverrideAll(fleet);
    const error = await parseCapturingError(fleet, ["demo", "--hours", "3"]);
    expect(error).toBeUndefined();
    const text = stdout.text();
    expect(text).toContain("each rental is a real `cuzkit agent`");
    expect(text).toMatch(/ranking before any measurement[\s\S]*2001 {3}2x A40 +predicted/);
    expect(text).toMatch(/rent offer 2001: under target/);
    expect(text).toMatch(/how each machine ended[\s\S]*offer 2001 i-[0-9a-f]{8}/);
    expect(text).toContain("$ per 1000 proofs achieved");
  });
});
