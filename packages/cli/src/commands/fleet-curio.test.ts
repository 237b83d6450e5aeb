import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { curioTestSchemaSql } from "../../../fleet/src/test-support/curio-test-schema.js";
import { startTestPostgres, type TestPostgres } from "../../../fleet/src/test-support/test-postgres.js";
import { runCli } from "../run-cli.js";
import { fleetSettings, useFleetCli } from "../test-support/fleet-cli.js";
import { memoryIO } from "../test-support/memory-io.js";

// `cuzkit fleet destroy|cordon|uncordon` against a real PostgreSQL holding Curio's tables: the
// instance's node (found by its Curio name, the instance's label) is cordoned before the destroy;
// cordon and uncordon flip `unschedulable` and nothing else; a bad --curio-db stops a command
// before it acts.

let postgres: TestPostgres;
beforeAll(async () => {
  postgres = await startTestPostgres();
});
afterAll(async () => {
  await postgres?.stop();
});

const cli = useFleetCli();
const ip = "198.51.100.20";

/** A fleet with one active instance, and a Curio schema with its node and another on the same IP. */
async function activeInstanceWithCurio() {
  expect(
    (await cli.run(["serve", "--db", cli.db, "--listen", "127.0.0.1:0", ...fleetSettings])).error,
  ).toBeUndefined();
  const deploy = await cli.run(["deploy", "--db", cli.db, "--offer", "1002", ...fleetSettings]);
  expect(deploy.error).toBeUndefined();
  const id = /^(i-[0-9a-f]{8}) /.exec(deploy.stdout)?.[1] as string;
  const { openFleetStore } = await import("@cuzkit/fleet");
  const store = openFleetStore({ path: cli.db });
  let label: string;
  let vastId: number;
  try {
    for (const [from, to] of [
      ["booting", "registered"],
      ["registered", "params"],
      ["params", "warmup"],
      ["warmup", "benchmarking"],
      ["benchmarking", "active"],
    ] as const)
      await store.transition(id, from, to);
    const record = await store.require(id);
    label = record.label;
    vastId = record.vastId as number;
  } finally {
    await store.close();
  }
  (cli.server.instances.get(vastId) as Record<string, unknown>).public_ipaddr = ip;
  const schema = postgres.freshSchema("curio");
  await postgres.query(curioTestSchemaSql(schema));
  // Another instance's node first, on the same public IP; then this instance's, named by the agent.
  await postgres.query(
    `INSERT INTO ${schema}.harmony_machines (host_and_port, cpu, ram, gpu) VALUES ('${ip}:12301', 32, 1, 2), ('${ip}:12300', 32, 1, 2)`,
  );
  await postgres.query(
    `INSERT INTO ${schema}.harmony_machine_details (machine_id, machine_name) VALUES (1, 'cuzkit-fleet-default-i-99999999'), (2, $1)`,
    [label],
  );
  await postgres.query(
    `INSERT INTO ${schema}.harmony_task (posted_time, owner_id, added_by, name) VALUES (now(), 1, 1, 'PoRep')`,
  );
  const snapshot = async () => ({
    machines: await postgres.query(`SELECT * FROM ${schema}.harmony_machines ORDER BY id`),
    details: await postgres.query(`SELECT * FROM ${schema}.harmony_machine_details ORDER BY id`),
    tasks: await postgres.query(`SELECT * FROM ${schema}.harmony_task ORDER BY id`),
  });
  // The URL (with its password) goes in the environment, as the CLI advises.
  const env = { CUZKIT_CURIO_DB: postgres.url };
  return { id, vastId, schema, snapshot, env, curio: ["--curio-schema", schema] };
}

const deletes = () => cli.server.requestsTo(/^\/api\/v0\/instances\/\d+\/$/, "DELETE");

describe("cuzkit fleet and a Curio cluster", () => {
  it("destroy --curio-db cordons the instance's own node (by name) before destroying it", async () => {
    const { id, snapshot, curio } = await activeInstanceWithCurio();
    const before = await snapshot();
    // --curio-db as an argument (its password is warned about, never repeated).
    // --curio-poll: the drain waits that long for Curio to read the cordon (30 s by default).
    const destroy = await cli.run([
      "destroy",
      "--db",
      cli.db,
      "--curio-db",
      postgres.url,
      ...curio,
      "--curio-poll",
      "20ms",
      id,
    ]);
    expect(destroy.error).toBeUndefined();
    expect(destroy.stdout).toBe(`${id} destroyed\n`);
    expect(destroy.stderr).not.toContain(new URL(postgres.url).password);
    expect(deletes()).toHaveLength(1);
    const after = await snapshot();
    expect(after.machines.map((m) => [m.id, m.unschedulable])).toEqual([
      [1, false], // the other instance's node, on the same IP: untouched
      [2, true],
    ]);
    expect({ ...after, machines: after.machines.map((m) => ({ ...m, unschedulable: null })) }).toEqual({
      ...before,
      machines: before.machines.map((m) => ({ ...m, unschedulable: null })),
    });
    const { openFleetStore } = await import("@cuzkit/fleet");
    const store = openFleetStore({ path: cli.db });
    try {
      const types = (await store.events({ instanceId: id })).map((e) => e.toState ?? e.type);
      // Cordoned and drained while active, then draining, destroying, destroyed.
      expect(types.slice(types.indexOf("curio-cordoned"))).toEqual([
        "curio-cordoned",
        "curio-draining",
        "curio-drained",
        "draining",
        "destroying",
        "destroyed",
      ]);
    } finally {
      await store.close();
    }
  });

  it("cordon and uncordon flip the node's unschedulable and nothing else", async () => {
    const { id, snapshot, env, curio } = await activeInstanceWithCurio();
    const before = await snapshot();
    const cordon = await cli.run(["cordon", "--db", cli.db, ...curio, id], undefined, env);
    expect(cordon.error).toBeUndefined();
    expect(cordon.stdout).toBe(`${id} cordoned: Curio node 2 (${ip}:12300)\n`);
    const cordoned = await snapshot();
    expect(cordoned.machines.map((m) => [m.id, m.unschedulable])).toEqual([
      [1, false],
      [2, true],
    ]);
    expect({ ...cordoned, machines: cordoned.machines.map((m) => ({ ...m, unschedulable: false })) }).toEqual(
      before,
    );
    const uncordon = await cli.run(["uncordon", "--db", cli.db, ...curio, id], undefined, env);
    expect(uncordon.error).toBeUndefined();
    expect(uncordon.stdout).toBe(`${id} uncordoned: Curio node 2 (${ip}:12300)\n`);
    expect(await snapshot()).toEqual(before);
    expect(deletes()).toHaveLength(0);

    // Without a Curio cluster there is nothing to cordon: said, non-zero.
    const none = await cli.run(["cordon", "--db", cli.db, id], undefined, { CUZKIT_CURIO_DB: undefined });
    expect(none.error).toMatchObject({ code: "FLEET_CONFIG", hint: expect.stringContaining("--curio-db") });
  });

  it("a bad --curio-db fails destroy, cordon and run --once (--follow-backlog too) with FLEET_CURIO_DB before they act", async () => {
    const { id, snapshot, schema } = await activeInstanceWithCurio();
    const before = await snapshot();
    const url = new URL(postgres.url);
    const wrongPassword = new URL(postgres.url);
    wrongPassword.password = "not-the-password";
    const unreachable = new URL(postgres.url);
    unreachable.searchParams.set("host", "/nonexistent-cuzkit-socket-dir");
    const cases = [
      { env: postgres.url, schema: "public", hint: "no Curio tables" },
      { env: wrongPassword.toString(), schema, hint: "credentials" },
      { env: unreachable.toString(), schema, hint: "reachable" },
    ];
    const creates = cli.server.requestsTo(/^\/api\/v0\/asks\/\d+\/$/, "PUT").length;
    for (const bad of cases) {
      const env = { CUZKIT_CURIO_DB: bad.env };
      const runs = {
        destroy: await cli.run(["destroy", "--db", cli.db, "--curio-schema", bad.schema, id], undefined, env),
        cordon: await cli.run(["cordon", "--db", cli.db, "--curio-schema", bad.schema, id], undefined, env),
        once: await cli.run(
          [
            "run",
            "--once",
            "--db",
            cli.db,
            "--curio-schema",
            bad.schema,
            "--target-instances",
            "2",
            ...fleetSettings,
          ],
          undefined,
          env,
        ),
        // Following the backlog reads the same database: refused the same way, before a step.
        backlog: await cli.run(
          [
            "run",
            "--once",
            "--follow-backlog",
            "--db",
            cli.db,
            "--curio-schema",
            bad.schema,
            ...fleetSettings,
          ],
          undefined,
          env,
        ),
      };
      for (const [command, result] of Object.entries(runs)) {
        expect(result.error, `${command} ${bad.hint}`).toMatchObject({
          code: "FLEET_CURIO_DB",
          hint: expect.stringContaining(bad.hint),
        });
        expect(`${result.stderr}${(result.error as Error).message}`).not.toContain(url.password);
      }
    }
    // Through the CLI's entry: exit 1, the error and its hint.
    const { io, stderr } = memoryIO({
      cwd: cli.home,
      env: {
        HOME: cli.home,
        VAST_API_KEY: cli.server.apiKey,
        VAST_URL: cli.server.url,
        CUZKIT_CURIO_DB: unreachable.toString(),
      },
    });
    expect(
      await runCli(
        ["fleet", "run", "--once", "--db", cli.db, "--target-instances", "2", ...fleetSettings],
        io,
      ),
    ).toBe(1);
    expect(stderr()).toMatch(
      /error: cannot find Curio's tables in Curio's HarmonyDB at .*\nhint: check that HarmonyDB is reachable/,
    );
    // Nothing destroyed, rented or cordoned; the instance is still active.
    expect(deletes()).toHaveLength(0);
    expect(cli.server.requestsTo(/^\/api\/v0\/asks\/\d+\/$/, "PUT")).toHaveLength(creates);
    expect(await snapshot()).toEqual(before);
    const status = JSON.parse((await cli.run(["status", "--db", cli.db, "--json"])).stdout) as {
      instances: { id: string; state: string }[];
    };
    expect(status.instances).toEqual([expect.objectContaining({ id, state: "active" })]);
  });

  it("status shows a Curio drain stored on an instance (draining, or cordoned with the uncordon pending)", async () => {
    const { id } = await activeInstanceWithCurio();
    const { openFleetStore } = await import("@cuzkit/fleet");
    const store = openFleetStore({ path: cli.db });
    try {
      await store.setCurioDrain(id, {
        state: "draining",
        curioMachineId: 2,
        since: Date.UTC(2026, 0, 1),
        deadlineAt: Date.UTC(2026, 0, 1, 1),
        destroyPending: true,
      });
    } finally {
      await store.close();
    }
    const table = await cli.run(["status", "--db", cli.db]);
    expect(table.stdout).toContain("CURIO DRAINING: node 2 until 2026-01-01T01:00:00.000Z");
    const json = JSON.parse((await cli.run(["status", "--db", cli.db, "--json"])).stdout) as {
      instances: { id: string; curioDrain: unknown }[];
    };
    expect(json.instances.find((i) => i.id === id)?.curioDrain).toEqual({
      state: "draining",
      curioMachineId: 2,
      since: Date.UTC(2026, 0, 1),
      deadlineAt: Date.UTC(2026, 0, 1, 1),
      destroyPending: true,
    });
  });
});
