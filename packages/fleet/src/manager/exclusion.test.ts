import { sampleOffers } from "@cuzkit/vast/testing";
import { afterEach, describe, expect, it } from "vitest";
import { fleetDefaults } from "../defaults.js";
import { startTestFleet, type TestFleet } from "../test-support/test-fleet.js";
import type { FleetManager } from "./fleet-manager.js";
import { runFleetStep } from "./fleet-run.js";

// Exclusion as evidence, end to end on the fake Vast: what counts against a machine, what
// never does, when an exclusion ends, and how crash-left `renting` rows are resolved.

let fleet: TestFleet | undefined;
afterEach(async () => {
  await fleet?.close();
  fleet = undefined;
});

const createPath = /^\/api\/v0\/asks\/\d+\/$/;
const day = 86_400_000;
const period = fleetDefaults.exclusionPeriodMs;

/** The machine's offer is on the market again (the fake takes an offer off once rented). */
function reoffer(t: TestFleet, ...offerIds: number[]): void {
  for (const offer of t.fake.offers) if (offerIds.includes(offer.id as number)) offer.rented = false;
}

/** Rents the offer and lets Vast report the instance exited: one death of its machine. */
async function rentAndKill(t: TestFleet, offerId: number): Promise<string> {
  reoffer(t, offerId);
  const record = await t.manager.deploy(offerId);
  t.fake.setInstanceStatus(record.vastId as number, "exited", "the host rebooted");
  const summary = await t.manager.reconcile();
  expect(summary.failedByVast).toEqual([record.id]);
  reoffer(t, offerId);
  return record.id;
}

async function vet(manager: FleetManager, id: string, verdict: "MET" | "UNSTABLE", proofsPerHour: number) {
  await manager.agent.register(id, { agentVersion: "0.1.0" });
  for (const phase of ["params", "warmup", "benchmarking"] as const) await manager.agent.phase(id, { phase });
  return manager.agent.report(id, { verdict, proofsPerHour, proofs: [] });
}

const evidenceKinds = async (t: TestFleet, machineId: number) =>
  (await t.manager.store.machineEvidence({ machineId })).map((e) => e.kind);

describe("exclusion as evidence", () => {
  it("an operator destroy during boot, then fleet run: the machine is rented again", async () => {
    fleet = await startTestFleet({ config: { minProofsPerHour: 40 } });
    const t = fleet;
    const first = await runFleetStep(t.manager, { target: { instances: 1 } });
    const [decision] = first.decisions;
    const offerId = decision?.action === "rent" ? decision.offerId : undefined;
    const [booting] = await t.manager.store.list();
    expect(booting?.state).toBe("booting");
    await t.manager.destroy(booting?.id as string);
    expect((await t.manager.store.require(booting?.id as string)).state).toBe("destroyed");
    const machineId = booting?.machineId as number;
    expect(await evidenceKinds(t, machineId)).toEqual(["operator-destroy"]);
    expect(await t.manager.store.isMachineExcluded(machineId)).toBe(false);
    reoffer(t, offerId as number);
    const ranked = (await t.manager.rank()).find((r) => r.offer.machineId === machineId);
    expect(ranked?.ranking.failureRate).toBe(0);
    const again = await runFleetStep(t.manager, { target: { instances: 1 } });
    expect(again.decisions).toEqual([expect.objectContaining({ action: "rent", offerId })]);
  });

  it("one death does not exclude; a second within the period does, and it expires", async () => {
    fleet = await startTestFleet();
    const t = fleet;
    await rentAndKill(t, 1002);
    expect(await evidenceKinds(t, 502)).toEqual(["death"]);
    expect(await t.manager.store.isMachineExcluded(502)).toBe(false);
    t.clock.advance(day);
    await rentAndKill(t, 1002);
    const exclusion = await t.manager.store.machineExclusion(502);
    expect(exclusion).toEqual({
      reason: expect.stringMatching(/^2 failures within 168 h, the latest: Vast reports the instance exited/),
      since: t.clock.now(),
      until: t.clock.now() - day + period,
    });
    await expect(t.manager.deploy(1002)).rejects.toMatchObject({
      code: "FLEET_OFFER_REFUSED",
      message: expect.stringContaining(
        `excluded until ${new Date(exclusion?.until as number).toISOString()}`,
      ),
      hint: expect.stringContaining("cuzkit fleet hosts --lift 502"),
    });
    const { excluded } = await t.manager.rankAll();
    expect(excluded.map((x) => x.offer.machineId)).toContain(502);
    // The first death leaves the period: one failure in it no longer excludes.
    t.clock.advance(period - day);
    expect(await t.manager.store.isMachineExcluded(502)).toBe(false);
    expect((await t.manager.deploy(1002)).state).toBe("booting");
  });

  it("an UNSTABLE verdict excludes for the period, then the machine may be rented again", async () => {
    fleet = await startTestFleet();
    const t = fleet;
    const record = await t.manager.deploy(1002);
    await vet(t.manager, record.id, "UNSTABLE", 30);
    expect(await evidenceKinds(t, 502)).toEqual(["unstable"]);
    expect(await t.manager.store.machineExclusion(502)).toMatchObject({ until: t.clock.now() + period });
    await expect(t.manager.deploy(1002)).rejects.toMatchObject({ code: "FLEET_OFFER_REFUSED" });
    t.clock.advance(period);
    expect(await t.manager.store.isMachineExcluded(502)).toBe(false);
  });

  it("a deadline that passed while the manager was down is not the machine's; one passed while up is", async () => {
    fleet = await startTestFleet();
    const t = fleet;
    const down = await t.manager.deploy(1002);
    t.clock.advance((down.deadlinesMs.booting as number) + 1);
    const restarted = t.restart();
    expect((await restarted.monitor()).pastDeadline).toEqual([down.id]);
    expect(await evidenceKinds(t, 502)).toEqual(["manager-outage"]);

    const up = await restarted.deploy(1003);
    t.clock.advance((up.deadlinesMs.booting as number) + 1);
    expect((await restarted.monitor()).pastDeadline).toEqual([up.id]);
    expect(await evidenceKinds(t, 503)).toEqual(["failure"]);
    reoffer(t, 1002, 1003);
    const ranked = await restarted.rank();
    const rate = (machineId: number) =>
      ranked.find((r) => r.offer.machineId === machineId)?.ranking.failureRate;
    expect(rate(502)).toBeLessThan(rate(503) as number);
  });

  it("prices the failure rate: a flaky host ranks below an equal steady one", async () => {
    const [base] = sampleOffers().filter((o) => o.id === 1002);
    const steady = { ...base, id: 1102, machine_id: 602, host_id: 192 };
    fleet = await startTestFleet({ fake: { offers: [base as Record<string, unknown>, steady] } });
    const t = fleet;
    // Two deaths a period apart (never excluded) on the flaky one; two clean rentals on the steady one.
    await rentAndKill(t, 1002);
    t.clock.advance(period + day);
    await rentAndKill(t, 1002);
    for (let i = 0; i < 2; i++) {
      reoffer(t, 1102);
      await t.manager.destroy((await t.manager.deploy(1102)).id);
    }
    reoffer(t, 1102);
    expect(await t.manager.store.isMachineExcluded(502)).toBe(false);
    const ranked = await t.manager.rank();
    expect(ranked.map((r) => r.offer.id)).toEqual([1102, 1002]);
    const [steadyRank, flakyRank] = ranked.map((r) => r.ranking);
    // Fleet: 2 failures in 4 rentals, shrunk with k = 4 toward 0: 2/8. Host 92: (2 + 4 x 0.25)/(2 + 4)
    // = 0.5; machine 502: (2 + 4 x 0.5)/(2 + 4) = 2/3. Host 192: 1/6; machine 602: (0 + 4/6)/6 = 1/9.
    expect(flakyRank?.failureRate).toBeCloseTo(2 / 3, 9);
    expect(steadyRank?.failureRate).toBeCloseTo(1 / 9, 9);
    expect(flakyRank?.reliability).toBeCloseTo(0.98 * (1 / 3), 9);
    expect(flakyRank?.costPer1000).toBeGreaterThan(steadyRank?.costPer1000 as number);
  });
});

describe("crash-left renting rows", () => {
  /** A manager that dies (throws) right after committing `renting`, before the create request. */
  async function crashAfterRenting(): Promise<{ t: TestFleet; id: string }> {
    let crash = true;
    fleet = await startTestFleet({
      checkpoint: (name) => {
        if (crash && name === "deploy:renting") {
          crash = false;
          throw new Error("killed");
        }
      },
    });
    await expect(fleet.manager.deploy(1002)).rejects.toThrow("killed");
    const [row] = await fleet.manager.store.list();
    expect(row?.state).toBe("renting");
    fleet.clock.advance(1_000);
    return { t: fleet, id: row?.id as string };
  }

  it("a row whose create never went out is closed by the first reconcile: slot freed, machine not blamed", async () => {
    const { t, id } = await crashAfterRenting();
    const restarted = t.restart();
    const summary = await restarted.reconcile();
    expect(summary.closedRenting).toEqual([id]);
    expect(await t.manager.store.require(id)).toMatchObject({
      state: "destroyed",
      reason: expect.stringMatching(/^crash-left/),
    });
    expect(await evidenceKinds(t, 502)).toEqual(["manager-outage"]);
    expect(await t.manager.store.isMachineExcluded(502)).toBe(false);
    expect(t.fake.requestsTo(createPath, "PUT")).toHaveLength(0);
    // The slot is free at once (the renting deadline is far off): a target of one rents now.
    const step = await runFleetStep(restarted, { target: { instances: 1 } });
    expect(step.decisions).toEqual([expect.objectContaining({ action: "rent" })]);
    expect(t.fake.requestsTo(createPath, "PUT")).toHaveLength(1);
  });

  it("a row whose create went out is adopted by its label, never rented twice", async () => {
    const { t, id } = await crashAfterRenting();
    const row = await t.manager.store.require(id);
    // The create reached Vast before the crash: an instance with the row's label exists.
    const vastId = t.fake.addInstance({ label: row.label, machine_id: 502, actual_status: "loading" });
    const restarted = t.restart();
    const summary = await restarted.reconcile();
    expect(summary.recovered).toEqual([id]);
    expect(summary.closedRenting).toEqual([]);
    expect(await t.manager.store.require(id)).toMatchObject({ state: "booting", vastId });
    expect(t.fake.requestsTo(createPath, "PUT")).toHaveLength(0);
    expect(t.fake.instances.size).toBe(1);
  });

  it("leaves this process's own renting rows to their create (it may be in flight)", async () => {
    let crash = true;
    fleet = await startTestFleet({
      checkpoint: (name) => {
        if (crash && name === "deploy:renting") {
          crash = false;
          throw new Error("create in flight");
        }
      },
    });
    await expect(fleet.manager.deploy(1002)).rejects.toThrow("create in flight");
    expect((await fleet.manager.reconcile()).closedRenting).toEqual([]);
    expect((await fleet.manager.store.list())[0]?.state).toBe("renting");
  });
});
