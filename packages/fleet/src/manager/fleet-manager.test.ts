import { createVastClient } from "@cuzkit/vast";
import type { ScriptedFailure } from "@cuzkit/vast/testing";
import { afterEach, describe, expect, it } from "vitest";
import type { InstanceRecord } from "../store/records.js";
import { startTestFleet, type TestFleet } from "../test-support/test-fleet.js";
import type { FleetVast } from "./context.js";

let fleet: TestFleet | undefined;
afterEach(async () => {
  await fleet?.close();
  fleet = undefined;
});

const minute = 60_000;
const createPath = /^\/api\/v0\/asks\/\d+\/$/;
/** The Vast path a destroy of the instance DELETEs. */
const destroyPath = (record: InstanceRecord) => `/api/v0/instances/${record.vastId}/`;
/** Scripts the fake Vast to fail the instance's next destroys as `failure` says. */
const failDestroys = (
  on: TestFleet,
  record: InstanceRecord,
  failure: Omit<ScriptedFailure, "method" | "path">,
) => on.fake.failNext({ method: "DELETE", path: destroyPath(record), ...failure });

describe("deploy", () => {
  it("rents with the label, the agent environment, the disk and args mode", async () => {
    fleet = await startTestFleet({ config: { diskGb: 120, env: { RUST_LOG: "info" } } });
    const record = await fleet.manager.deploy(1002);
    expect(record).toMatchObject({ state: "booting", offerId: 1002, machineId: 502, dphPerHour: 0.45 });
    expect(record.label).toBe(`cuzkit-fleet-test-${record.id}`);
    const [create] = fleet.fake.requestsTo(createPath, "PUT");
    const body = create?.body as {
      env: Record<string, string>;
      disk: number;
      label: string;
      runtype: string;
    };
    expect(body.label).toBe(record.label);
    expect(body.disk).toBe(120);
    expect(body.runtype).toBe("args");
    expect(body.env).toMatchObject({
      CUZKIT_FLEET_URL: "http://127.0.0.1:7320",
      CUZKIT_INSTANCE_ID: record.id,
      RUST_LOG: "info",
    });
    // Only the hash is stored.
    const token = body.env.CUZKIT_FLEET_TOKEN as string;
    expect(token.length).toBeGreaterThanOrEqual(40);
    const row = await fleet.manager.store.get((await fleet.manager.store.list())[0]?.id as string);
    expect(JSON.stringify(row)).not.toContain(token);
    expect(JSON.stringify(await fleet.manager.store.events())).not.toContain(token);
    // Deadlines were derived for this offer, not fixed.
    expect(record.phaseDeadlineAt).toBe(fleet.clock.now() + (record.deadlinesMs.booting as number));
    expect(record.deadlinesMs.benchmarking).toBeGreaterThan(20 * minute);
  });

  it("checks --max-instances and --max-dph before renting", async () => {
    fleet = await startTestFleet({ config: { maxInstances: 1 } });
    await fleet.manager.deploy(1002);
    await expect(fleet.manager.deploy(1003)).rejects.toMatchObject({
      code: "FLEET_BUDGET_EXCEEDED",
      hint: expect.stringContaining("--max-instances"),
    });
    expect(fleet.fake.requestsTo(createPath, "PUT")).toHaveLength(1);
    await fleet.close();

    fleet = await startTestFleet({ config: { maxDph: 1.0 } });
    await fleet.manager.deploy(1002); // $0.45/h
    await expect(fleet.manager.deploy(1003)).rejects.toMatchObject({ code: "FLEET_BUDGET_EXCEEDED" }); // +$1.20/h
    expect(fleet.fake.requestsTo(createPath, "PUT")).toHaveLength(1);
    expect(await fleet.manager.store.list()).toHaveLength(1);
  });

  it("needs the image and the manager URL, with the flags to pass", async () => {
    fleet = await startTestFleet({ config: { image: undefined } });
    await expect(fleet.manager.deploy(1002)).rejects.toMatchObject({
      code: "FLEET_CONFIG",
      hint: expect.stringContaining("--image"),
    });
    expect(fleet.fake.requestsTo(createPath, "PUT")).toHaveLength(0);
  });

  it("refuses an offer that is gone, leaving nothing billed", async () => {
    fleet = await startTestFleet();
    await expect(fleet.manager.deploy(424242)).rejects.toMatchObject({ code: "FLEET_OFFER_REFUSED" });
    // Offered at search time, gone at create time: the row ends destroyed, nothing rented.
    fleet.fake.failNext({
      method: "PUT",
      path: "/api/v0/asks/1002/",
      status: 404,
      body: { success: false, error: "no_such_ask", msg: "gone" },
    });
    await expect(fleet.manager.deploy(1002)).rejects.toMatchObject({ code: expect.stringMatching(/VAST/) });
    const [row] = await fleet.manager.store.list();
    expect(row).toMatchObject({ state: "destroyed", vastId: undefined });
    expect(row?.reason).toContain("rent refused");
    expect(fleet.fake.instances.size).toBe(0);
  });

  it("recovers a create whose answer was lost by its label, renting once", async () => {
    fleet = await startTestFleet();
    fleet.fake.failNext({ method: "PUT", path: "/api/v0/asks/1002/", mode: "drop-after" });
    const record = await fleet.manager.deploy(1002);
    expect(record.state).toBe("booting");
    expect(fleet.fake.requestsTo(createPath, "PUT")).toHaveLength(1);
    expect(fleet.fake.instances.size).toBe(1);
    expect(record.vastId).toBe([...fleet.fake.instances.keys()][0]);
  });

  it("leaves an uncertain create to the reconcile pass, which attaches it when it appears", async () => {
    fleet = await startTestFleet();
    // The answer is lost and the label look-up does not see it yet (listed late).
    fleet.fake.failNext({ method: "PUT", path: "/api/v0/asks/1002/", mode: "drop-after" });
    // The next two instance lists come back empty.
    fleet.fake.failNext({
      method: "GET",
      path: "/api/v1/instances/",
      times: 2,
      status: 200,
      body: { instances: [], next_token: null },
    });
    const record = await fleet.manager.deploy(1002);
    expect(record.state).toBe("renting");
    const summary = await fleet.manager.reconcile();
    expect(summary.recovered).toEqual([record.id]);
    expect(await fleet.manager.store.require(record.id)).toMatchObject({
      state: "booting",
      vastId: [...fleet.fake.instances.keys()][0],
    });
    await fleet.manager.startup(); // a restart: nothing is rented again
    expect(fleet.fake.requestsTo(createPath, "PUT")).toHaveLength(1);
  });

  it("rents a replacement only once the old instance is confirmed destroyed", async () => {
    fleet = await startTestFleet();
    const old = await fleet.manager.deploy(1002);
    await expect(fleet.manager.deploy(1003, { replaces: old.id })).rejects.toMatchObject({
      code: "FLEET_OFFER_REFUSED",
      hint: expect.stringContaining(old.id),
    });
    await fleet.manager.destroy(old.id);
    expect((await fleet.manager.store.require(old.id)).state).toBe("destroyed");
    expect((await fleet.manager.deploy(1003, { replaces: old.id })).state).toBe("booting");
  });

  it("--best N rents the best-ranked offers, skipping excluded machines", async () => {
    fleet = await startTestFleet();
    const ranked = await fleet.manager.rank();
    expect(ranked.length).toBeGreaterThan(1);
    const best = ranked[0]?.offer;
    await fleet.manager.store.excludeMachine(best?.machineId as number, "unstable");
    const rentedOffers = (await fleet.manager.deployBest(1)).map((r) => r.offerId);
    expect(rentedOffers).toEqual([ranked[1]?.offer.id]);
  });
});

describe("deadlines and heartbeats", () => {
  async function registered(t: TestFleet, offerId = 1002) {
    const record = await t.manager.deploy(offerId);
    await t.manager.agent.register(record.id, { agentVersion: "0.1.0" });
    return await t.manager.store.require(record.id);
  }

  it("fails and destroys an instance that never finishes params, only after its derived deadline", async () => {
    fleet = await startTestFleet();
    const record = await registered(fleet);
    await fleet.manager.agent.phase(record.id, { phase: "params" });
    const params = await fleet.manager.store.require(record.id);
    const deadlineAt = params.phaseDeadlineAt as number;
    expect(deadlineAt - params.phaseStartedAt).toBe(params.deadlinesMs.params);
    // Heartbeats keep coming; the download just never finishes.
    while (fleet.clock.now() + 30_000 <= deadlineAt) {
      fleet.clock.advance(30_000);
      await fleet.manager.agent.heartbeat(record.id);
      expect((await fleet.manager.monitor()).pastDeadline).toEqual([]);
    }
    fleet.clock.advance(deadlineAt - fleet.clock.now());
    expect((await fleet.manager.monitor()).pastDeadline).toEqual([]); // at the deadline: not yet
    fleet.clock.advance(1);
    const summary = await fleet.manager.monitor();
    expect(summary.pastDeadline).toEqual([record.id]);
    const after = await fleet.manager.store.require(record.id);
    expect(after.state).toBe("destroyed");
    expect(after.reason).toMatch(/deadline: params ran past its \d+ min deadline/);
    expect(fleet.fake.instances.has(record.vastId as number)).toBe(false);
  });

  it("keeps a healthy 30-minute benchmark that heartbeats, and loses a silent agent after 3 intervals", async () => {
    fleet = await startTestFleet();
    const healthy = await registered(fleet);
    const silent = await registered(fleet, 1003);
    for (const id of [healthy.id, silent.id]) {
      for (const phase of ["params", "warmup", "benchmarking"] as const)
        await fleet.manager.agent.phase(id, { phase });
    }
    for (let step = 1; step <= 60; step++) {
      fleet.clock.advance(30_000);
      await fleet.manager.agent.heartbeat(healthy.id);
      await fleet.manager.monitor();
      if (step === 3) expect((await fleet.manager.store.require(silent.id)).state).toBe("benchmarking"); // 90 s: not yet
    }
    expect((await fleet.manager.store.require(healthy.id)).state).toBe("benchmarking"); // 30 min in, still running
    const lost = await fleet.manager.store.require(silent.id);
    expect(lost.state).toBe("destroyed");
    expect(lost.reason).toContain("no heartbeat");
    expect((await fleet.manager.store.events({ instanceId: silent.id })).some((e) => e.type === "lost")).toBe(
      true,
    );
  });
});

describe("reconcile", () => {
  it("fails and destroys an instance Vast reports exited", async () => {
    fleet = await startTestFleet();
    const record = await fleet.manager.deploy(1002);
    fleet.fake.setInstanceStatus(
      record.vastId as number,
      "exited",
      "Error response from daemon: OCI runtime",
    );
    const summary = await fleet.manager.reconcile();
    expect(summary.failedByVast).toEqual([record.id]);
    const after = await fleet.manager.store.require(record.id);
    expect(after.state).toBe("destroyed");
    expect(after.reason).toContain("exited");
    expect(fleet.fake.instances.size).toBe(0);
  });

  it("destroys an unknown labelled instance after the grace period, and leaves others' instances alone", async () => {
    fleet = await startTestFleet({ config: { unknownGraceMs: 5 * minute } });
    const stray = fleet.fake.addInstance({ label: "cuzkit-fleet-test-i-0badc0de" });
    const otherFleet = fleet.fake.addInstance({ label: "cuzkit-fleet-testb-i-0badc0de" });
    const unlabelled = fleet.fake.addInstance({ label: "my-own-box" });
    expect((await fleet.manager.reconcile()).unknown).toEqual([stray]);
    fleet.clock.advance(4 * minute);
    expect((await fleet.manager.reconcile()).destroyedUnknown).toEqual([]);
    fleet.clock.advance(2 * minute);
    expect((await fleet.manager.reconcile()).destroyedUnknown).toEqual([stray]);
    expect([...fleet.fake.instances.keys()].sort()).toEqual([otherFleet, unlabelled].sort());
  });

  it("keeps an unknown labelled instance with adopt", async () => {
    fleet = await startTestFleet({ config: { adopt: true, unknownGraceMs: 0 } });
    const stray = fleet.fake.addInstance({ label: "cuzkit-fleet-test-i-0badc0de" });
    fleet.clock.advance(60 * minute);
    expect((await fleet.manager.reconcile()).unknown).toEqual([stray]);
    expect(fleet.fake.instances.has(stray)).toBe(true);
  });

  it("marks an instance Vast no longer knows as gone, and a lost destroy answer as success", async () => {
    fleet = await startTestFleet();
    const gone = await fleet.manager.deploy(1002);
    const destroying = await fleet.manager.deploy(1003);
    fleet.fake.instances.delete(gone.vastId as number);
    // The destroy happens on Vast but its answer is lost, every retry too.
    failDestroys(fleet, destroying, { mode: "drop-after" });
    failDestroys(fleet, destroying, { times: 5, status: 502 });
    const afterDestroy = await fleet.manager.destroy(destroying.id);
    expect(afterDestroy.state).toBe("destroying");
    const summary = await fleet.manager.reconcile();
    expect(summary.gone.sort()).toEqual([gone.id, destroying.id].sort());
    expect(await fleet.manager.store.require(gone.id)).toMatchObject({
      state: "destroyed",
      reason: expect.stringContaining("gone"),
    });
    expect((await fleet.manager.store.require(destroying.id)).state).toBe("destroyed");
  });

  it("retries a failing destroy with backoff for 15 minutes, then says to destroy it manually", async () => {
    fleet = await startTestFleet();
    const record = await fleet.manager.deploy(1002);
    failDestroys(fleet, record, { times: 1000, status: 500 });
    let after = await fleet.manager.destroy(record.id);
    const delays: number[] = [];
    while (!after.destroyManual) {
      expect(after.state).toBe("destroying");
      const next = after.destroyNextAttemptAt as number;
      delays.push(next - fleet.clock.now());
      fleet.clock.advance(next - fleet.clock.now());
      await fleet.manager.monitor();
      after = await fleet.manager.store.require(record.id);
      expect(fleet.clock.now() - (after.destroyFirstAttemptAt as number)).toBeLessThanOrEqual(15 * minute);
    }
    expect(delays[1] as number).toBeGreaterThan(delays[0] as number); // backoff grows
    expect(after.destroyAttempts).toBeGreaterThan(3);
    const manual = (await fleet.manager.store.events({ instanceId: record.id })).at(-1);
    expect(manual?.type).toBe("destroy-manually");
    // Monitor stops hammering; reconcile still notices when the operator destroys it by hand.
    const attempts = fleet.fake.requestsTo(destroyPath(record), "DELETE").length;
    await fleet.manager.monitor();
    expect(fleet.fake.requestsTo(destroyPath(record), "DELETE")).toHaveLength(attempts);
    fleet.fake.instances.delete(record.vastId as number);
    await fleet.manager.reconcile();
    expect((await fleet.manager.store.require(record.id)).state).toBe("destroyed");
  });
});

describe("a create that answers after its row gave up", () => {
  it("destroys the late rental at once", async () => {
    fleet = await startTestFleet();
    const t = fleet;
    const real = createVastClient({ apiKey: t.fake.apiKey, baseUrl: t.fake.url, rateLimit: false });
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let creating: () => void = () => {};
    const created = new Promise<void>((resolve) => {
      creating = resolve;
    });
    // A Vast whose create answers only when the test says so (and says when it was called).
    const slowVast: FleetVast = {
      ...real,
      listInstances: real.listInstances,
      async createInstance(offerId, options) {
        creating();
        await gate;
        return real.createInstance(offerId, options);
      },
    };
    const manager = t.restart(slowVast);
    const deploying = manager.deploy(1002);
    await created; // the row is renting while its create is out
    const row = (await t.manager.store.list())[0] as InstanceRecord;
    expect(row.state).toBe("renting");
    t.clock.advance((row.deadlinesMs.renting as number) + 1);
    expect((await manager.monitor()).pastDeadline).toEqual([row.id]);
    release();
    const record = await deploying;
    expect(record.state).toBe("destroyed");
    expect(t.fake.requestsTo(/^\/api\/v0\/asks\/\d+\/$/, "PUT")).toHaveLength(1);
    expect(t.fake.instances.size).toBe(0); // destroyed at once, not left for the grace period
    expect(
      (await t.manager.store.events({ instanceId: record.id })).some((e) => e.type === "late-create"),
    ).toBe(true);
  });
});

describe("a manager restart", () => {
  it("does not count the heartbeats lost while it was down against the agents", async () => {
    fleet = await startTestFleet();
    const t = fleet;
    const record = await t.manager.deploy(1002);
    await t.manager.agent.register(record.id, { agentVersion: "0.1.0" });
    await t.manager.agent.phase(record.id, { phase: "params" });
    // The manager is down for 5 minutes; then a new process starts on the same store.
    t.clock.advance(5 * minute);
    const restarted = t.restart();
    expect((await restarted.monitor()).lost).toEqual([]);
    t.clock.advance(60_000);
    expect((await restarted.monitor()).lost).toEqual([]); // two intervals since the restart
    t.clock.advance(31_000);
    expect((await restarted.monitor()).lost).toEqual([record.id]); // still silent: lost
  });
});
