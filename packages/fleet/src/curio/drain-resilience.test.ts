import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { timedProofRecords } from "../evidence/benchmark-claim.js";
import type { FleetManager } from "../manager/fleet-manager.js";
import { curioTestSchemaSql } from "../test-support/curio-test-schema.js";
import { startTestFleet, type TestFleet } from "../test-support/test-fleet.js";
import { startTestPostgres, type TestPostgres } from "../test-support/test-postgres.js";
import type { CurioLinkOptions } from "./curio-link.js";
import { type HarmonySource, openHarmonySource } from "./harmony-source.js";

// A drain Curio can honour, and no cordon left behind: against a real PostgreSQL holding Curio's
// tables (stopped and started for outages), with the manager's clock and sleeps under the
// test's control (a sleep advances the manual clock; nothing really waits).

let postgres: TestPostgres;
beforeAll(async () => {
  postgres = await startTestPostgres();
});
afterAll(async () => {
  await postgres?.stop();
});

const curioIp = "198.51.100.30";
const minute = 60_000;
let fleet: TestFleet | undefined;
let sources: HarmonySource[] = [];
const managers: FleetManager[] = [];
afterEach(async () => {
  for (const m of managers.splice(0)) await m.stop();
  await fleet?.close();
  for (const s of sources) await s.close();
  fleet = undefined;
  sources = [];
});

interface Setup {
  t: TestFleet;
  id: string;
  vastId: number;
  schema: string;
  startedAt: number;
  /** [id, unschedulable] of every Curio node. */
  unschedulable(): Promise<[number, boolean][]>;
  /** Every row of Curio's tables but harmony_machines.unschedulable (the one column the fleet writes). */
  curioRows(): Promise<unknown>;
}

/**
 * A fleet whose one active instance is Curio machine 1 (machine 2 is another node). The drain
 * polls every 10 s; Curio polls its flag every 30 s (the default). `onSleep` runs at each of the
 * drain's waits (its count and the clock after it).
 */
async function curioInstance(
  options: {
    onSleep?: (count: number, now: number) => Promise<void> | void;
    history?: { minutes: number; name?: string }[];
    ownsTask?: boolean;
    /** The connection string of the fleet's HarmonyDB user, given the schema (after it is made). Default: the superuser's. */
    url?: ((schema: string) => Promise<string>) | undefined;
    link?: Partial<CurioLinkOptions>;
    dashboard?: boolean;
  } = {},
): Promise<Setup> {
  const schema = postgres.freshSchema("curio");
  await postgres.query(curioTestSchemaSql(schema));
  await postgres.query(
    `INSERT INTO ${schema}.harmony_machines (host_and_port, cpu, ram, gpu) VALUES ($1, 32, 1, 2), ('192.0.2.1:12300', 8, 1, 0)`,
    [`${curioIp}:12300`],
  );
  // An unassigned task and one on the other node: neither may change.
  await postgres.query(
    `INSERT INTO ${schema}.harmony_task (posted_time, owner_id, added_by, name)
      VALUES (now(), NULL, 2, 'PoRep'), (now(), 2, 2, 'SDR')`,
  );
  if (options.ownsTask ?? true) {
    await postgres.query(
      `INSERT INTO ${schema}.harmony_task (posted_time, owner_id, added_by, name) VALUES (now(), 1, 1, 'PoRep')`,
    );
  }
  const source = openHarmonySource({ url: (await options.url?.(schema)) ?? postgres.url, schema });
  sources.push(source);
  let sleeps = 0;
  const t = await startTestFleet({
    dashboard: options.dashboard ? { adminToken: "a".repeat(32) } : undefined,
    curio: {
      harmony: source,
      drainPollMs: 10_000,
      ...options.link,
      sleep: async (ms, signal) => {
        t.clock.advance(ms);
        await options.onSleep?.(++sleeps, t.clock.now());
        if (signal?.aborted) throw signal.reason;
      },
    },
  });
  fleet = t;
  const nowSeconds = t.clock.now() / 1000;
  for (const [k, h] of (options.history ?? [{ minutes: 10 }]).entries()) {
    await postgres.query(
      `INSERT INTO ${schema}.harmony_task_history (task_id, name, posted, work_start, work_end, result, completed_by_host_and_port)
        VALUES ($1, $2, to_timestamp($3::float8 - $4::float8 - 60), to_timestamp($3::float8 - $4::float8 - 60), to_timestamp($3::float8 - 60), true, $5)`,
      [100 + k, h.name ?? "PoRep", nowSeconds - k, h.minutes * 60, `${curioIp}:12300`],
    );
  }
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
  return {
    t,
    id: record.id,
    vastId,
    schema,
    startedAt: t.clock.now(),
    unschedulable: async () =>
      (
        await postgres.query<{ id: number; unschedulable: boolean }>(
          `SELECT id, unschedulable FROM ${schema}.harmony_machines ORDER BY id`,
        )
      ).map((r) => [r.id, r.unschedulable] as [number, boolean]),
    curioRows: async () => ({
      machines: await postgres.query(
        `SELECT id, last_contact, host_and_port, cpu, ram, gpu FROM ${schema}.harmony_machines ORDER BY id`,
      ),
      details: await postgres.query(`SELECT * FROM ${schema}.harmony_machine_details ORDER BY id`),
      history: await postgres.query(`SELECT * FROM ${schema}.harmony_task_history ORDER BY id`),
      // The node's own task may be finished by the test: the others are compared.
      tasks: await postgres.query(`SELECT * FROM ${schema}.harmony_task WHERE id <= 2 ORDER BY id`),
    }),
  };
}

const destroysOf = (t: TestFleet, vastId: number) =>
  t.fake.requestsTo(`/api/v0/instances/${vastId}/`, "DELETE").length;
const eventsOf = async (t: TestFleet, id: string) => await t.manager.store.events({ instanceId: id });
const curioEvents = async (t: TestFleet, id: string, since: number) =>
  (await eventsOf(t, id))
    .filter((e) => e.type.startsWith("curio-") || e.toState === "destroyed")
    .map((e) => [e.type, e.at - since]);
const finishNodeTask = (schema: string) =>
  postgres.query(`DELETE FROM ${schema}.harmony_task WHERE owner_id = 1`);

describe("a drain Curio can honour", () => {
  it("a task the node claims between the cordon and Curio's next poll is waited for", async () => {
    // The node owns nothing at the cordon; 10 s later (before Curio's 30 s poll saw the flag) it
    // claims a PoRep, which runs 40 s.
    const setup: Setup = await curioInstance({
      ownsTask: false,
      onSleep: async (count) => {
        if (count === 1)
          await postgres.query(
            `INSERT INTO ${setup.schema}.harmony_task (posted_time, owner_id, added_by, name) VALUES (now(), 1, 1, 'PoRep')`,
          );
        if (count === 5) await finishNodeTask(setup.schema);
      },
    });
    const { t, id, vastId } = setup;
    const before = await setup.curioRows();
    const record = await t.manager.destroy(id);
    expect(record.state).toBe("destroyed");
    expect(destroysOf(t, vastId)).toBe(1);
    expect(await curioEvents(t, id, setup.startedAt)).toEqual([
      ["curio-cordoned", 0],
      ["curio-draining", 0], // nothing owned yet: not drained before Curio's poll
      ["curio-draining", 10_000], // the claimed task moves the deadline out
      ["curio-drained", 50_000],
      ["transition", 50_000],
    ]);
    const draining = (await eventsOf(t, id)).filter((e) => e.type === "curio-draining");
    expect(draining[0]?.detail).toMatchObject({
      deadlineAt: setup.startedAt + 30_000,
      seenAt: setup.startedAt + 30_000,
    });
    // Claimed at 10 s: 10 s + PoRep's 10 min + the 5 min margin.
    expect(draining[1]?.detail).toMatchObject({ deadlineAt: setup.startedAt + 10_000 + 15 * minute });
    expect(await setup.curioRows()).toEqual(before);
    expect(await setup.unschedulable()).toEqual([
      [1, true],
      [2, false],
    ]);
    expect((await t.manager.store.require(id)).curioDrain).toBeUndefined();
  });

  it("an idle node is drained only once Curio has polled its flag (curioPollMs)", async () => {
    const setup = await curioInstance({ ownsTask: false, link: { curioPollMs: 45_000 } });
    const { t, id } = setup;
    expect((await t.manager.destroy(id)).state).toBe("destroyed");
    expect(await curioEvents(t, id, setup.startedAt)).toEqual([
      ["curio-cordoned", 0],
      ["curio-draining", 0],
      ["curio-drained", 45_000],
      ["transition", 45_000],
    ]);
  });

  it("the deadline is the longest task's expected end, not the mean: a long task is not cut", async () => {
    // PoRep history: nine of 10 min and one of 60 min (mean 15 min). The node's PoRep runs 50 min.
    const history = [...Array.from({ length: 9 }, () => ({ minutes: 10 })), { minutes: 60 }];
    const setup: Setup = await curioInstance({
      history,
      onSleep: async (_count, now) => {
        if (now - setup.startedAt >= 50 * minute) await finishNodeTask(setup.schema);
      },
    });
    const { t, id, vastId } = setup;
    expect((await t.manager.destroy(id)).state).toBe("destroyed");
    expect(destroysOf(t, vastId)).toBe(1);
    const events = await eventsOf(t, id);
    expect(events.some((e) => e.type === "curio-drain-deadline")).toBe(false);
    expect(events.find((e) => e.type === "curio-draining")?.detail).toMatchObject({
      deadlineAt: setup.startedAt + 65 * minute, // 60 min + the 5 min margin
      expectedMs: { PoRep: 60 * minute },
    });
    expect(events.find((e) => e.type === "curio-drained")?.at).toBe(setup.startedAt + 50 * minute);
  });

  it("with no history of the task's type, the fallback (30 min) plus the margin is the deadline", async () => {
    const setup = await curioInstance({ history: [{ minutes: 10, name: "UpdateProve" }] });
    const { t, id } = setup;
    expect((await t.manager.destroy(id)).state).toBe("destroyed");
    const events = await eventsOf(t, id);
    expect(events.find((e) => e.type === "curio-drain-deadline")?.at).toBe(setup.startedAt + 35 * minute);
  });
});

describe("no orphaned cordons", () => {
  it("a database restart during the drain is retried: the drain goes on and the instance is destroyed", async () => {
    const setup: Setup = await curioInstance({
      onSleep: async (count) => {
        if (count === 1) await postgres.stopServer(); // the next task read fails
        if (count === 2) await postgres.startServer(); // the retry's backoff: back up
        if (count === 3) await finishNodeTask(setup.schema);
      },
    });
    const { t, id, vastId } = setup;
    const before = await setup.curioRows();
    expect((await t.manager.destroy(id)).state).toBe("destroyed");
    expect(destroysOf(t, vastId)).toBe(1);
    const types = (await eventsOf(t, id)).map((e) => e.type);
    expect(types).toContain("curio-drained");
    expect(types.some((type) => type === "curio-drain-failed")).toBe(false);
    expect(await setup.curioRows()).toEqual(before);
  });

  it("a HarmonyDB that stays down: bounded retries, then the drain is stored `cordoned` with an event; the next start uncordons", async () => {
    const setup: Setup = await curioInstance({
      link: { dbRetry: { maxAttempts: 3 } },
      onSleep: async (count) => {
        if (count === 1) await postgres.stopServer();
      },
    });
    const { t, id, vastId } = setup;
    let error: unknown;
    try {
      error = await t.manager.destroy(id).catch((e: unknown) => e);
    } finally {
      await postgres.startServer();
    }
    expect(error).toMatchObject({ code: "FLEET_CURIO_DB", hint: expect.stringContaining("--curio-db") });
    // Kept, billing but visible: active, its node still cordoned, the drain stored and said.
    const record = await t.manager.store.require(id);
    expect(record.state).toBe("active");
    expect(destroysOf(t, vastId)).toBe(0);
    expect(record.curioDrain).toMatchObject({ state: "cordoned", curioMachineId: 1, destroyPending: false });
    expect(await setup.unschedulable()).toEqual([
      [1, true],
      [2, false],
    ]);
    const events = await eventsOf(t, id);
    expect(events.find((e) => e.type === "curio-drain-failed")?.detail).toMatchObject({
      code: "FLEET_CURIO_DB",
      step: "drain",
      hint: expect.any(String),
    });
    expect(events.at(-1)).toMatchObject({
      type: "curio-uncordon-failed",
      detail: { code: "FLEET_CURIO_DB" },
    });
    // HarmonyDB's password never reaches the events (nor the error).
    const password = decodeURIComponent(new URL(postgres.url).password);
    expect(JSON.stringify(events)).not.toContain(password);
    expect(String((error as Error).message)).not.toContain(password);
    // The machines report shows it.
    const report = await t.manager.machines();
    expect(report.machines.find((m) => m.machineId === record.machineId)?.curioDrain).toMatchObject({
      instanceId: id,
      state: "cordoned",
      curioMachineId: 1,
    });
    // A restarted manager uncordons it (no destroy is pending) and clears the state.
    const restarted = t.restart();
    managers.push(restarted);
    await restarted.startup();
    expect(await setup.unschedulable()).toEqual([
      [1, false],
      [2, false],
    ]);
    expect((await t.manager.store.require(id)).curioDrain).toBeUndefined();
    expect((await eventsOf(t, id)).find((e) => e.type === "curio-uncordoned")).toMatchObject({
      detail: { resumed: true, was: "cordoned" },
    });
  });

  it("a role with no UPDATE on harmony_machines: refused at once, nothing cordoned, nothing stored, an event with the hint", async () => {
    // SELECT on Curio's tables, no UPDATE: the cordon is refused.
    const role = `curio_ro_${process.pid}`;
    const setup = await curioInstance({
      url: async (schema) => {
        await postgres.query(`DROP ROLE IF EXISTS ${role}`).catch(() => {});
        await postgres.query(`CREATE ROLE ${role} LOGIN PASSWORD 'ro-password'`);
        await postgres.query(`GRANT USAGE ON SCHEMA ${schema} TO ${role}`);
        await postgres.query(`GRANT SELECT ON ALL TABLES IN SCHEMA ${schema} TO ${role}`);
        return postgres.url.replace(/^postgres:\/\/[^@]+@/, `postgres://${role}:ro-password@`);
      },
    });
    const { t, id, vastId } = setup;
    const before = await setup.curioRows();
    const error = await t.manager.destroy(id).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: "FLEET_CURIO_DB",
      hint: expect.stringContaining("UPDATE on harmony_machines"),
    });
    expect((await t.manager.store.require(id)).state).toBe("active");
    expect((await t.manager.store.require(id)).curioDrain).toBeUndefined();
    expect(destroysOf(t, vastId)).toBe(0);
    expect(await setup.unschedulable()).toEqual([
      [1, false],
      [2, false],
    ]);
    expect(await setup.curioRows()).toEqual(before);
    expect((await eventsOf(t, id)).find((e) => e.type === "curio-drain-failed")?.detail).toMatchObject({
      step: "cordon",
      code: "FLEET_CURIO_DB",
      hint: expect.stringContaining("UPDATE"),
    });
  });

  it("a cancel mid-drain while HarmonyDB is down: no silent cordon (stored `cordoned` and an event)", async () => {
    const cancel = new AbortController();
    const setup = await curioInstance({
      link: { dbRetry: { maxAttempts: 2 } },
      onSleep: async (count) => {
        if (count === 1) {
          await postgres.stopServer();
          cancel.abort(new Error("SIGTERM"));
        }
      },
    });
    const { t, id } = setup;
    let record: Awaited<ReturnType<typeof t.manager.destroy>>;
    try {
      record = await t.manager.destroy(id, { signal: cancel.signal });
    } finally {
      await postgres.startServer();
    }
    expect(record.state).toBe("active");
    expect(record.curioDrain).toMatchObject({ state: "cordoned", curioMachineId: 1 });
    expect(await setup.unschedulable()).toEqual([
      [1, true],
      [2, false],
    ]);
    expect((await eventsOf(t, id)).at(-1)).toMatchObject({
      type: "curio-uncordon-failed",
      detail: { reason: "cancelled: SIGTERM", curioMachineId: 1 },
    });
  });
});

describe("the dashboard's destroy drains in the background; a stopped manager's drain is resumed", () => {
  it("answers 202 at once, then cordons, drains and destroys, each step an event", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const setup: Setup = await curioInstance({
      dashboard: true,
      onSleep: async (count) => {
        if (count === 1) await gate;
        if (count === 2) await finishNodeTask(setup.schema);
      },
    });
    const { t, id, vastId } = setup;
    const answer = await t.app.inject({
      method: "POST",
      url: `/api/instances/${id}/destroy`,
      headers: { authorization: `Bearer ${"a".repeat(32)}` },
    });
    expect(answer.statusCode).toBe(202);
    expect(answer.json()).toMatchObject({ ok: true, instance: { id, state: "active" } });
    release();
    await vi.waitFor(async () => expect((await t.manager.store.require(id)).state).toBe("destroyed"));
    expect(destroysOf(t, vastId)).toBe(1);
    expect((await curioEvents(t, id, setup.startedAt)).map(([type]) => type)).toEqual([
      "curio-cordoned",
      "curio-draining",
      "curio-drained",
      "transition",
    ]);
  });

  it("stop() mid-drain keeps the drain stored with an event; the next start drains again and destroys", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let reached: () => void = () => {};
    const atFirstWait = new Promise<void>((resolve) => {
      reached = resolve;
    });
    const setup: Setup = await curioInstance({
      dashboard: true,
      onSleep: async (count) => {
        if (count === 1) {
          reached();
          await gate;
        }
      },
    });
    const { t, id, vastId } = setup;
    const before = await setup.curioRows();
    const answer = await t.app.inject({
      method: "POST",
      url: `/api/instances/${id}/destroy`,
      headers: { authorization: `Bearer ${"a".repeat(32)}` },
    });
    expect(answer.statusCode).toBe(202);
    await atFirstWait; // cordoned, its task seen, waiting for the next check
    const stopping = t.manager.stop();
    release();
    await stopping;
    // Stopped: still active and cordoned, the drain stored and said, nothing destroyed.
    const stored = await t.manager.store.require(id);
    expect(stored.state).toBe("active");
    expect(stored.curioDrain).toMatchObject({
      state: "draining",
      curioMachineId: 1,
      since: setup.startedAt,
      deadlineAt: setup.startedAt + 15 * minute,
      destroyPending: true,
    });
    expect((await eventsOf(t, id)).at(-1)).toMatchObject({ type: "curio-drain-interrupted" });
    expect(await setup.unschedulable()).toEqual([
      [1, true],
      [2, false],
    ]);
    expect(destroysOf(t, vastId)).toBe(0);
    // The dashboard shows the drain.
    const list = await t.app.inject({
      method: "GET",
      url: "/api/instances",
      headers: { authorization: `Bearer ${"a".repeat(32)}` },
    });
    expect(list.json().instances.find((i: { id: string }) => i.id === id)).toMatchObject({
      curioDrain: { state: "draining", curioMachineId: 1, deadlineAt: setup.startedAt + 15 * minute },
    });

    // The task ends while no manager runs; a new manager resumes the drain and destroys.
    await finishNodeTask(setup.schema);
    const restarted = t.restart();
    managers.push(restarted);
    await restarted.startup();
    await vi.waitFor(async () => expect((await t.manager.store.require(id)).state).toBe("destroyed"));
    expect(destroysOf(t, vastId)).toBe(1);
    const types = (await eventsOf(t, id)).map((e) => e.type);
    expect(types.slice(types.indexOf("curio-drain-interrupted"))).toEqual(
      expect.arrayContaining(["curio-drain-resumed", "curio-cordoned", "curio-drained"]),
    );
    expect((await t.manager.store.require(id)).curioDrain).toBeUndefined();
    expect(await setup.curioRows()).toEqual(before);
  });

  it("a killed manager's drain (stored, no process left): the next start drains again and destroys", async () => {
    const setup = await curioInstance({ dashboard: true });
    const { t, id, vastId, schema } = setup;
    // What a manager killed right after its cordon leaves: the stored drain and the flag.
    await t.manager.store.setCurioDrain(id, {
      state: "draining",
      curioMachineId: 1,
      since: setup.startedAt,
      deadlineAt: setup.startedAt + 15 * minute,
      destroyPending: true,
    });
    await postgres.query(`UPDATE ${schema}.harmony_machines SET unschedulable = true WHERE id = 1`);
    await finishNodeTask(schema);
    t.clock.advance(5 * minute);
    const restarted = t.restart();
    managers.push(restarted);
    await restarted.startup();
    await vi.waitFor(async () => expect((await t.manager.store.require(id)).state).toBe("destroyed"));
    expect(destroysOf(t, vastId)).toBe(1);
    const resumed = (await eventsOf(t, id)).find((e) => e.type === "curio-cordoned");
    expect(resumed?.detail).toMatchObject({ curioMachineId: 1, resumed: true, since: setup.startedAt });
  });

  it("a stored drain with no destroy pending is uncordoned at the next start, and the instance kept", async () => {
    const setup = await curioInstance();
    const { t, id, vastId, schema } = setup;
    await t.manager.store.setCurioDrain(id, {
      state: "draining",
      curioMachineId: 1,
      since: setup.startedAt,
      deadlineAt: undefined,
      destroyPending: false,
    });
    await postgres.query(`UPDATE ${schema}.harmony_machines SET unschedulable = true WHERE id = 1`);
    const restarted = t.restart();
    managers.push(restarted);
    await restarted.startup();
    expect(await setup.unschedulable()).toEqual([
      [1, false],
      [2, false],
    ]);
    const record = await t.manager.store.require(id);
    expect(record.state).toBe("active");
    expect(record.curioDrain).toBeUndefined();
    expect(destroysOf(t, vastId)).toBe(0);
  });

  it("an instance that leaves `active` mid-drain (failed, destroyed elsewhere) ends the drain without a second destroy", async () => {
    const setup: Setup = await curioInstance({
      onSleep: async (count) => {
        if (count === 1)
          await setup.t.manager.store.transition(setup.id, "active", "failed", {
            changes: { reason: "heartbeats lost" },
          });
      },
    });
    const { t, id } = setup;
    const record = await t.manager.destroy(id);
    expect(record.state).toBe("failed");
    expect(record.curioDrain).toBeUndefined(); // leaving active cleared it
    const types = (await eventsOf(t, id)).map((e) => e.type);
    expect(types).not.toContain("curio-drained");
    expect(types).not.toContain("destroy-refused");
  });

  it("a resumed drain keeps its deadline: a task already overdue is not granted a fresh one", async () => {
    const setup = await curioInstance({ dashboard: true });
    const { t, id, vastId, schema } = setup;
    await t.manager.store.setCurioDrain(id, {
      state: "draining",
      curioMachineId: 1,
      since: setup.startedAt,
      deadlineAt: setup.startedAt + 30_000,
      destroyPending: true,
    });
    await postgres.query(`UPDATE ${schema}.harmony_machines SET unschedulable = true WHERE id = 1`);
    // 20 minutes without a manager; the node's PoRep (10 min expected, 5 min margin) still runs.
    t.clock.advance(20 * minute);
    const restarted = t.restart();
    managers.push(restarted);
    await restarted.startup();
    await vi.waitFor(async () => expect((await t.manager.store.require(id)).state).toBe("destroyed"));
    expect(destroysOf(t, vastId)).toBe(1);
    const events = await eventsOf(t, id);
    // Started no later than Curio's poll after the cordon: 30 s + 10 min + 5 min, long past.
    expect(events.find((e) => e.type === "curio-draining")?.detail).toMatchObject({
      deadlineAt: setup.startedAt + 30_000 + 15 * minute,
    });
    expect(events.find((e) => e.type === "curio-drain-deadline")?.at).toBe(setup.startedAt + 20 * minute);
  });

  it("stop() also ends a destroy without its own signal (a fleet run trim, a replacement): stored and said, not destroyed", async () => {
    let stopping: Promise<void> | undefined;
    const setup: Setup = await curioInstance({
      onSleep: (count) => {
        if (count === 1) stopping = setup.t.manager.stop();
      },
    });
    const { t, id, vastId } = setup;
    const record = await t.manager.destroy(id);
    await stopping;
    expect(record.state).toBe("active");
    expect(record.curioDrain).toMatchObject({ state: "draining", curioMachineId: 1, destroyPending: true });
    expect((await eventsOf(t, id)).at(-1)).toMatchObject({ type: "curio-drain-interrupted" });
    expect(destroysOf(t, vastId)).toBe(0);
  });
});
