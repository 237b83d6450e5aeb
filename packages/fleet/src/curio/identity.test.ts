import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { timedProofRecords } from "../evidence/benchmark-claim.js";
import { curioTestSchemaSql } from "../test-support/curio-test-schema.js";
import { startTestFleet, type TestFleet } from "../test-support/test-fleet.js";
import { startTestPostgres, type TestPostgres } from "../test-support/test-postgres.js";
import { type HarmonySource, openHarmonySource } from "./harmony-source.js";
import { curioIdentityIssues } from "./identity-events.js";

// Which Curio node is an instance's: by the name the agent gave Curio (the instance's label, in
// harmony_machine_details.machine_name), by IP only when that is unambiguous, and never a guess
// between two. Against a real PostgreSQL holding Curio's tables.

let postgres: TestPostgres;
beforeAll(async () => {
  postgres = await startTestPostgres();
});
afterAll(async () => {
  await postgres?.stop();
});

let fleet: TestFleet | undefined;
let harmony: HarmonySource | undefined;
afterEach(async () => {
  await fleet?.close();
  await harmony?.close();
  fleet = undefined;
  harmony = undefined;
});

/** One public IP, shared by the instances of one Vast host. */
const sharedIp = "198.51.100.20";

/** A fleet on a fresh Curio schema; the drain's sleeps advance the clock and call `onSleep`. */
async function curioFleet(
  onSleep: (count: number) => Promise<void> | void = () => {},
  dashboard: { adminToken: string } | undefined = undefined,
) {
  const schema = postgres.freshSchema("curio");
  await postgres.query(curioTestSchemaSql(schema));
  const source = openHarmonySource({ url: postgres.url, schema });
  harmony = source;
  let sleeps = 0;
  const t = await startTestFleet({
    dashboard,
    curio: {
      harmony: source,
      drainPollMs: 60_000,
      drainDeadlineMs: 600_000,
      sleep: async (ms) => {
        t.clock.advance(ms);
        await onSleep(++sleeps);
      },
    },
  });
  fleet = t;
  /** A kept (active) instance of `offerId` whose Vast public IP is `ip`. */
  const active = async (offerId: number, ip: string) => {
    const record = await t.manager.deploy(offerId);
    const instructions = await t.manager.agent.register(record.id, { agentVersion: "0.1.0" });
    for (const phase of ["params", "warmup", "benchmarking"] as const)
      await t.manager.agent.phase(record.id, { phase });
    await t.manager.agent.report(record.id, {
      verdict: "MET",
      proofsPerHour: 48,
      proofs: timedProofRecords({ count: 12, wallMs: 75_000 }),
    });
    const kept = await t.manager.store.require(record.id);
    (t.fake.instances.get(kept.vastId as number) as Record<string, unknown>).public_ipaddr = ip;
    return { id: kept.id, label: kept.label, vastId: kept.vastId as number, instructions };
  };
  /** A Curio node as Curio registers it: its listen address, and its --name (undefined: none). */
  const node = async (hostAndPort: string, name: string | undefined) => {
    const [row] = await postgres.query<{ id: number }>(
      `INSERT INTO ${schema}.harmony_machines (host_and_port, cpu, ram, gpu) VALUES ($1, 32, 1, 2) RETURNING id`,
      [hostAndPort],
    );
    const id = (row as { id: number }).id;
    // Curio writes its details at start-up, machine_name "" without --name (cmd/curio/tasks/tasks.go).
    await postgres.query(
      `INSERT INTO ${schema}.harmony_machine_details (machine_id, machine_name, tasks, layers, startup_time) VALUES ($1, $2, 'PoRep', 'base', now())`,
      [id, name ?? ""],
    );
    return id;
  };
  const ownTask = (machineId: number) =>
    postgres.query(
      `INSERT INTO ${schema}.harmony_task (posted_time, owner_id, added_by, name) VALUES (now(), $1, $1, 'PoRep')`,
      [machineId],
    );
  const flags = async () =>
    Object.fromEntries(
      (
        await postgres.query<{ id: number; unschedulable: boolean }>(
          `SELECT id, unschedulable FROM ${schema}.harmony_machines ORDER BY id`,
        )
      ).map((r) => [r.id, r.unschedulable]),
    );
  const snapshot = async () => ({
    machines: await postgres.query(`SELECT * FROM ${schema}.harmony_machines ORDER BY id`),
    tasks: await postgres.query(`SELECT * FROM ${schema}.harmony_task ORDER BY id`),
  });
  return { t, schema, active, node, ownTask, flags, snapshot };
}

const destroysOf = (t: TestFleet, vastId: number) =>
  t.fake.requestsTo(`/api/v0/instances/${vastId}/`, "DELETE").length;
const eventsOf = async (t: TestFleet, id: string) => t.manager.store.events({ instanceId: id });

describe("an instance's Curio node, by identity", () => {
  it("the manager gives each instance its label as its Curio node name at register", async () => {
    const { active } = await curioFleet();
    const a = await active(1002, sharedIp);
    expect(a.instructions.curioNodeName).toBe(a.label);
    expect(a.label).toMatch(/^cuzkit-fleet-test-i-[0-9a-f]{8}$/);
  });

  it("two Curio nodes on one IP, one per instance: destroying A cordons and drains A's node only", async () => {
    let seenDuringDrain: Record<string, boolean> | undefined;
    const setup = await curioFleet(async (count) => {
      if (count === 1) {
        seenDuringDrain = await setup.flags();
        // A's task finishes during the first wait.
        await postgres.query(`DELETE FROM ${setup.schema}.harmony_task WHERE owner_id = $1`, [nodeA]);
      }
    });
    const { t, active, node, ownTask, flags } = setup;
    const a = await active(1002, sharedIp);
    const b = await active(1003, sharedIp);
    // B's node registered first: matching by IP alone would take it for A's.
    const nodeB = await node(`${sharedIp}:12301`, b.label);
    const nodeA = await node(`${sharedIp}:12300`, a.label);
    await ownTask(nodeA);
    await ownTask(nodeB);

    // Each instance shows its own node's production.
    const nowSeconds = t.clock.now() / 1000;
    for (const [host, count] of [
      [`${sharedIp}:12300`, 2],
      [`${sharedIp}:12301`, 5],
    ] as const) {
      for (let k = 0; k < count; k++)
        await postgres.query(
          `INSERT INTO ${setup.schema}.harmony_task_history (task_id, name, posted, work_start, work_end, result, completed_by_host_and_port)
            VALUES ($1, 'PoRep', to_timestamp($2 - 900), to_timestamp($2 - 600), to_timestamp($2 - 60), true, $3)`,
          [k, nowSeconds - k * 60, host],
        );
    }
    const rates = await t.manager.recordCurioProduction();
    expect(Object.fromEntries(rates.map((r) => [r.instanceId, r.proofsPerHour]))).toEqual({
      [a.id]: 2,
      [b.id]: 5,
    });

    const record = await t.manager.destroy(a.id);
    expect(record.state).toBe("destroyed");
    expect(seenDuringDrain).toEqual({ [nodeA]: true, [nodeB]: false });
    expect(await flags()).toEqual({ [nodeA]: true, [nodeB]: false });
    expect(destroysOf(t, a.vastId)).toBe(1);
    expect(destroysOf(t, b.vastId)).toBe(0);
    // B's node still owns its task; B is active and untouched.
    expect(await postgres.query(`SELECT owner_id FROM ${setup.schema}.harmony_task`)).toEqual([
      { owner_id: nodeB },
    ]);
    expect((await t.manager.store.require(b.id)).state).toBe("active");
    const cordoned = (await eventsOf(t, a.id)).find((e) => e.type === "curio-cordoned");
    expect(cordoned?.detail).toMatchObject({
      curioMachineId: nodeA,
      matchedBy: "name",
      curioNodeName: a.label,
    });
    expect((await eventsOf(t, a.id)).map((e) => e.type)).toContain("curio-drained");
    expect((await eventsOf(t, b.id)).some((e) => e.type.startsWith("curio-"))).toBe(false);
  });

  it("Curio on its default listen 0.0.0.0:12300 (the container's address): found by name, cordoned, drained", async () => {
    const setup = await curioFleet(async (count) => {
      if (count === 1) await postgres.query(`DELETE FROM ${setup.schema}.harmony_task`);
    });
    const { t, active, node, ownTask, flags } = setup;
    const a = await active(1002, sharedIp);
    const other = await node("10.0.0.7:12300", undefined);
    const own = await node("172.17.0.2:12300", a.label);
    await ownTask(own);
    expect((await t.manager.destroy(a.id)).state).toBe("destroyed");
    expect(await flags()).toEqual({ [other]: false, [own]: true });
    expect((await eventsOf(t, a.id)).map((e) => e.type)).toEqual(
      expect.arrayContaining(["curio-cordoned", "curio-drained"]),
    );
  });

  it("falls back to the IP when exactly one unnamed node is there", async () => {
    const { t, active, node, flags } = await curioFleet();
    const a = await active(1002, sharedIp);
    const only = await node(`${sharedIp}:12300`, undefined);
    expect((await t.manager.destroy(a.id)).state).toBe("destroyed");
    expect(await flags()).toEqual({ [only]: true });
    const cordoned = (await eventsOf(t, a.id)).find((e) => e.type === "curio-cordoned");
    expect(cordoned?.detail).toMatchObject({ curioMachineId: only, matchedBy: "address" });
  });
});

describe("two candidates: no cordon, no destroy, an event and a flag say why", () => {
  it("two unnamed nodes at the instance's IP", async () => {
    const adminToken = "a".repeat(32);
    const { t, active, node, snapshot } = await curioFleet(undefined, { adminToken });
    const a = await active(1002, sharedIp);
    await node(`${sharedIp}:12300`, undefined);
    await node(`${sharedIp}:12301`, undefined);
    const before = await snapshot();
    const error = await t.manager.destroy(a.id).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: "FLEET_CURIO_NODE",
      message: expect.stringContaining(`2 unnamed Curio nodes at ${sharedIp}`),
      hint: expect.stringContaining("CURIO_NODE_NAME"),
    });
    // The dashboard's destroy is refused the same way, with the reason and the hint.
    const answer = await t.app.inject({
      method: "POST",
      url: `/api/instances/${a.id}/destroy`,
      headers: { authorization: `Bearer ${adminToken}` },
    });
    expect(answer.statusCode).toBe(409);
    expect(answer.json()).toMatchObject({
      error: "FLEET_CURIO_NODE",
      hint: expect.stringContaining("CURIO_NODE_NAME"),
    });
    expect(await snapshot()).toEqual(before); // nothing in Curio's tables changed
    expect(destroysOf(t, a.vastId)).toBe(0);
    expect((await t.manager.store.require(a.id)).state).toBe("active");
    const conflict = (await eventsOf(t, a.id)).find((e) => e.type === "curio-identity-conflict");
    expect(conflict?.detail).toMatchObject({
      reason: expect.stringContaining(`none named ${a.label}`),
      curioMachineIds: [1, 2],
    });
    // The flag status and the dashboard show.
    const issues = await curioIdentityIssues(t.manager.store, await t.manager.store.list());
    expect(issues.get(a.id)).toMatch(/2 unnamed Curio nodes/);
    const list = await t.app.inject({
      method: "GET",
      url: "/api/instances",
      headers: { authorization: `Bearer ${adminToken}` },
    });
    expect(list.json().instances).toEqual([
      expect.objectContaining({
        id: a.id,
        curioIdentityIssue: expect.stringMatching(/^2 unnamed Curio nodes at /),
      }),
    ]);
  });

  it("one unnamed node at an IP two instances share: neither is cordoned nor shown its production; naming it clears the flag", async () => {
    const { t, schema, active, node, snapshot } = await curioFleet();
    const a = await active(1002, sharedIp);
    const b = await active(1003, sharedIp);
    const only = await node(`${sharedIp}:12300`, undefined);
    await postgres.query(
      `INSERT INTO ${schema}.harmony_task_history (task_id, name, posted, work_start, work_end, result, completed_by_host_and_port)
        VALUES (1, 'PoRep', to_timestamp($1 - 900), to_timestamp($1 - 600), to_timestamp($1 - 60), true, $2)`,
      [t.clock.now() / 1000, `${sharedIp}:12300`],
    );
    const before = await snapshot();
    expect(await t.manager.recordCurioProduction()).toEqual([]);
    for (const id of [a.id, b.id]) {
      const conflict = (await eventsOf(t, id)).filter((e) => e.type === "curio-identity-conflict");
      expect(conflict).toHaveLength(1);
      const reason = String(conflict[0]?.detail?.reason);
      expect(reason).toMatch(
        /^Curio node \d+ \(198\.51\.100\.20:12300\) is the only one at 198\.51\.100\.20, which instances .* share$/,
      );
      for (const both of [a.id, b.id]) expect(reason).toContain(both);
    }
    // The next pass does not repeat the event.
    await t.manager.recordCurioProduction();
    expect((await eventsOf(t, a.id)).filter((e) => e.type === "curio-identity-conflict")).toHaveLength(1);
    await expect(t.manager.destroy(b.id)).rejects.toMatchObject({ code: "FLEET_CURIO_NODE" });
    expect(await snapshot()).toEqual(before);
    expect(destroysOf(t, b.vastId)).toBe(0);

    // Curio restarted with A's name: A's node is known, B has none; the flags clear.
    await postgres.query(
      `UPDATE ${schema}.harmony_machine_details SET machine_name = $1 WHERE machine_id = $2`,
      [a.label, only],
    );
    await t.manager.recordCurioProduction();
    const issues = await curioIdentityIssues(t.manager.store, await t.manager.store.list());
    expect(issues.size).toBe(0);
    expect((await eventsOf(t, a.id)).at(-1)?.type).toBe("curio-identity-resolved");
    expect((await eventsOf(t, b.id)).at(-1)?.type).toBe("curio-identity-resolved");
  });
});
