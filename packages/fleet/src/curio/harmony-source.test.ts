import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { curioTestSchemaSql } from "../test-support/curio-test-schema.js";
import { startTestPostgres, type TestPostgres } from "../test-support/test-postgres.js";
import { hostOf, openHarmonySource } from "./harmony-source.js";

let postgres: TestPostgres;
beforeAll(async () => {
  postgres = await startTestPostgres();
});
afterAll(async () => {
  await postgres?.stop();
});

const hour = 3_600_000;
const t0 = Date.UTC(2026, 11, 1, 10, 0, 0);

/** Seeds a Curio schema: two machines and their task history. */
async function seedCurio(schema: string) {
  await postgres.query(curioTestSchemaSql(schema));
  await postgres.query(
    `INSERT INTO ${schema}.harmony_machines (host_and_port, cpu, ram, gpu) VALUES
      ('203.0.113.5:12300', 32, 274877906944, 2), ('203.0.113.9:12300', 16, 137438953472, 1)`,
  );
  const task = async (host: string, name: string, startMs: number, workMs: number, ok: boolean) =>
    postgres.query(
      `INSERT INTO ${schema}.harmony_task_history
        (task_id, name, posted, work_start, work_end, result, err, completed_by_host_and_port)
        VALUES (1, $1, to_timestamp($2 / 1000.0), to_timestamp($2 / 1000.0), to_timestamp($3 / 1000.0), $4, $5, $6)`,
      [name, startMs, startMs + workMs, ok, ok ? null : "boom", host],
    );
  // Machine A, in the hour [t0, t0+1h): 6 PoRep ok (10 min each), 1 PoRep failed, 2 UpdateProve ok.
  for (let i = 0; i < 6; i++)
    await task("203.0.113.5:12300", "PoRep", t0 + i * 9 * 60_000, 10 * 60_000, true);
  await task("203.0.113.5:12300", "PoRep", t0 + 5 * 60_000, 60_000, false);
  await task("203.0.113.5:12300", "UpdateProve", t0, 20 * 60_000, true);
  await task("203.0.113.5:12300", "UpdateProve", t0 + 30 * 60_000, 20 * 60_000, true);
  // Outside the window, and a task type that is not a proof: not counted.
  await task("203.0.113.5:12300", "PoRep", t0 - 2 * hour, 10 * 60_000, true);
  await task("203.0.113.5:12300", "SDR", t0, 10 * 60_000, true);
  // Machine B: 3 PSProve ok (4 min each).
  for (let i = 0; i < 3; i++) await task("203.0.113.9:12300", "PSProve", t0 + i * 60_000, 4 * 60_000, true);
}

describe("Curio's HarmonyDB as a production source", () => {
  it("computes proofs/hour per machine and proof type over a window, with failures", async () => {
    const schema = postgres.freshSchema("curio");
    await seedCurio(schema);
    const harmony = openHarmonySource({ url: postgres.url, schema });
    try {
      expect(await harmony.machines()).toEqual([
        { id: 1, hostAndPort: "203.0.113.5:12300", unschedulable: false },
        { id: 2, hostAndPort: "203.0.113.9:12300", unschedulable: false },
      ]);
      const rates = await harmony.production({ sinceMs: t0, untilMs: t0 + hour });
      expect(rates).toEqual([
        {
          hostAndPort: "203.0.113.5:12300",
          taskType: "PoRep",
          completed: 6,
          failed: 1,
          proofsPerHour: 6,
          meanTaskMs: 600_000,
        },
        {
          hostAndPort: "203.0.113.5:12300",
          taskType: "UpdateProve",
          completed: 2,
          failed: 0,
          proofsPerHour: 2,
          meanTaskMs: 1_200_000,
        },
        {
          hostAndPort: "203.0.113.9:12300",
          taskType: "PSProve",
          completed: 3,
          failed: 0,
          proofsPerHour: 3,
          meanTaskMs: 240_000,
        },
      ]);
      // Over two hours the same work is half the rate.
      const wider = await harmony.production({ sinceMs: t0 - hour, untilMs: t0 + hour });
      expect(wider.find((r) => r.taskType === "PSProve")?.proofsPerHour).toBe(1.5);
      expect(await harmony.meanTaskMs({ sinceMs: t0, untilMs: t0 + hour })).toEqual(
        new Map([
          ["PoRep", 600_000],
          ["UpdateProve", 1_200_000],
          ["PSProve", 240_000],
        ]),
      );
    } finally {
      await harmony.close();
    }
  });

  it("reads the host of host:port, IPv6 included", () => {
    expect(hostOf("203.0.113.5:12300")).toBe("203.0.113.5");
    expect(hostOf("[2001:db8::1]:12300")).toBe("2001:db8::1");
    expect(hostOf("curio-1")).toBe("curio-1");
  });

  it("says which flag to fix, without the password, when HarmonyDB cannot be read", async () => {
    const harmony = openHarmonySource({ url: postgres.url, schema: "no_such_schema" });
    try {
      const error = await harmony.machines().catch((e: unknown) => e);
      expect(error).toMatchObject({
        code: "FLEET_CURIO_DB",
        hint: expect.stringContaining("--curio-schema"),
      });
      expect((error as Error).message).not.toContain(new URL(postgres.url).password);
    } finally {
      await harmony.close();
    }
  });

  it("reads each node's Curio name from harmony_machine_details", async () => {
    const schema = postgres.freshSchema("curio");
    await seedCurio(schema);
    await postgres.query(
      `INSERT INTO ${schema}.harmony_machine_details (machine_id, machine_name, tasks, layers) VALUES (1, 'cuzkit-fleet-default-i-0000000a', 'PoRep', 'base'), (2, '', 'PSProve', 'base')`,
    );
    const harmony = openHarmonySource({ url: postgres.url, schema });
    try {
      await harmony.check();
      expect(await harmony.machines()).toStrictEqual([
        {
          id: 1,
          hostAndPort: "203.0.113.5:12300",
          unschedulable: false,
          name: "cuzkit-fleet-default-i-0000000a",
        },
        // Curio writes "" when started without --name: unnamed.
        { id: 2, hostAndPort: "203.0.113.9:12300", unschedulable: false, name: undefined },
      ]);
    } finally {
      await harmony.close();
    }
  });

  describe("check() fails with FLEET_CURIO_DB and a hint that names the cause", () => {
    const checked = async (url: string, schema: string) => {
      const harmony = openHarmonySource({ url, schema });
      try {
        return await harmony.check().then(
          () => undefined,
          (e: unknown) => e as { code: string; hint: string; message: string },
        );
      } finally {
        await harmony.close();
      }
    };

    it("a schema without Curio's tables (or without machine_name)", async () => {
      expect(await checked(postgres.url, "public")).toMatchObject({
        code: "FLEET_CURIO_DB",
        hint: expect.stringContaining("no Curio tables"),
      });
      const old = postgres.freshSchema("curio");
      await seedCurio(old);
      await postgres.query(`ALTER TABLE ${old}.harmony_machine_details DROP COLUMN machine_name`);
      expect(await checked(postgres.url, old)).toMatchObject({
        hint: expect.stringContaining("machine_name"),
      });
    });

    it("wrong credentials, without the password", async () => {
      const url = new URL(postgres.url);
      url.password = "wrong-password";
      const error = await checked(url.toString(), "curio");
      expect(error).toMatchObject({ code: "FLEET_CURIO_DB", hint: expect.stringContaining("credentials") });
      expect(error?.message).not.toContain("wrong-password");
    });

    it("an unreachable server", async () => {
      const url = new URL(postgres.url);
      url.searchParams.set("host", "/nonexistent-cuzkit-socket-dir");
      expect(await checked(url.toString(), "curio")).toMatchObject({
        code: "FLEET_CURIO_DB",
        hint: expect.stringContaining("reachable"),
      });
    });
  });
});
