import { InvalidInputError } from "@cuzkit/core";
import { afterEach, describe, expect, it } from "vitest";
import { timedProofRecords } from "../evidence/benchmark-claim.js";
import { describeKeepMinimum, keepMinimumProofsPerHour, usdPer1000Proofs } from "../keep-rule.js";
import { startTestFleet, type TestFleet } from "../test-support/test-fleet.js";
import { resolveFleetConfig } from "./config.js";

let fleet: TestFleet | undefined;
afterEach(async () => {
  await fleet?.close();
  fleet = undefined;
});

const minute = 60_000;
/** 12 honest timed proofs, one at a time, at `proofsPerHour`. */
const honest = (proofsPerHour: number) => timedProofRecords({ count: 12, wallMs: 3_600_000 / proofsPerHour });

async function report(t: TestFleet, id: string, proofsPerHour: number) {
  await t.manager.agent.register(id, { agentVersion: "0.1.0" });
  for (const phase of ["params", "warmup", "benchmarking"] as const)
    await t.manager.agent.phase(id, { phase });
  return t.manager.agent.report(id, { verdict: "MET", proofsPerHour, proofs: honest(proofsPerHour) });
}

describe("the keep rule by price", () => {
  it("turns a $ per 1000 proofs ceiling into each machine's own floor, and keeps the higher of both rules", () => {
    const byPrice = { minProofsPerHour: 0, maxUsdPer1000Proofs: 15 };
    // $0.45/h at $15 per 1000 proofs pays for itself from 30 proofs/h; $1.20/h needs 80.
    expect(keepMinimumProofsPerHour(byPrice, 0.45)).toBeCloseTo(30, 9);
    expect(keepMinimumProofsPerHour(byPrice, 1.2)).toBeCloseTo(80, 9);
    // Both given: a machine must clear both.
    expect(keepMinimumProofsPerHour({ minProofsPerHour: 40, maxUsdPer1000Proofs: 15 }, 0.45)).toBe(40);
    expect(keepMinimumProofsPerHour({ minProofsPerHour: 40, maxUsdPer1000Proofs: 15 }, 1.2)).toBeCloseTo(
      80,
      9,
    );
    expect(keepMinimumProofsPerHour({ minProofsPerHour: 40, maxUsdPer1000Proofs: undefined }, 9)).toBe(40);
    expect(usdPer1000Proofs(0.45, 60)).toBeCloseTo(7.5, 9);
    expect(usdPer1000Proofs(0.45, 0)).toBe(Number.POSITIVE_INFINITY);
    expect(describeKeepMinimum(byPrice, 1.2)).toBe(
      "the minimum 80.0/h ($1.200/h at most $15.00 per 1000 proofs)",
    );
    expect(describeKeepMinimum({ minProofsPerHour: 40, maxUsdPer1000Proofs: 15 }, 0.45)).toBe(
      "the minimum 40.0/h",
    );
  });

  it("refuses a fleet with no keep rule, or a ceiling that is not a positive price, naming the flags", () => {
    const thrown = (fn: () => unknown) => {
      try {
        fn();
      } catch (error) {
        return error as InvalidInputError;
      }
      throw new Error("expected a throw");
    };
    const none = thrown(() => resolveFleetConfig({}));
    expect(none).toBeInstanceOf(InvalidInputError);
    expect(none.message).toMatch(/keep rule/);
    expect(none.hint).toMatch(/--min-proofs-per-hour N .* --max-usd-per-1000-proofs USD/);
    for (const bad of [0, -3, Number.NaN]) {
      const error = thrown(() => resolveFleetConfig({ maxUsdPer1000Proofs: bad }));
      expect(error.message).toMatch(/maxUsdPer1000Proofs must be a positive number/);
      expect(error.hint).toMatch(/--max-usd-per-1000-proofs/);
    }
    expect(resolveFleetConfig({ maxUsdPer1000Proofs: 15 })).toMatchObject({
      minProofsPerHour: 0,
      maxUsdPer1000Proofs: 15,
    });
  });

  it("keeps the cheap machine and rejects the dear one at the same measured rate and tells each agent its own floor", async () => {
    fleet = await startTestFleet({ config: { minProofsPerHour: undefined, maxUsdPer1000Proofs: 15 } });
    const t = fleet;
    const cheap = await t.manager.deploy(1002); // $0.45/h: kept from 30/h
    const dear = await t.manager.deploy(1003); // $1.20/h: kept from 80/h
    const instructions = await t.manager.agent.register(cheap.id, { agentVersion: "0.1.0" });
    expect(instructions.minProofsPerHour).toBeCloseTo(30, 9);
    for (const phase of ["params", "warmup", "benchmarking"] as const)
      await t.manager.agent.phase(cheap.id, { phase });
    const kept = await t.manager.agent.report(cheap.id, {
      verdict: "MET",
      proofsPerHour: 60,
      proofs: honest(60),
    });
    expect(kept).toMatchObject({ keep: true, state: "active" });

    const rejected = await report(t, dear.id, 60);
    expect(rejected).toMatchObject({ keep: false, state: "rejected" });
    expect(rejected.reason).toMatch(
      /^rejected: 60\.0\/h < the minimum 80\.0\/h \(\$1\.200\/h at most \$15\.00 per 1000 proofs\)/,
    );
    // The stored benchmark carries the machine's own minimum, as the dashboard shows it.
    expect((await t.manager.store.benchmarkResult(dear.id))?.minProofsPerHour).toBeCloseTo(80, 9);
    expect((await t.manager.store.benchmarkResult(cheap.id))?.minProofsPerHour).toBeCloseTo(30, 9);
  });

  it("replaces a kept machine whose production stops paying for itself, with the price in the event", async () => {
    fleet = await startTestFleet({ config: { minProofsPerHour: undefined, maxUsdPer1000Proofs: 15 } });
    const t = fleet;
    const machine = await t.manager.deploy(1002); // $0.45/h: its floor is 30/h
    expect((await report(t, machine.id, 60)).keep).toBe(true);
    // It delivers 10 proofs per 30 minutes (20/h: $22.50 per 1000 proofs): one window to measure
    // it, one below the floor (the hysteresis), then it is replaced.
    for (let i = 0; i < 12 && (await t.manager.store.require(machine.id)).state === "active"; i++) {
      t.clock.advance(30 * minute);
      await t.manager.agent.heartbeat(machine.id);
      await t.manager.agent.throughput(machine.id, { proofs: 10, windowMs: 30 * minute });
      await t.manager.monitor();
    }
    expect((await t.manager.store.require(machine.id)).state).toBe("destroyed");
    const [replaced] = (await t.manager.store.events({ instanceId: machine.id })).filter(
      (e) => e.type === "production-replaced",
    );
    expect(replaced?.detail?.reason).toMatch(
      /stayed below the minimum 30\.0\/h \(\$0\.450\/h at most \$15\.00 per 1000 proofs\)/,
    );
    expect(replaced?.detail?.keepMinimumProofsPerHour).toBeCloseTo(30, 9);
    expect(replaced?.detail?.usdPer1000Proofs).toBeCloseTo(22.5, 9);
  });
});
