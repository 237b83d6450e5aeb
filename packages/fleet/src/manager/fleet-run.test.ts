import { afterEach, describe, expect, it } from "vitest";
import { timedProofRecords } from "../evidence/benchmark-claim.js";
import { startTestFleet, type TestFleet } from "../test-support/test-fleet.js";
import { runFleetStep, startFleetRun } from "./fleet-run.js";

let fleet: TestFleet | undefined;
afterEach(async () => {
  await fleet?.close();
  fleet = undefined;
});

async function vet(t: TestFleet, id: string, verdict: "MET" | "FAILED", proofsPerHour: number) {
  await t.manager.agent.register(id, { agentVersion: "0.1.0" });
  for (const phase of ["params", "warmup", "benchmarking"] as const)
    await t.manager.agent.phase(id, { phase });
  const proofs = proofsPerHour > 0 ? timedProofRecords({ count: 12, wallMs: 3_600_000 / proofsPerHour }) : [];
  return t.manager.agent.report(id, { verdict, proofsPerHour, proofs });
}

const runEvents = async (t: TestFleet) =>
  (await t.manager.store.events())
    .filter((e) => e.type === "fleet-run")
    .map((e) => e.detail as { action: string; reason: string });

describe("fleet run", () => {
  it("rents the best-ranked to the target, with the reason logged, and replaces what fails", async () => {
    fleet = await startTestFleet({ config: { minProofsPerHour: 40 }, fake: { rateLimits: false } });
    const t = fleet;
    const ranked = await t.manager.rank();
    expect(ranked.length).toBe(2); // the fake market has two offers the tuner can size
    const first = await runFleetStep(t.manager, { target: { instances: 1 } });
    expect(first.decisions).toEqual([
      expect.objectContaining({ action: "rent", offerId: ranked[0]?.offer.id }),
    ]);
    expect(await runEvents(t)).toEqual([
      {
        action: "rent",
        offerId: ranked[0]?.offer.id,
        reason: expect.stringMatching(
          /^under target \(0 instances for 1\): best ranked, predicted .* per 1000 proofs/,
        ),
        source: "predicted",
        costPer1000: expect.any(Number),
        optimisticCostPer1000: expect.any(Number),
      },
    ]);
    const [failing] = await t.manager.store.list();
    await vet(t, failing?.id as string, "FAILED", 0);
    const second = await runFleetStep(t.manager, { target: { instances: 1 } });
    // The failed machine is not rented again: the replacement is the next offer.
    expect(second.decisions).toEqual([
      expect.objectContaining({ action: "rent", offerId: ranked[1]?.offer.id }),
    ]);
    const replacement = (await t.manager.store.list()).find((r) => r.id !== failing?.id);
    await vet(t, replacement?.id as string, "MET", 60);
    expect((await runFleetStep(t.manager, { target: { instances: 1 } })).decisions).toEqual([]);
  });

  it("destroys the dearest per proof when over target", async () => {
    fleet = await startTestFleet({ config: { minProofsPerHour: 40 }, fake: { rateLimits: false } });
    const t = fleet;
    expect((await runFleetStep(t.manager, { target: { instances: 2 } })).decisions).toHaveLength(2);
    const [x, y] = await t.manager.store.list();
    await vet(t, x?.id as string, "MET", 50);
    await vet(t, y?.id as string, "MET", 80);
    const cost = async (id: string) => {
      const r = await t.manager.store.require(id);
      return r.dphPerHour / (r.proofsPerHour as number);
    };
    const dearest = (await cost(x?.id as string)) > (await cost(y?.id as string)) ? x : y;
    const cheaper = dearest === x ? y : x;
    const step = await runFleetStep(t.manager, { target: { instances: 1 } });
    expect(step.decisions).toEqual([expect.objectContaining({ action: "destroy", instanceId: dearest?.id })]);
    expect((await t.manager.store.require(dearest?.id as string)).state).toBe("destroyed");
    expect((await t.manager.store.require(cheaper?.id as string)).state).toBe("active");
    expect((await runEvents(t)).at(-1)?.reason).toMatch(
      /^over target \(2 instances for 1\): the dearest per proof/,
    );
  });

  it("refuses a missing or double target with a hint in the CLI's terms", async () => {
    fleet = await startTestFleet({ config: { minProofsPerHour: 40 }, fake: { rateLimits: false } });
    await expect(runFleetStep(fleet.manager, { target: {} })).rejects.toMatchObject({
      code: "FLEET_CONFIG",
      hint: expect.stringContaining("--target-proofs-per-hour"),
    });
    await expect(
      runFleetStep(fleet.manager, { target: { instances: 1, proofsPerHour: 50 } }),
    ).rejects.toThrow(/exactly one/);
    expect(await fleet.manager.store.list()).toEqual([]);
  });

  it("loops on the injected sleep until stopped", async () => {
    fleet = await startTestFleet({ config: { minProofsPerHour: 40 }, fake: { rateLimits: false } });
    const steps: number[] = [];
    let stop: () => Promise<void> = async () => {};
    let sleeps = 0;
    stop = startFleetRun(fleet.manager, {
      target: { instances: 1 },
      intervalMs: 30_000,
      sleep: async (ms) => {
        expect(ms).toBe(30_000);
        sleeps += 1;
        if (sleeps === 2) void stop();
      },
      onStep: (step) => steps.push(step.decisions.length),
    });
    await new Promise<void>((resolve) => {
      const check = () => (steps.length >= 2 ? resolve() : setImmediate(check));
      check();
    });
    await stop();
    // The first step rents one; the second sees it vetting and rents nothing.
    expect(steps.slice(0, 2)).toEqual([1, 0]);
    expect(await fleet.manager.store.list()).toHaveLength(1);
  });
});
