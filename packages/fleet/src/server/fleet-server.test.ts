import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { timedProofRecords } from "../evidence/benchmark-claim.js";
import { openFleetStore } from "../store/open-fleet-store.js";
import { startTestFleet, type TestFleet } from "../test-support/test-fleet.js";

let fleet: TestFleet | undefined;
afterEach(async () => {
  await fleet?.close();
  fleet = undefined;
});

/** n honest timed proofs of wallMs each, one at a time (60 s: 60 proofs/hour). */
const proofs = (n: number, wallMs = 60_000) => timedProofRecords({ count: n, wallMs, warmup: false });

async function deployed(t: TestFleet, offerId = 1002) {
  const record = await t.manager.deploy(offerId);
  expect(record.state).toBe("booting");
  return { id: record.id, vastId: record.vastId as number, token: t.tokenOf(record.id) };
}

function post(t: TestFleet, id: string, path: string, token: string | undefined, body: unknown) {
  return t.app.inject({
    method: "POST",
    url: `/v1/agent/${id}/${path}`,
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    payload: body as Record<string, unknown>,
  });
}

async function vetted(t: TestFleet, id: string, token: string) {
  expect((await post(t, id, "register", token, { agentVersion: "0.1.0" })).statusCode).toBe(200);
  for (const phase of ["params", "warmup", "benchmarking"]) {
    expect((await post(t, id, "phase", token, { phase })).statusCode).toBe(200);
  }
}

describe("the manager's agent endpoints", () => {
  it("keeps a machine that meets the minimum, and stores its per-proof records", async () => {
    fleet = await startTestFleet({ config: { minProofsPerHour: 40 } });
    const { id, vastId, token } = await deployed(fleet);
    const register = await post(fleet, id, "register", token, { agentVersion: "0.1.0" });
    expect(register.json()).toMatchObject({
      ok: true,
      instructions: { instanceId: id, minProofsPerHour: 40 },
    });
    const t = fleet;
    for (const phase of ["params", "warmup", "benchmarking"]) {
      expect((await post(t, id, "phase", token, { phase })).statusCode).toBe(200);
    }
    const report = await post(t, id, "report", token, {
      verdict: "MET",
      proofsPerHour: 48.5,
      proofs: proofs(12),
      tunedConfig: "[daemon]\n",
    });
    expect(report.statusCode).toBe(200);
    expect(report.json()).toMatchObject({ keep: true, state: "active" });
    expect(await t.manager.store.require(id)).toMatchObject({ state: "active", proofsPerHour: 48.5 });
    expect((await t.manager.store.benchmarkResult(id))?.report.proofs).toHaveLength(12);
    expect(t.fake.instances.has(vastId)).toBe(true); // still rented
    expect((await post(t, id, "heartbeat", token, {})).statusCode).toBe(200);
  });

  it.each([
    ["BELOW", 35.9, "rejected", false],
    ["UNSTABLE", 45, "rejected", true],
    ["FAILED", 0, "failed", false],
    ["MET", 35.9, "rejected", false], // below the fleet's minimum, whatever the agent says
  ] as const)(
    "%s at %s/h -> %s, destroyed at once (machine excluded: %s)",
    async (verdict, rate, decided, excluded) => {
      fleet = await startTestFleet({ config: { minProofsPerHour: 40 } });
      const { id, vastId, token } = await deployed(fleet);
      await vetted(fleet, id, token);
      const report = await post(fleet, id, "report", token, {
        verdict,
        proofsPerHour: rate,
        proofs: proofs(12),
      });
      expect(report.json()).toMatchObject({ keep: false, state: decided });
      expect((await fleet.manager.store.require(id)).state).toBe("destroyed");
      expect(fleet.fake.instances.has(vastId)).toBe(false);
      expect(await fleet.manager.store.isMachineExcluded(502)).toBe(excluded);
      const types = (await fleet.manager.store.events({ instanceId: id })).map((e) => e.toState);
      expect(types.slice(-3)).toEqual([decided, "destroying", "destroyed"]);
      if (excluded)
        await expect(fleet.manager.deploy(1002)).rejects.toMatchObject({ code: "FLEET_OFFER_REFUSED" });
    },
  );

  it("fails and destroys a machine whose agent reports a failed step, with its class", async () => {
    fleet = await startTestFleet();
    const { id, vastId, token } = await deployed(fleet);
    await post(fleet, id, "register", token, { agentVersion: "0.1.0" });
    await post(fleet, id, "phase", token, { phase: "params" });
    const failure = await post(fleet, id, "failure", token, {
      phase: "params",
      errorClass: "ParamsCommandError",
      code: "PARAMS_FAILED",
      message: "curio fetch-params exited 1",
    });
    expect(failure.statusCode).toBe(200);
    const record = await fleet.manager.store.require(id);
    expect(record.state).toBe("destroyed");
    expect(record.reason).toContain("ParamsCommandError (PARAMS_FAILED)");
    expect(fleet.fake.instances.has(vastId)).toBe(false);
  });

  describe("bad requests get a 4xx and change nothing", () => {
    async function twoInstances() {
      fleet = await startTestFleet();
      const a = await deployed(fleet, 1002);
      const b = await deployed(fleet, 1003);
      await post(fleet, a.id, "register", a.token, { agentVersion: "0.1.0" });
      return { t: fleet, a, b };
    }

    async function snapshot(t: TestFleet) {
      return { rows: await t.manager.store.list(), events: (await t.manager.store.events()).length };
    }

    /** A request that must be refused: instance a's id and token unless the row names others. */
    interface BadRequest {
      name: string;
      status: number;
      path: string;
      body: Record<string, unknown>;
      /** Whose token it carries: a's (default), b's, or none. */
      token?: "a" | "b" | "none";
      /** The instance id in the path. Default: a's. */
      id?: string;
    }
    const badRequests: BadRequest[] = [
      { name: "no token", status: 401, path: "phase", body: { phase: "params" }, token: "none" },
      { name: "another instance's token", status: 403, path: "phase", body: { phase: "params" }, token: "b" },
      {
        name: "a made-up instance id",
        status: 403,
        path: "heartbeat",
        body: {},
        token: "b",
        id: "i-00000000",
      },
      {
        name: "a replayed register (finished phase)",
        status: 409,
        path: "register",
        body: { agentVersion: "0.1.0" },
      },
      { name: "a phase out of order", status: 409, path: "phase", body: { phase: "benchmarking" } },
      {
        name: "a report before benchmarking",
        status: 409,
        path: "report",
        body: { verdict: "MET", proofsPerHour: 99, proofs: [] },
      },
      { name: "a body that breaks the schema", status: 400, path: "phase", body: { phase: "active" } },
      { name: "an unknown field", status: 400, path: "phase", body: { phase: "params", state: "active" } },
    ];

    it.each(badRequests)("$name -> $status", async ({ status, path, body, token, id }) => {
      const { t, a, b } = await twoInstances();
      const before = await snapshot(t);
      const tokens = { a: a.token, b: b.token, none: undefined };
      const response = await post(t, id ?? a.id, path, tokens[token ?? "a"], body);
      expect(response.statusCode).toBe(status);
      expect(response.json()).toMatchObject({ ok: false });
      expect(await snapshot(t)).toEqual(before);
      // The token never comes back in an answer.
      expect(response.body).not.toContain(a.token);
      expect(response.body).not.toContain(b.token);
    });

    it("malformed JSON -> 400, an oversize body -> 413", async () => {
      const { t, a } = await twoInstances();
      const before = await snapshot(t);
      const malformed = await t.app.inject({
        method: "POST",
        url: `/v1/agent/${a.id}/phase`,
        headers: { authorization: `Bearer ${a.token}`, "content-type": "application/json" },
        payload: '{"phase": "params"',
      });
      expect(malformed.statusCode).toBe(400);
      const oversize = await t.app.inject({
        method: "POST",
        url: `/v1/agent/${a.id}/phase`,
        headers: { authorization: `Bearer ${a.token}`, "content-type": "application/json" },
        payload: JSON.stringify({ phase: "params", detail: "x".repeat(70 * 1024) }),
      });
      expect(oversize.statusCode).toBe(413);
      expect(await snapshot(t)).toEqual(before);
    });

    it("a replayed final report is refused once the machine is decided", async () => {
      fleet = await startTestFleet();
      const { id, token } = await deployed(fleet);
      await vetted(fleet, id, token);
      const body = { verdict: "MET", proofsPerHour: 50, proofs: proofs(12) };
      expect((await post(fleet, id, "report", token, body)).statusCode).toBe(200);
      const before = await snapshot(fleet);
      const replay = await post(fleet, id, "report", token, { ...body, verdict: "BELOW" });
      expect(replay.statusCode).toBe(409);
      expect(await snapshot(fleet)).toEqual(before);
      expect((await fleet.manager.store.require(id)).state).toBe("active");
    });
  });

  it("answers agents and the admin API 503 with Retry-After, changing nothing, once another manager has taken the lease over", async () => {
    const folder = mkdtempSync(join(tmpdir(), "cuzkit-server-lease-"));
    try {
      const dbPath = join(folder, "fleet.db");
      fleet = await startTestFleet({
        config: { minProofsPerHour: 40 },
        dbPath,
        writerLease: { holder: "frozen-manager", periodMs: 30_000 },
        dashboard: { adminToken: "admin-token-0123456789abcdef", readsNeedToken: false },
      });
      const t = fleet;
      const { id, token } = await deployed(t);
      // This manager froze past its lease; another on the same file took it over.
      t.clock.advance(30_001);
      const other = openFleetStore({ path: dbPath, clock: t.clock });
      try {
        const successor = other.writerLease({ fleet: "test", holder: "successor", clock: t.clock });
        await successor.acquireNow();
        // Its first write after resuming is fenced: refused in the write's own transaction.
        const fenced = await post(t, id, "register", token, { agentVersion: "0.1.0" });
        expect(fenced.statusCode).toBe(503);
        expect(fenced.headers["retry-after"]).toBe("5");
        expect(fenced.json()).toMatchObject({
          error: "FLEET_LEASE_LOST",
          message: expect.stringContaining("successor"),
        });
        // From then on it knows it follows: agents and the admin API are told to retry elsewhere.
        const following = await post(t, id, "heartbeat", token, {});
        expect(following.statusCode).toBe(503);
        expect(following.json()).toMatchObject({ error: "FLEET_NOT_LEADER" });
        const admin = { authorization: "Bearer admin-token-0123456789abcdef" };
        const deploy = await t.app.inject({
          method: "POST",
          url: "/api/deploy",
          headers: admin,
          payload: { offerId: 1003 },
        });
        expect(deploy.statusCode).toBe(503);
        const destroy = await t.app.inject({
          method: "POST",
          url: `/api/instances/${id}/destroy`,
          headers: admin,
        });
        expect(destroy.statusCode).toBe(503);
        expect(t.fake.requestsTo("/api/v0/asks/1003/", "PUT")).toHaveLength(0);
        // Reads are served.
        expect((await t.app.inject({ method: "GET", url: "/api/summary", headers: admin })).statusCode).toBe(
          200,
        );
        expect((await other.require(id)).state).toBe("booting");
        expect((await other.events({ instanceId: id })).map((e) => e.type)).not.toContain("registered");
        await successor.release();
      } finally {
        await other.close();
      }
    } finally {
      await fleet?.close();
      fleet = undefined;
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
