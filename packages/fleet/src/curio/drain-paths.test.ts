import { createServer, type Server, type Socket } from "node:net";
import { sampleOffers } from "@cuzkit/vast/testing";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { timedProofRecords } from "../evidence/benchmark-claim.js";
import { backlogEventType } from "../manager/backlog-follower.js";
import { type FleetRunStep, runFleetStep, startFleetRun } from "../manager/fleet-run.js";
import { curioTestSchemaSql } from "../test-support/curio-test-schema.js";
import { startTestFleet, type TestFleet } from "../test-support/test-fleet.js";
import { startTestPostgres, type TestPostgres } from "../test-support/test-postgres.js";
import { type CurioBacklogSource, openCurioBacklogSource } from "./backlog-source.js";
import { type HarmonySource, openHarmonySource } from "./harmony-source.js";

// Every path that destroys a Curio node's instance, against a real PostgreSQL holding Curio's
// tables, with the manager's clock and the drain's sleeps under the test's control: a machine
// that may still work is cordoned and drained first (over-target trims, backlog scale-downs); a
// dead or lost one is cordoned at once, and a HarmonyDB that fails or hangs never stops its destroy.

let postgres: TestPostgres;
beforeAll(async () => {
  postgres = await startTestPostgres();
});
afterAll(async () => {
  await postgres?.stop();
});

const minute = 60_000;
let fleet: TestFleet | undefined;
const closing: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await fleet?.close();
  fleet = undefined;
  // Last opened first: a hung server goes before the pools waiting on it.
  for (const close of closing.splice(0).reverse()) await close();
});

/** The fleet's HarmonyDB, which the test can take down (every call then fails as a real pg error). */
function switchableHarmony(schema: string, options: { timeoutMs?: number } = {}) {
  const up = openHarmonySource({ url: postgres.url, schema });
  // A socket folder with no server: every call fails to connect (FLEET_CURIO_DB).
  const downUrl = new URL(postgres.url);
  downUrl.searchParams.set("host", "/nonexistent-cuzkit-socket-dir");
  let current: HarmonySource = up;
  const sources: HarmonySource[] = [up];
  closing.push(async () => {
    for (const s of sources) await s.close().catch(() => {});
  });
  const harmony: HarmonySource = {
    location: up.location,
    check: () => current.check(),
    machines: () => current.machines(),
    production: (w) => current.production(w),
    meanTaskMs: (w) => current.meanTaskMs(w),
    longestTaskMs: (names, w) => current.longestTaskMs(names, w),
    ownedTasks: (id) => current.ownedTasks(id),
    setUnschedulable: (id, value) => current.setUnschedulable(id, value),
    close: async () => {},
  };
  return {
    harmony,
    /** From now on HarmonyDB is unreachable. */
    down() {
      current = openHarmonySource({ url: downUrl.toString(), schema, timeoutMs: options.timeoutMs });
      sources.push(current);
    },
    /** Reads answer, writes fail (a role without UPDATE would; here the writes cannot connect). */
    writesDown(down: boolean) {
      const broken = openHarmonySource({ url: downUrl.toString(), schema });
      sources.push(broken);
      harmony.setUnschedulable = (id, value) => (down ? broken : current).setUnschedulable(id, value);
    },
    /** From now on HarmonyDB accepts connections and never answers (at `url`). */
    hung(url: string, timeoutMs: number) {
      current = openHarmonySource({ url, schema, timeoutMs });
      sources.push(current);
    },
  };
}

/** A loopback server that accepts connections and never answers: a hung database. */
async function silentServer(): Promise<{ url: string }> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closing.push(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  const { port } = server.address() as { port: number };
  return { url: `postgres://curio@127.0.0.1:${port}/curio` };
}

/**
 * A fleet on a fresh Curio schema with two kept instances, each a Curio node named by the agent:
 * A (offer 1002, $0.45/h at 20 proofs/h: the dearest per proof) and B (offer 1003, $1.20/h at 96
 * proofs/h: dearer per hour, cheaper per proof). Each node owns one PoRep task. The drain's sleeps
 * advance the clock and call `onSleep`.
 */
async function twoCurioNodes(
  onSleep: (count: number) => Promise<void> | void = () => {},
  link: { cordonTimeoutMs?: number } = {},
) {
  const schema = postgres.freshSchema("curio");
  await postgres.query(curioTestSchemaSql(schema));
  const db = switchableHarmony(schema);
  let sleeps = 0;
  const t = await startTestFleet({
    // The sample market, plus a twin of offer 1002 on another machine (a third instance).
    fake: {
      offers: [
        ...sampleOffers(),
        { ...sampleOffers().find((o) => o.id === 1002), id: 1012, machine_id: 512 },
      ],
    },
    curio: {
      harmony: db.harmony,
      drainPollMs: minute,
      drainDeadlineMs: 30 * minute,
      cordonTimeoutMs: link.cordonTimeoutMs,
      sleep: async (ms) => {
        t.clock.advance(ms);
        await onSleep(++sleeps);
      },
    },
  });
  fleet = t;
  const active = async (offerId: number, proofsPerHour: number, ip: string) => {
    const record = await t.manager.deploy(offerId);
    await t.manager.agent.register(record.id, { agentVersion: "0.1.0" });
    for (const phase of ["params", "warmup", "benchmarking"] as const)
      await t.manager.agent.phase(record.id, { phase });
    const answer = await t.manager.agent.report(record.id, {
      verdict: "MET",
      proofsPerHour,
      proofs: timedProofRecords({ count: 12, wallMs: 3_600_000 / proofsPerHour }),
    });
    expect(answer.keep).toBe(true);
    const kept = await t.manager.store.require(record.id);
    (t.fake.instances.get(kept.vastId as number) as Record<string, unknown>).public_ipaddr = ip;
    // Its Curio node as Curio registers it: the agent's CURIO_NODE_NAME in machine_name.
    const [row] = await postgres.query<{ id: number }>(
      `INSERT INTO ${schema}.harmony_machines (host_and_port, cpu, ram, gpu) VALUES ($1, 32, 1, 2) RETURNING id`,
      [`${ip}:12300`],
    );
    const node = (row as { id: number }).id;
    await postgres.query(
      `INSERT INTO ${schema}.harmony_machine_details (machine_id, machine_name, tasks, layers, startup_time) VALUES ($1, $2, 'PoRep', 'base', now())`,
      [node, kept.label],
    );
    await postgres.query(
      `INSERT INTO ${schema}.harmony_task (posted_time, owner_id, added_by, name) VALUES (now(), $1, $1, 'PoRep')`,
      [node],
    );
    return { id: kept.id, vastId: kept.vastId as number, node };
  };
  const a = await active(1002, 20, "198.51.100.21");
  const b = await active(1003, 96, "198.51.100.22");
  const flags = async () =>
    Object.fromEntries(
      (
        await postgres.query<{ id: number; unschedulable: boolean }>(
          `SELECT id, unschedulable FROM ${schema}.harmony_machines ORDER BY id`,
        )
      ).map((r) => [r.id, r.unschedulable]),
    );
  /** Every row of Curio's tables, with `unschedulable` left out (the one column the fleet writes). */
  const snapshot = async () => ({
    machines: (await postgres.query(`SELECT * FROM ${schema}.harmony_machines ORDER BY id`)).map(
      ({ unschedulable: _, ...rest }) => rest,
    ),
    details: await postgres.query(`SELECT * FROM ${schema}.harmony_machine_details ORDER BY id`),
    tasks: await postgres.query(`SELECT * FROM ${schema}.harmony_task ORDER BY id`),
    history: await postgres.query(`SELECT * FROM ${schema}.harmony_task_history ORDER BY id`),
  });
  const finishTasksOf = (node: number) =>
    postgres.query(`DELETE FROM ${schema}.harmony_task WHERE owner_id = $1`, [node]);
  return { t, schema, db, a, b, active, flags, snapshot, finishTasksOf, sleeps: () => sleeps };
}

const deletesOf = (t: TestFleet, vastId: number) =>
  t.fake.requestsTo(`/api/v0/instances/${vastId}/`, "DELETE").length;
const eventsOf = (t: TestFleet, id: string) => t.manager.store.events({ instanceId: id });
/** An offer search that finds nothing: the step only trims. */
const noOffers = { filters: { id: 999_999 } };

describe("cordon and drain on the paths where the machine may still work", () => {
  it("an over-target trim cordons and drains the dearest per proof's node, then destroys it", async () => {
    let duringDrain: { flags: Record<string, boolean>; deletes: number } | undefined;
    const setup = await twoCurioNodes(async (count) => {
      if (count === 1) {
        duringDrain = { flags: await setup.flags(), deletes: deletesOf(setup.t, setup.a.vastId) };
        await setup.finishTasksOf(setup.a.node); // A's PoRep ends during the first wait
      }
    });
    const { t, a, b, flags, snapshot } = setup;
    const before = await snapshot();
    const step = await runFleetStep(t.manager, { target: { instances: 1 }, query: noOffers });
    expect(step.decisions).toEqual([
      expect.objectContaining({
        action: "destroy",
        instanceId: a.id,
        reason: expect.stringMatching(/^over target/),
      }),
    ]);
    expect(step.skipped).toEqual([]);
    // While it drained: A's node cordoned, B's not, nothing destroyed yet.
    expect(duringDrain).toEqual({ flags: { [a.node]: true, [b.node]: false }, deletes: 0 });
    expect((await t.manager.store.require(a.id)).state).toBe("destroyed");
    expect((await t.manager.store.require(b.id)).state).toBe("active");
    expect(deletesOf(t, a.vastId)).toBe(1);
    expect(deletesOf(t, b.vastId)).toBe(0);
    expect(await flags()).toEqual({ [a.node]: true, [b.node]: false });
    const events = await eventsOf(t, a.id);
    const path = events
      .slice(events.findIndex((e) => e.type === "fleet-run"))
      .map((e) => [e.type, e.toState ?? null]);
    expect(path).toEqual([
      ["fleet-run", null],
      ["curio-cordoned", null],
      ["curio-draining", null],
      ["curio-drained", null],
      ["over-target", "draining"], // the trim says what it is, not an operator's destroy
      ["transition", "destroying"],
      ["transition", "destroyed"],
    ]);
    const moved = events.find((e) => e.toState === "draining");
    expect(moved?.detail).toEqual({ reason: expect.stringMatching(/^over target/), curioDrain: "drained" });
    // Nothing else in Curio's tables changed: only A's finished task left harmony_task.
    const after = await snapshot();
    expect(after).toEqual({ ...before, tasks: before.tasks.filter((task) => task.owner_id !== a.node) });
  });

  it("a backlog scale-down drains and destroys the dearest per proof, and never goes below the minimum", async () => {
    const setup = await twoCurioNodes(async (count) => {
      if (count === 1) await setup.finishTasksOf(setup.a.node);
    });
    const { t, a, b, flags, schema } = setup;
    const source: CurioBacklogSource = openCurioBacklogSource({ url: postgres.url, schema });
    closing.push(() => source.close());
    const steps: FleetRunStep[] = [];
    const targets: number[] = [];
    const errors: unknown[] = [];
    const totalSteps = 12;
    let stopping: Promise<void> | undefined;
    let ended: () => void = () => {};
    const finished = new Promise<void>((resolve) => {
      ended = resolve;
    });
    const stop = startFleetRun(t.manager, {
      // No proving task waits in Curio: quiet from the first step; down after 5 quiet minutes.
      followBacklog: { source, minInstances: 1, maxInstances: 2, idleWindowMs: 5 * minute },
      query: noOffers,
      clock: t.clock,
      intervalMs: minute,
      onBacklog: (s) => targets.push(s.kind === "decided" ? s.decision.target : s.target),
      onStep: (s) => steps.push(s),
      onError: (error) => errors.push(error),
      sleep: async (ms) => {
        t.clock.advance(ms);
        if (steps.length >= totalSteps) {
          stopping = stop();
          ended();
        }
      },
    });
    await finished;
    await stopping;
    expect(errors).toEqual([]);
    // Two machines kept while the idle window runs, then one, and never fewer.
    const downStep = targets.indexOf(1);
    expect(downStep).toBeGreaterThan(0);
    expect(targets.slice(0, downStep).every((x) => x === 2)).toBe(true);
    expect(targets.slice(downStep)).toEqual(Array(totalSteps - downStep).fill(1));
    const destroys = steps.flatMap((s) => s.decisions.filter((d) => d.action === "destroy"));
    expect(destroys).toEqual([expect.objectContaining({ instanceId: a.id })]);
    // A is the dearest per proof ($22.50 per 1000 against $12.50), though the cheaper per hour.
    const records = await t.manager.store.list();
    expect(records.map((r) => [r.id, r.state])).toEqual(
      expect.arrayContaining([
        [a.id, "destroyed"],
        [b.id, "active"],
      ]),
    );
    expect(await flags()).toEqual({ [a.node]: true, [b.node]: false });
    const aEvents = await eventsOf(t, a.id);
    const cordonAt = aEvents.find((e) => e.type === "curio-cordoned")?.at as number;
    const drainedAt = aEvents.find((e) => e.type === "curio-drained")?.at as number;
    const movedEvent = aEvents.find((e) => e.toState === "draining");
    expect(drainedAt - cordonAt).toBe(minute); // it waited for its task
    expect(movedEvent).toMatchObject({ type: "over-target", at: drainedAt });
    expect((await eventsOf(t, b.id)).some((e) => e.type.startsWith("curio-"))).toBe(false);
    const backlog = (await t.manager.store.events())
      .filter((e) => e.type === backlogEventType && (e.detail as { action?: string }).action === "down")
      .map((e) => e.detail);
    expect(backlog).toEqual([expect.objectContaining({ previousTarget: 2, target: 1, reason: "idle" })]);
  });
});

/** Curio's history for the last half hour: A's node proved 1 PoRep (2 an hour), B's 48 (96 an hour). */
async function halfHourOfProduction(setup: Awaited<ReturnType<typeof twoCurioNodes>>): Promise<void> {
  const { t, a, b, schema } = setup;
  const nowSeconds = t.clock.now() / 1000;
  for (const [node, count] of [
    [a, 1],
    [b, 48],
  ] as const)
    await postgres.query(
      `INSERT INTO ${schema}.harmony_task_history (task_id, name, posted, work_start, work_end, result, completed_by_host_and_port)
        SELECT g, 'PoRep', to_timestamp($1 - 1200), to_timestamp($1 - 1200), to_timestamp($1 - 60), true, $2
          FROM generate_series(1, $3) g`,
      [nowSeconds, node === a ? "198.51.100.21:12300" : "198.51.100.22:12300", count],
    );
}

describe("cordon and drain on the manager's own decisions", () => {
  it("a production replacement on Curio drains in the background: the monitor's pass goes on, and finds a lost machine meanwhile", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let waiting: () => void = () => {};
    const drainWaits = new Promise<void>((resolve) => {
      waiting = resolve;
    });
    const setup = await twoCurioNodes(async (count) => {
      // The node's PoRep runs until the test says: the drain waits on it.
      if (count === 1) {
        waiting();
        await gate;
      }
    });
    const { t, a, b, flags } = setup;
    const produce = () => halfHourOfProduction(setup);
    let replaced: string[] = [];
    for (let half = 0; half < 12 && replaced.length === 0; half++) {
      t.clock.advance(30 * minute);
      await produce();
      await t.manager.agent.heartbeat(a.id);
      await t.manager.agent.heartbeat(b.id);
      await t.manager.recordCurioProduction();
      replaced = (await t.manager.monitor()).replaced;
    }
    // The pass came back with the replacement begun: A is cordoned and draining, not destroyed.
    expect(replaced).toEqual([a.id]);
    await drainWaits;
    const draining = await t.manager.store.require(a.id);
    expect(draining.state).toBe("active");
    expect(draining.curioDrain?.state).toBe("draining");
    expect(await flags()).toEqual({ [a.node]: true, [b.node]: false });
    // B's agent goes silent while A drains: the next pass still finds it lost.
    t.clock.advance(3 * 30_000 + 1_000);
    await t.manager.agent.heartbeat(a.id);
    expect((await t.manager.monitor()).lost).toEqual([b.id]);
    // A's task ends: the drain completes and A is destroyed.
    await setup.finishTasksOf(a.node);
    release();
    await t.manager.settled();
    expect((await t.manager.store.require(a.id)).state).toBe("destroyed");
    expect((await eventsOf(t, a.id)).some((e) => e.type === "production-replaced")).toBe(true);
  });

  it("a production replacement whose drain HarmonyDB refuses stays active, the pass goes on, and the next pass drains it", async () => {
    const setup = await twoCurioNodes(async (count) => {
      if (count === 1) await setup.finishTasksOf(setup.a.node);
    });
    const { t, a, b, db, flags } = setup;
    db.writesDown(true);
    // Curio's history: A's node proves 2 an hour (the keep rule's minimum is 10), B's 96.
    const produce = () => halfHourOfProduction(setup);
    let failedAt: number | undefined;
    for (let half = 0; half < 12 && failedAt === undefined; half++) {
      t.clock.advance(30 * minute);
      await produce();
      await t.manager.agent.heartbeat(a.id);
      await t.manager.agent.heartbeat(b.id);
      await t.manager.recordCurioProduction();
      // The pass ends normally: the replacement drains in the background, and a HarmonyDB error
      // there is the instance's event, not the pass's failure.
      await t.manager.monitor();
      await t.manager.settled();
      if ((await eventsOf(t, a.id)).some((e) => e.type === "curio-drain-failed")) failedAt = t.clock.now();
    }
    expect(failedAt).toBeDefined();
    const failed = (await eventsOf(t, a.id)).find((e) => e.type === "curio-drain-failed");
    // The drain's own failure event (cordonAndDrain: the step, the code and hint, the password hidden).
    expect(failed?.detail).toMatchObject({
      step: "cordon",
      code: "FLEET_CURIO_DB",
      message: expect.stringContaining("unschedulable"),
    });
    const password = new URL(postgres.url).password;
    expect(password.length).toBeGreaterThan(0);
    expect(JSON.stringify(failed?.detail)).not.toContain(`:${password}@`);
    expect((await eventsOf(t, a.id)).some((e) => e.type === "production-below")).toBe(true);
    // Kept active and billing-visible, not destroyed undrained; B untouched.
    expect((await t.manager.store.require(a.id)).state).toBe("active");
    expect((await t.manager.store.require(b.id)).state).toBe("active");
    expect(deletesOf(t, a.vastId)).toBe(0);
    expect(await flags()).toEqual({ [a.node]: false, [b.node]: false });

    // HarmonyDB takes writes again: the next pass cordons, drains and replaces it.
    db.writesDown(false);
    await t.manager.agent.heartbeat(b.id);
    await t.manager.agent.heartbeat(a.id);
    expect((await t.manager.monitor()).replaced).toEqual([a.id]);
    await t.manager.settled();
    expect((await t.manager.store.require(a.id)).state).toBe("destroyed");
    expect(await flags()).toEqual({ [a.node]: true, [b.node]: false });
    const after = (await eventsOf(t, a.id)).map((e) => e.toState ?? e.type);
    expect(after.slice(after.lastIndexOf("curio-cordoned"))).toEqual([
      "curio-cordoned",
      "curio-draining",
      "curio-drained",
      "draining",
      "destroying",
      "destroyed",
    ]);
  });

  it("a phase deadline cordons the failed machine's node at once (no drain wait), then destroys it", async () => {
    const setup = await twoCurioNodes();
    const { t, schema, flags, a, b, sleeps } = setup;
    // C is still benchmarking, and a Curio node named for it already took a task.
    const record = await t.manager.deploy(1012);
    await t.manager.agent.register(record.id, { agentVersion: "0.1.0" });
    for (const phase of ["params", "warmup", "benchmarking"] as const)
      await t.manager.agent.phase(record.id, { phase });
    const vetting = await t.manager.store.require(record.id);
    const [row] = await postgres.query<{ id: number }>(
      `INSERT INTO ${schema}.harmony_machines (host_and_port, cpu, ram, gpu) VALUES ('172.17.0.9:12300', 32, 1, 2) RETURNING id`,
    );
    const cNode = (row as { id: number }).id;
    await postgres.query(
      `INSERT INTO ${schema}.harmony_machine_details (machine_id, machine_name) VALUES ($1, $2)`,
      [cNode, vetting.label],
    );
    await postgres.query(
      `INSERT INTO ${schema}.harmony_task (posted_time, owner_id, added_by, name) VALUES (now(), $1, $1, 'PoRep')`,
      [cNode],
    );
    t.clock.advance((vetting.phaseDeadlineAt as number) + 1 - t.clock.now());
    await t.manager.agent.heartbeat(a.id);
    await t.manager.agent.heartbeat(b.id);
    await t.manager.agent.heartbeat(vetting.id);
    const sleptBefore = sleeps.length;
    const summary = await t.manager.monitor();
    expect(summary.pastDeadline).toEqual([vetting.id]);
    // Failed is not active: no drain wait, the node is cordoned at once and the machine destroyed.
    expect(sleeps.length).toBe(sleptBefore);
    expect((await t.manager.store.require(vetting.id)).state).toBe("destroyed");
    expect(await flags()).toEqual({ [a.node]: false, [b.node]: false, [cNode]: true });
    const events = await eventsOf(t, vetting.id);
    const order = events.map((e) => e.toState ?? e.type);
    expect(order.slice(order.indexOf("failed"))).toEqual([
      "failed",
      "curio-cordoned",
      "destroying",
      "destroyed",
    ]);
    expect(events.find((e) => e.type === "curio-cordoned")?.detail).toMatchObject({
      reason: expect.stringMatching(/^deadline: benchmarking ran past/),
      drain: false,
    });
  });
});

describe("cordon at once where the machine is dead or lost", () => {
  it("a lost active machine's node is cordoned at once (no drain wait), then it is destroyed", async () => {
    const { t, a, b, flags, snapshot, sleeps } = await twoCurioNodes();
    const before = await snapshot();
    // Both agents go silent; B keeps heartbeating.
    t.clock.advance(3 * 30_000 + 1_000);
    await t.manager.agent.heartbeat(b.id);
    const summary = await t.manager.monitor();
    expect(summary.lost).toEqual([a.id]);
    expect((await t.manager.store.require(a.id)).state).toBe("destroyed");
    expect(deletesOf(t, a.vastId)).toBe(1);
    // Cordoned although its task is still owned: no drain wait on a dead node.
    expect(sleeps()).toBe(0);
    expect(await flags()).toEqual({ [a.node]: true, [b.node]: false });
    const events = await eventsOf(t, a.id);
    const cordoned = events.find((e) => e.type === "curio-cordoned");
    expect(cordoned?.detail).toEqual({
      curioMachineId: a.node,
      hostAndPort: "198.51.100.21:12300",
      curioNodeName: (await t.manager.store.require(a.id)).label,
      matchedBy: "name",
      reason: expect.stringMatching(/^lost: no heartbeat/),
      drain: false,
      late: false,
    });
    // The cordon came before the destroy.
    const order = events.map((e) => e.toState ?? e.type);
    expect(order.indexOf("curio-cordoned")).toBeLessThan(order.indexOf("destroying"));
    expect(order.indexOf("failed")).toBeLessThan(order.indexOf("curio-cordoned"));
    expect(await snapshot()).toEqual(before);
  });

  it("a machine Vast reports exited: its node is cordoned at once by reconcile", async () => {
    const { t, a, b, flags, sleeps } = await twoCurioNodes();
    (t.fake.instances.get(a.vastId) as Record<string, unknown>).actual_status = "exited";
    const summary = await t.manager.reconcile();
    expect(summary.failedByVast).toEqual([a.id]);
    expect(sleeps()).toBe(0);
    expect(await flags()).toEqual({ [a.node]: true, [b.node]: false });
    expect((await eventsOf(t, a.id)).find((e) => e.type === "curio-cordoned")?.detail).toMatchObject({
      reason: expect.stringMatching(/^Vast reports the instance exited/),
      drain: false,
    });
    expect((await t.manager.store.require(a.id)).state).toBe("destroyed");
  });

  it("HarmonyDB down: the lost machine is still destroyed, and the failed cordon is an event with FLEET_CURIO_DB", async () => {
    const { t, a, b, db, flags, snapshot } = await twoCurioNodes();
    const before = await snapshot();
    const flagsBefore = await flags();
    db.down();
    t.clock.advance(3 * 30_000 + 1_000);
    await t.manager.agent.heartbeat(b.id);
    const summary = await t.manager.monitor();
    expect(summary.lost).toEqual([a.id]);
    expect((await t.manager.store.require(a.id)).state).toBe("destroyed");
    expect(deletesOf(t, a.vastId)).toBe(1);
    const failed = (await eventsOf(t, a.id)).filter((e) => e.type === "curio-cordon-failed");
    expect(failed.map((e) => e.detail)).toEqual([
      {
        reason: expect.stringMatching(/^lost: /),
        code: "FLEET_CURIO_DB",
        message: expect.stringContaining("Curio's HarmonyDB"),
      },
    ]);
    expect(JSON.stringify(failed)).not.toContain(new URL(postgres.url).password);
    // Nothing was written to Curio.
    expect(await flags()).toEqual(flagsBefore);
    expect(await snapshot()).toEqual(before);
  });

  it("a hung HarmonyDB cannot stall the pass: the cordon gives up at its bound and the destroy goes on", async () => {
    const { t, a, db, flags } = await twoCurioNodes(undefined, { cordonTimeoutMs: 300 });
    const flagsBefore = await flags();
    const hung = await silentServer();
    // The pool's own bound is longer than the cordon's: the cordon's bound is what ends the wait.
    db.hung(hung.url, 60_000);
    (t.fake.instances.get(a.vastId) as Record<string, unknown>).actual_status = "exited";
    const summary = await t.manager.reconcile();
    expect(summary.failedByVast).toEqual([a.id]);
    expect((await t.manager.store.require(a.id)).state).toBe("destroyed");
    expect(deletesOf(t, a.vastId)).toBe(1);
    const failed = (await eventsOf(t, a.id)).find((e) => e.type === "curio-cordon-failed");
    expect(failed?.detail).toEqual({
      reason: expect.stringMatching(/^Vast reports the instance exited/),
      code: "FLEET_CURIO_DB",
      message: expect.stringContaining("did not finish within 300 ms"),
    });
    expect(await flags()).toEqual(flagsBefore);
  });

  it("each HarmonyDB call is bounded: a database that never answers fails with FLEET_CURIO_DB", async () => {
    const hung = await silentServer();
    const source = openHarmonySource({ url: hung.url, schema: "curio", timeoutMs: 200 });
    closing.push(() => source.close().catch(() => {}));
    await expect(source.machines()).rejects.toMatchObject({ code: "FLEET_CURIO_DB" });
  });
});
