import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { timedProofRecords } from "../evidence/benchmark-claim.js";
import { curioTestSchemaSql } from "../test-support/curio-test-schema.js";
import { startTestFleet, type TestFleet } from "../test-support/test-fleet.js";
import { startTestPostgres, type TestPostgres } from "../test-support/test-postgres.js";
import { type HarmonySource, openHarmonySource } from "./harmony-source.js";

// Destroying an active instance that is a Curio node: cordon, drain, destroy — against a real
// PostgreSQL holding Curio's tables, with the manager's clock and sleeps under the test's control.

let postgres: TestPostgres;
beforeAll(async () => {
  postgres = await startTestPostgres();
});
afterAll(async () => {
  await postgres?.stop();
});

const curioIp = "198.51.100.20";
let fleet: TestFleet | undefined;
let harmony: HarmonySource | undefined;
afterEach(async () => {
  await fleet?.close();
  await harmony?.close();
  fleet = undefined;
  harmony = undefined;
});

/** A fleet with one active instance that is Curio machine 1, which owns one PoRep task. */
async function activeCurioInstance(
  onSleep: (count: number) => Promise<void> | void = () => {},
  dashboard: { adminToken: string } | undefined = undefined,
) {
  const schema = postgres.freshSchema("curio");
  await postgres.query(curioTestSchemaSql(schema));
  await postgres.query(
    `INSERT INTO ${schema}.harmony_machines (host_and_port, cpu, ram, gpu) VALUES ($1, 32, 1, 2), ('192.0.2.1:12300', 8, 1, 0)`,
    [`${curioIp}:12300`],
  );
  await postgres.query(
    `INSERT INTO ${schema}.harmony_task (posted_time, owner_id, added_by, name) VALUES (now(), 1, 1, 'PoRep')`,
  );
  const source = openHarmonySource({ url: postgres.url, schema });
  harmony = source;
  let sleeps = 0;
  const t = await startTestFleet({
    dashboard,
    curio: {
      harmony: source,
      drainPollMs: 60_000,
      sleep: async (ms) => {
        t.clock.advance(ms);
        await onSleep(++sleeps);
      },
    },
  });
  fleet = t;
  // Curio's history: PoRep tasks take 10 minutes here, so that is the drain deadline.
  const nowSeconds = t.clock.now() / 1000;
  await postgres.query(
    `INSERT INTO ${schema}.harmony_task_history (task_id, name, posted, work_start, work_end, result, completed_by_host_and_port)
      VALUES (9, 'PoRep', to_timestamp($1 - 900), to_timestamp($1 - 900), to_timestamp($1 - 300), true, $2)`,
    [nowSeconds, `${curioIp}:12300`],
  );
  const record = await t.manager.deploy(1002);
  await t.manager.agent.register(record.id, { agentVersion: "0.1.0" });
  for (const phase of ["params", "warmup", "benchmarking"] as const)
    await t.manager.agent.phase(record.id, { phase });
  await t.manager.agent.report(record.id, {
    verdict: "MET",
    proofsPerHour: 48,
    proofs: timedProofRecords({ count: 12, wallMs: 75_000 }),
  });
  const vastId = (await t.manager.store.require(record.id)).vastId as number;
  (t.fake.instances.get(vastId) as Record<string, unknown>).public_ipaddr = curioIp;
  const unschedulable = async () =>
    (
      await postgres.query<{ id: number; unschedulable: boolean }>(
        `SELECT id, unschedulable FROM ${schema}.harmony_machines ORDER BY id`,
      )
    ).map((r) => [r.id, r.unschedulable]);
  return { t, id: record.id, vastId, schema, unschedulable, startedAt: t.clock.now() };
}

const destroysOf = (t: TestFleet, vastId: number) =>
  t.fake.requestsTo(`/api/v0/instances/${vastId}/`, "DELETE").length;

describe("cordon and drain before destroying a Curio machine", () => {
  it("cordons, waits for its task to finish, then destroys", async () => {
    let cordonSeen: unknown;
    const setup = await activeCurioInstance(async (count) => {
      if (count === 1) cordonSeen = await setup.unschedulable();
      // The task finishes during the second wait.
      if (count === 2) await postgres.query(`DELETE FROM ${setup.schema}.harmony_task`);
    });
    const { t, id, vastId } = setup;
    const record = await t.manager.destroy(id);
    expect(record.state).toBe("destroyed");
    expect(cordonSeen).toEqual([
      [1, true],
      [2, false],
    ]); // only this instance's node, only that column
    expect(destroysOf(t, vastId)).toBe(1);
    const events = await t.manager.store.events({ instanceId: id });
    const curio = events.filter((e) => e.type.startsWith("curio-") || e.toState === "destroyed");
    expect(curio.map((e) => [e.type, e.at - setup.startedAt])).toEqual([
      ["curio-cordoned", 0],
      ["curio-draining", 0],
      ["curio-drained", 120_000], // two polls of a minute
      ["transition", 120_000],
    ]);
  });

  it("destroys at the deadline (the longest task's expected time plus the margin) when a task does not finish, saying why", async () => {
    const setup = await activeCurioInstance();
    const { t, id, vastId, schema } = setup;
    const record = await t.manager.destroy(id);
    expect(record.state).toBe("destroyed");
    expect(destroysOf(t, vastId)).toBe(1);
    const events = await t.manager.store.events({ instanceId: id });
    const deadline = events.find((e) => e.type === "curio-drain-deadline");
    expect(deadline?.at).toBe(setup.startedAt + 900_000); // PoRep's 10 minutes and the 5-minute margin
    expect(deadline?.detail?.reason).toMatch(
      /drain deadline passed after 15 min with 1 Curio task\(s\) still running \(PoRep 1\)/,
    );
    expect(events.find((e) => e.toState === "destroyed")?.at).toBe(setup.startedAt + 900_000);
    // Curio's task is left to Curio: nothing but the flag was written.
    expect(await postgres.query(`SELECT id, owner_id, name FROM ${schema}.harmony_task`)).toEqual([
      { id: 1, owner_id: 1, name: "PoRep" },
    ]);
  });

  it("uncordons and keeps the instance when the destroy is cancelled", async () => {
    const cancel = new AbortController();
    const setup = await activeCurioInstance((count) => {
      if (count === 1) cancel.abort(new Error("operator pressed Ctrl-C"));
    });
    const { t, id, vastId } = setup;
    const record = await t.manager.destroy(id, { signal: cancel.signal });
    expect(record.state).toBe("active");
    expect(await setup.unschedulable()).toEqual([
      [1, false],
      [2, false],
    ]);
    expect(destroysOf(t, vastId)).toBe(0);
    expect(t.fake.instances.has(vastId)).toBe(true);
    const types = (await t.manager.store.events({ instanceId: id })).map((e) => e.type);
    expect(types.slice(-3)).toEqual(["curio-cordoned", "curio-draining", "curio-uncordoned"]);
    expect((await t.manager.store.require(id)).curioDrain).toBeUndefined();
  });

  it("destroys an instance that is not a Curio machine at once", async () => {
    const setup = await activeCurioInstance();
    const { t, id, vastId } = setup;
    (t.fake.instances.get(vastId) as Record<string, unknown>).public_ipaddr = "203.0.113.99";
    expect((await t.manager.destroy(id)).state).toBe("destroyed");
    expect(await setup.unschedulable()).toEqual([
      [1, false],
      [2, false],
    ]);
    expect((await t.manager.store.events({ instanceId: id })).some((e) => e.type.startsWith("curio-"))).toBe(
      false,
    );
  });

  it("records each Curio machine's production per proof type as host performance, apart from benchmarks", async () => {
    const setup = await activeCurioInstance(undefined, { adminToken: "a".repeat(32) });
    const { t, id } = setup;
    const rows = await t.manager.recordCurioProduction();
    expect(rows).toEqual([
      expect.objectContaining({
        kind: "production",
        source: "curio",
        instanceId: id,
        taskType: "PoRep",
        proofsPerHour: 1, // one PoRep in the hour
        failures: 0,
        windowMs: 3_600_000,
      }),
    ]);
    const all = await t.manager.store.performance.list();
    expect(all.filter((r) => r.kind === "benchmark")).toHaveLength(1);
    expect(all.filter((r) => r.source === "curio")).toHaveLength(1);
    // The dashboard's API shows it beside the benchmark's rate.
    const answer = await t.app.inject({
      method: "GET",
      url: "/api/instances",
      headers: { authorization: `Bearer ${"a".repeat(32)}` },
    });
    expect(answer.json().instances).toEqual([
      expect.objectContaining({
        id,
        proofsPerHour: 48,
        curioProduction: [{ taskType: "PoRep", proofsPerHour: 1, failures: 0, at: t.clock.now() }],
      }),
    ]);
  });
});

describe("with a Curio link, production is what Curio verified", () => {
  it("counts a kept machine at Curio's verified proofs over a full window, not at its agent's reports", async () => {
    const { t, id, schema } = await activeCurioInstance();
    expect((await t.manager.store.require(id)).proofsPerHour).toBe(48);
    // Two hours of serving; in the last hour Curio saw 30 PoReps finish on this machine.
    t.clock.advance(2 * 3_600_000);
    const nowSeconds = t.clock.now() / 1000;
    for (let k = 0; k < 30; k++) {
      await postgres.query(
        `INSERT INTO ${schema}.harmony_task_history (task_id, name, posted, work_start, work_end, result, completed_by_host_and_port)
          VALUES ($1, 'PoRep', to_timestamp($2 - 1000), to_timestamp($2 - 900), to_timestamp($2), true, $3)`,
        [100 + k, nowSeconds - 60 - k * 100, `${curioIp}:12300`],
      );
    }
    // The agent says 60/h: kept as a figure, but with a Curio link it is not the machine's production.
    await t.manager.agent.heartbeat(id);
    await t.manager.agent.throughput(id, { proofs: 60, windowMs: 3_600_000 });
    await t.manager.monitor();
    expect((await t.manager.store.require(id)).rateBasis).toBe("benchmark");

    await t.manager.recordCurioProduction();
    await t.manager.monitor();
    expect(await t.manager.store.require(id)).toMatchObject({
      state: "active",
      rateBasis: "production",
      proofsPerHour: 30,
      productionProofsPerHour: 30,
    });
    const [counted] = (await t.manager.store.events({ instanceId: id })).filter(
      (e) => e.type === "counted-at-production",
    );
    expect(counted?.detail?.reason).toMatch(/30\.0\/h \(curio\) replaces the benchmark's 48\.0\/h/);
  });
});
