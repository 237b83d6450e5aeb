import { describe, expect, it } from "vitest";
import { cuzkitArgv } from "../../../../test/support/cuzkit-process.js";
import { fleetSettings, useFleetCli } from "../test-support/fleet-cli.js";

const cli = useFleetCli();
/** What `fleet run` needs besides a target: the store and the fleet settings. */
const runFlags = () => ["--db", cli.db, ...fleetSettings];

describe("cuzkit fleet offers", () => {
  it("--json ranks by optimistic $ per 1000 proofs and says why the rest are left out", async () => {
    const { stdout, error } = await cli.run([
      "offers",
      "--db",
      cli.db,
      "--min-proofs-per-hour",
      "40",
      "--json",
    ]);
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
    const { stdout } = await cli.run(["offers", "--db", cli.db, "--min-proofs-per-hour", "40"]);
    expect(stdout).toContain("$/1K PROOFS");
    expect(stdout).toContain("2x RTX 3090");
    expect(stdout).toContain("predicted");
    expect(stdout).toContain("2 offer(s) left out");
  });

  it("--max-usd-per-1000-proofs keeps by price: each offer's floor is its $/h over the ceiling", async () => {
    const { stdout, error } = await cli.run([
      "offers",
      "--db",
      cli.db,
      "--max-usd-per-1000-proofs",
      "15",
      "--json",
    ]);
    expect(error).toBeUndefined();
    const parsed = JSON.parse(stdout) as {
      offers: Array<{ offerId: number; dphPerHour: number; keepMinimumProofsPerHour: number }>;
    };
    expect(parsed.offers.length).toBe(2);
    for (const o of parsed.offers)
      expect(o.keepMinimumProofsPerHour).toBeCloseTo((o.dphPerHour * 1000) / 15, 9);
    // Both rules: the higher floor holds.
    const both = await cli.run([
      "offers",
      ...["--db", cli.db, "--max-usd-per-1000-proofs", "15", "--min-proofs-per-hour", "1000"],
    ]);
    expect(both.stdout).toContain("KEEP AT");
    expect(both.stdout).toMatch(/1000\.0/);
  });

  it("refuses a ceiling that is not a positive price, naming the flag", async () => {
    const { error } = await cli.run(["offers", "--db", cli.db, "--max-usd-per-1000-proofs", "-2"]);
    expect(String((error as { message?: string } | undefined)?.message)).toMatch(/--max-usd-per-1000-proofs/);
  });
});

describe("cuzkit fleet run", () => {
  it("--once rents the best-ranked offer to reach the target and says why", async () => {
    const { stdout, error } = await cli.run(["run", "--once", ...runFlags(), "--target-instances", "1"]);
    expect(error).toBeUndefined();
    expect(stdout).toMatch(/^rent offer 100[23]: under target \(0 instances for 1\): best ranked, predicted/);
    expect(cli.server.instances.size).toBe(1);
  });

  it("refuses no target, or both, naming the flags", async () => {
    for (const extra of [[], ["--target-instances", "1", "--target-proofs-per-hour", "50"]]) {
      const { error } = await cli.run([
        "run",
        "--once",
        "--db",
        cli.db,
        "--min-proofs-per-hour",
        "40",
        ...extra,
      ]);
      expect(error).toMatchObject({
        code: "FLEET_CONFIG",
        hint: expect.stringContaining("--target-instances"),
      });
    }
    expect(cli.server.instances.size).toBe(0);
  });
});

describe("cuzkit fleet run (serving)", () => {
  it("serves the agents and takes a step until stopped", async () => {
    const { stdout, error } = await cli.run([
      "run",
      ...runFlags(),
      "--listen",
      "127.0.0.1:0",
      "--target-instances",
      "1",
    ]);
    expect(error).toBeUndefined();
    expect(stdout).not.toContain("not done");
    // It serves first (agents, and the dashboard with its admin token), then steps.
    expect(stdout).toMatch(/^listening http:\/\/127\.0\.0\.1:\d+\ndashboard http:/);
    // It holds the store's writer lease while it acts.
    expect(stdout).toMatch(
      /\nadmin token \S+ \(kept in .*admin-token\)\nleading\nrent offer 100[23]: under target/,
    );
    expect(cli.server.instances.size).toBe(1);
  });
});

describe("cuzkit fleet demo", () => {
  it("--in-process: the ranking before and after, the calibration, and learning ahead of specs alone", async () => {
    const { stdout, error } = await cli.run(["demo", "--in-process", "--seed", "3"]);
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
    const { stdout: text, error } = await cli.run(["demo", "--hours", "3"], {
      cuzkitCommand: { command, args },
    });
    expect(error).toBeUndefined();
    expect(text).toContain("each rental is a real `cuzkit agent`");
    expect(text).toMatch(/ranking before any measurement[\s\S]*2001 {3}2x A40 +predicted/);
    expect(text).toMatch(/rent offer 2001: under target/);
    expect(text).toMatch(/how each machine ended[\s\S]*offer 2001 i-[0-9a-f]{8}/);
    expect(text).toContain("$ per 1000 proofs achieved");
  });
});
