import { type AddressInfo, createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { fleetSettings, useFleetCli } from "../test-support/fleet-cli.js";

const cli = useFleetCli();
const managerUrl = ["--manager-url", "http://203.0.113.5:7320"];

/** A port nothing listens on (now). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
const creates = () => cli.server.requestsTo(/^\/api\/v0\/asks\/\d+\/$/, "PUT");
describe("cuzkit fleet", () => {
  it("serve saves the fleet's settings; deploy, status and destroy reuse them", async () => {
    const serve = await cli.run([
      "serve",
      "--db",
      cli.db,
      "--listen",
      "127.0.0.1:0",
      ...fleetSettings,
      "--max-instances",
      "1",
    ]);
    expect(serve.error).toBeUndefined();
    expect(serve.stdout).toMatch(/^listening http:\/\/127\.0\.0\.1:\d+\n/);

    // The URL is given again: a stored one is used only while its manager answers there (below).
    const deploy = await cli.run(["deploy", "--db", cli.db, "--offer", "1002", ...managerUrl]);
    expect(deploy.error).toBeUndefined();
    const id = /^(i-[0-9a-f]{8}) booting vast (\d+) offer 1002/.exec(deploy.stdout)?.[1] as string;
    expect(id).toBeDefined();
    const create = cli.server.requestsTo("/api/v0/asks/1002/", "PUT")[0]?.body as {
      env: Record<string, string>;
    };
    expect(create.env.CUZKIT_FLEET_URL).toBe("http://203.0.113.5:7320");
    // The saved cap applies to a deploy that did not repeat it.
    const second = await cli.run(["deploy", "--db", cli.db, "--offer", "1003", ...managerUrl]);
    expect(second.error).toMatchObject({
      code: "FLEET_BUDGET_EXCEEDED",
      hint: expect.stringContaining("--max-instances"),
    });

    const status = await cli.run(["status", "--db", cli.db, "--json"]);
    const parsed = JSON.parse(status.stdout) as {
      counts: Record<string, number>;
      instances: { id: string; state: string; deadlineMs: number }[];
    };
    expect(parsed.counts.booting).toBe(1);
    expect(parsed.instances[0]).toMatchObject({ id, state: "booting" });
    expect(parsed.instances[0]?.deadlineMs).toBeGreaterThan(0);
    expect(status.stdout).not.toContain(create.env.CUZKIT_FLEET_TOKEN);
    const table = await cli.run(["status", "--db", cli.db]);
    expect(table.stdout).toContain(id);
    expect(table.stdout).toContain("2x RTX 3090");

    // A Curio node's production (as the manager's HarmonyDB sync records it) shows beside the benchmark.
    const { openFleetStore } = await import("@cuzkit/fleet");
    const store = openFleetStore({ path: cli.db });
    try {
      for (const [taskType, proofsPerHour, failures] of [
        ["PoRep", 12.34, 2],
        ["UpdateProve", 4, 0],
      ] as const) {
        await store.performance.record({
          kind: "production",
          source: "curio",
          taskType,
          failures,
          instanceId: id,
          at: Date.now(),
          verdict: undefined,
          proofsPerHour,
          predictedProofsPerHour: undefined,
          dphPerHour: 0.5,
          offerId: 1002,
          machineId: undefined,
          hostId: undefined,
          gpuName: "RTX 3090",
          numGpus: 2,
          cpuRamBytes: 2 ** 38,
          cpuCores: undefined,
          cpuName: undefined,
          classKey: "test",
          windowMs: 3_600_000,
          config: undefined,
          records: undefined,
        });
      }
      // A suspect claim: counted on probation at the model's rate.
      await store.update(id, "booting", { proofsPerHour: 62.6, rateBasis: "probation" }, "test");
    } finally {
      await store.close();
    }
    const withCurio = await cli.run(["status", "--db", cli.db]);
    expect(withCurio.stdout).toContain("CURIO/H");
    expect(withCurio.stdout).toContain("PoRep 12.3 (2 failed), UpdateProve 4.0");
    expect(withCurio.stdout).toContain("62.6 (probation)");
    const curioJson = JSON.parse((await cli.run(["status", "--db", cli.db, "--json"])).stdout) as {
      instances: {
        proofsPerHour: number | null;
        rateBasis: string | null;
        curioProduction: { taskType: string; proofsPerHour: number; failures: number }[];
      }[];
    };
    expect(curioJson.instances[0]).toMatchObject({ proofsPerHour: 62.6, rateBasis: "probation" });
    expect(curioJson.instances[0]?.curioProduction).toEqual([
      expect.objectContaining({ taskType: "PoRep", proofsPerHour: 12.34, failures: 2 }),
      expect.objectContaining({ taskType: "UpdateProve", proofsPerHour: 4, failures: 0 }),
    ]);

    const destroy = await cli.run(["destroy", "--db", cli.db, id]);
    expect(destroy.stdout).toBe(`${id} destroyed\n`);
    expect(cli.server.instances.size).toBe(0);
    expect((await cli.run(["status", "--db", cli.db])).stdout).toBe("no instances\n");
  });

  it("refuses to serve without a keep rule, saying which flags to pass", async () => {
    const { error } = await cli.run(["serve", "--db", cli.db, "--listen", "127.0.0.1:0"]);
    expect(error).toMatchObject({
      code: "INVALID_INPUT",
      hint: expect.stringContaining("--min-proofs-per-hour N or --max-usd-per-1000-proofs USD"),
    });
  });

  it("deploy needs exactly one of --offer and --best", async () => {
    const both = await cli.run([
      "deploy",
      "--db",
      cli.db,
      "--offer",
      "1002",
      "--best",
      "2",
      "--min-proofs-per-hour",
      "40",
    ]);
    expect(both.error).toMatchObject({ code: "INVALID_INPUT", hint: expect.stringContaining("--offer") });
    expect(cli.server.requestsTo("/api/v0/asks/1002/", "PUT")).toHaveLength(0);
  });

  it("destroy names an unknown id clearly", async () => {
    await cli.run(["serve", "--db", cli.db, "--listen", "127.0.0.1:0", "--min-proofs-per-hour", "40"]);
    const { error } = await cli.run(["destroy", "--db", cli.db, "i-00000000"]);
    expect(error).toMatchObject({
      code: "FLEET_INSTANCE_NOT_FOUND",
      hint: expect.stringContaining("cuzkit fleet status"),
    });
  });

  it("hosts lists each machine's evidence, failure rate and exclusion; --lift ends one with an event", async () => {
    const { openFleetStore } = await import("@cuzkit/fleet");
    const store = openFleetStore({ path: cli.db });
    try {
      const death = {
        hostId: 92,
        instanceId: "i-0000aaaa",
        kind: "death" as const,
        reason: "lost: no heartbeat",
      };
      await store.recordEvidence({ ...death, machineId: 502 });
      await store.recordEvidence({ ...death, machineId: 502, instanceId: "i-0000bbbb" });
      await store.recordEvidence({
        machineId: 503,
        hostId: 93,
        instanceId: "i-0000cccc",
        kind: "operator-destroy",
        reason: "destroyed by the operator",
      });
    } finally {
      await store.close();
    }
    const table = await cli.run(["hosts", "--db", cli.db]);
    expect(table.error).toBeUndefined();
    expect(table.stdout).toMatch(/502\s.*\s92\s.*excluded until \d{4}-\d\d-\d\dT/);
    expect(table.stdout).toContain("machine 502 evidence (lift: cuzkit fleet hosts --lift 502):");
    expect(table.stdout).toMatch(/death \(counts\)\s+i-0000bbbb\s+lost: no heartbeat/);
    const json = JSON.parse((await cli.run(["hosts", "--db", cli.db, "--json"])).stdout) as {
      machines: { machineId: number; excluded: boolean; failures: number; failureRate: number }[];
    };
    expect(json.machines.map((m) => [m.machineId, m.excluded, m.failures])).toEqual([
      [502, true, 2],
      [503, false, 0],
    ]);
    expect(json.machines[1]?.failureRate).toBeLessThan(json.machines[0]?.failureRate as number);

    const lift = await cli.run([
      "hosts",
      "--db",
      cli.db,
      "--lift",
      "502",
      "--reason",
      "host swapped the GPU",
    ]);
    expect(lift.error).toBeUndefined();
    expect(lift.stdout).toBe("machine 502 lifted: lifted by the operator: host swapped the GPU\n");
    expect((await cli.run(["hosts", "--db", cli.db, "--excluded"])).stdout).toBe("no excluded machines\n");
    const reopened = openFleetStore({ path: cli.db });
    try {
      expect((await reopened.events({ instanceId: "machine-502" })).map((e) => e.type)).toEqual([
        "machine-lifted",
      ]);
    } finally {
      await reopened.close();
    }
    const again = await cli.run(["hosts", "--db", cli.db, "--lift", "502"]);
    expect(again.error).toMatchObject({
      code: "INVALID_INPUT",
      hint: expect.stringContaining("cuzkit fleet hosts"),
    });
  });

  it("refuses to rent without --manager-url, and never stores the listen address", async () => {
    await cli.run(["serve", "--db", cli.db, "--listen", "127.0.0.1:0", "--min-proofs-per-hour", "40"]);
    const { openFleetStore } = await import("@cuzkit/fleet");
    const store = openFleetStore({ path: cli.db });
    try {
      expect((await store.loadSettings("default"))?.managerUrl).toBeUndefined();
    } finally {
      await store.close();
    }
    for (const args of [
      ["deploy", "--db", cli.db, "--offer", "1002", "--image", "ghcr.io/example/prover:1"],
      ["run", "--once", "--db", cli.db, "--image", "ghcr.io/example/prover:1", "--target-instances", "1"],
    ]) {
      const { error } = await cli.run(args);
      expect(error, args[0]).toMatchObject({
        code: "FLEET_MANAGER_URL",
        hint: expect.stringContaining("pass --manager-url https://"),
      });
    }
    // fleet run serves and rents: it refuses before it rents anything.
    const run = await cli.run([
      "run",
      "--db",
      cli.db,
      "--listen",
      "127.0.0.1:0",
      "--image",
      "ghcr.io/example/prover:1",
      "--target-instances",
      "1",
    ]);
    expect(run.error).toMatchObject({ code: "FLEET_MANAGER_URL" });
    expect(creates()).toHaveLength(0);
  });

  it("refuses a loopback --manager-url unless --allow-loopback-manager-url is passed", async () => {
    const deploy = (extra: string[]) =>
      cli.run([
        "deploy",
        "--db",
        cli.db,
        "--offer",
        "1002",
        "--min-proofs-per-hour",
        "40",
        "--image",
        "ghcr.io/example/prover:1",
        "--manager-url",
        "http://127.0.0.1:7320",
        ...extra,
      ]);
    expect((await deploy([])).error).toMatchObject({
      code: "FLEET_MANAGER_URL",
      message: expect.stringContaining("never reach it"),
      hint: expect.stringContaining("--allow-loopback-manager-url"),
    });
    expect(creates()).toHaveLength(0);
    expect((await deploy(["--allow-loopback-manager-url"])).error).toBeUndefined();
    expect(creates()).toHaveLength(1);
  });

  it("uses a stored manager URL only when it answers as this manager", async () => {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}`;
    const settings = ["--min-proofs-per-hour", "40", "--image", "ghcr.io/example/prover:1"];
    const local = ["--allow-loopback-manager-url"];
    let stop: () => void = () => {};
    const stopped = new Promise<void>((resolve) => {
      stop = resolve;
    });
    let up: () => void = () => {};
    const serveIsUp = new Promise<void>((resolve) => {
      up = resolve;
    });
    const serving = cli.run(
      ["serve", "--db", cli.db, "--listen", `127.0.0.1:${port}`, "--manager-url", url, ...settings, ...local],
      {
        untilStopped: () => {
          up();
          return stopped;
        },
      },
    );
    try {
      // serve waits for its stop only once it listens and has saved its settings.
      await Promise.race([serving, serveIsUp]);
      // While it serves it is the fleet's one writer: a deploy from the CLI is refused (rent
      // through its admin API instead), so the stored URL is never checked against it here.
      const deploy = await cli.run(["deploy", "--db", cli.db, "--offer", "1002", ...local]);
      expect(deploy.error).toMatchObject({ code: "FLEET_LEASE_HELD" });
    } finally {
      stop();
      expect((await serving).error).toBeUndefined();
    }
    // serve stopped: the stored URL is a dead port now, and renting there is refused.
    const stale = await cli.run(["deploy", "--db", cli.db, "--offer", "1003", ...local]);
    expect(stale.error).toMatchObject({
      code: "FLEET_MANAGER_URL",
      message: expect.stringContaining("did not answer its health check"),
    });
    expect(creates()).toHaveLength(0);

    // fleet run on the stored URL's port checks its own nonce there, and rents.
    const target = ["--target-instances", "2", "--min-proofs-per-hour", "40"];
    const run = await cli.run(["run", "--db", cli.db, "--listen", `127.0.0.1:${port}`, ...target, ...local]);
    expect(run.error).toBeUndefined();
    expect(creates()).toHaveLength(2);
    const second = creates()[1]?.body as { env: Record<string, string> } | undefined;
    expect(second?.env.CUZKIT_FLEET_URL).toBe(url);
    // On another port the stored URL reaches no one: fleet run refuses to start.
    const elsewhere = await cli.run(["run", "--db", cli.db, "--listen", "127.0.0.1:0", ...target, ...local]);
    expect(elsewhere.error).toMatchObject({ code: "FLEET_MANAGER_URL" });
    // fleet serve still serves the agents already rented, and says renting is off.
    const serveElsewhere = await cli.run(["serve", "--db", cli.db, "--listen", "127.0.0.1:0", ...local]);
    expect(serveElsewhere.error).toBeUndefined();
    expect(serveElsewhere.stderr).toContain("renting is off");
    expect(creates()).toHaveLength(2);
  });
});
