import { afterEach, describe, expect, it } from "vitest";
import { createLogShipper, createLogTail } from "../agent/log-tail.js";
import { redactionMarker } from "../agent/redact.js";
import { logTailDefaults } from "../defaults.js";
import { FleetLogTailTooLargeError } from "../errors.js";
import type { LogsBody } from "../protocol/requests.js";
import { testAdminToken } from "../test-support/dashboard-fleet.js";
import { startTestFleet, type TestFleet } from "../test-support/test-fleet.js";

const vastKey = "9e2d5c8f3f9c2a7b1e8d4c6f0a5b9e2d7c1f4a8b3e6d9c2f5a8b1e4d7c0f3a6b";
const envSecret = "curio-db-pass-7f3a9c21";

let fleet: TestFleet | undefined;
afterEach(async () => {
  await fleet?.close();
  fleet = undefined;
});

async function start(readsNeedToken = false) {
  fleet = await startTestFleet({
    config: { env: { CURIO_DB_PASSWORD: envSecret, PARAMS_URL: "https://params.example/v28" } },
    dashboard: { adminToken: testAdminToken, readsNeedToken },
    logSecrets: [vastKey],
  });
  const record = await fleet.manager.deploy(1002);
  return { t: fleet, id: record.id, token: fleet.tokenOf(record.id) };
}

const post = (t: TestFleet, id: string, path: string, token: string, body: unknown) =>
  t.app.inject({
    method: "POST",
    url: `/v1/agent/${id}/${path}`,
    headers: { authorization: `Bearer ${token}` },
    payload: body as Record<string, unknown>,
  });

const shipment = (texts: string[], reason: LogsBody["reason"] = "failure"): LogsBody => ({
  reason,
  phase: "warmup",
  lines: texts.map((text, n) => ({ stream: n % 2 === 0 ? "daemon" : "agent", at: 1_000 + n, text })),
});

describe("the manager's log tail endpoint", () => {
  it("stores what an agent ships with the manager's own secrets redacted again, and serves it", async () => {
    const { t, id, token } = await start();
    const shipped = await post(
      t,
      id,
      "logs",
      token,
      shipment([
        `vast key ${vastKey}`,
        `curio password ${envSecret} in a message`,
        `admin ${testAdminToken}`,
        "fetch https://params.example/v28 done",
      ]),
    );
    expect(shipped.statusCode).toBe(200);
    expect(shipped.json()).toEqual({ ok: true, kept: 4 });
    const stored = (await t.manager.store.logTail(id)).map((l) => l.text);
    expect(stored).toEqual([
      `vast key ${redactionMarker}`,
      `curio password ${redactionMarker} in a message`,
      `admin ${redactionMarker}`,
      // Not a secret by its variable's name: kept as it is.
      "fetch https://params.example/v28 done",
    ]);
    const served = await t.app.inject({
      url: `/api/instances/${id}/logs`,
      headers: { authorization: `Bearer ${testAdminToken}` },
    });
    expect(served.statusCode).toBe(200);
    expect(served.json()).toMatchObject({
      instanceId: id,
      lines: [
        { stream: "daemon", at: 1_000, text: `vast key ${redactionMarker}` },
        { stream: "agent", at: 1_001 },
        { stream: "daemon" },
        { stream: "agent" },
      ],
    });
    expect(served.body).not.toContain(vastKey);
    expect(served.body).not.toContain(envSecret);
  });

  it.each([
    ["lines", Array.from({ length: logTailDefaults.maxShipLines + 1 }, (_, n) => `line ${n}`)],
    ["line", ["x".repeat(logTailDefaults.maxLineChars + 1)]],
    ["bytes", Array.from({ length: 30 }, () => "é".repeat(logTailDefaults.maxLineChars / 2))],
  ] as const)(
    "refuses a shipment beyond its %s bound with 413 FLEET_LOG_TAIL_TOO_LARGE, keeping nothing",
    async (bound, texts) => {
      const { t, id, token } = await start();
      const refused = await post(t, id, "logs", token, shipment([...texts]));
      expect(refused.statusCode).toBe(413);
      expect(refused.json()).toMatchObject({
        ok: false,
        error: "FLEET_LOG_TAIL_TOO_LARGE",
        bound,
        hint: expect.stringContaining(`${logTailDefaults.maxShipLines} lines`),
      });
      expect(await t.manager.store.logTail(id)).toEqual([]);
      // The handler itself throws the typed error.
      await expect(t.manager.agent.logs(id, shipment([...texts]))).rejects.toBeInstanceOf(
        FleetLogTailTooLargeError,
      );
    },
  );

  it("accepts the largest shipment an agent makes, however its text escapes", async () => {
    const { t, id, token } = await start();
    // Full streams of the longest lines, of characters JSON escapes (quotes, backslashes, controls).
    const tail = createLogTail();
    const nasty = '"\\\u0001'.repeat(logTailDefaults.maxLineChars / 4);
    for (let n = 0; n < logTailDefaults.maxLinesPerStream; n++) {
      tail.line("daemon", `${n} ${nasty}`);
      tail.line("agent", `${n} ${"é".repeat(logTailDefaults.maxLineChars)}`);
    }
    const answers: number[] = [];
    const shipper = createLogShipper({
      tail,
      send: async (body) => {
        answers.push((await post(t, id, "logs", token, body)).statusCode);
      },
    });
    expect(await shipper.ship("failure")).toBe("sent");
    expect(answers).toEqual([200]);
    expect((await t.manager.store.logTail(id)).length).toBeGreaterThan(0);
  });

  it("refuses a body over the endpoint's size limit, a malformed one and another instance's token", async () => {
    const { t, id, token } = await start();
    const huge = await post(t, id, "logs", token, shipment(["y".repeat(70 * 1024)]));
    expect(huge.statusCode).toBe(413);
    const malformed = await post(t, id, "logs", token, { reason: "because", lines: "no" });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toMatchObject({ error: "INVALID_BODY" });
    const other = await t.manager.deploy(1003);
    const forbidden = await post(t, other.id, "logs", token, shipment(["hello"]));
    expect(forbidden.statusCode).toBe(403);
    expect(await t.manager.store.logTail(other.id)).toEqual([]);
  });

  it("keeps only the newest lines of an instance across shipments", async () => {
    const { t, id, token } = await start();
    const total = logTailDefaults.storeKeepLines + 150;
    for (let from = 0; from < total; from += 100) {
      t.clock.advance(60_000); // past the rate bound
      const texts = Array.from({ length: Math.min(100, total - from) }, (_, k) => `line ${from + k}`);
      expect((await post(t, id, "logs", token, shipment(texts, "phase"))).statusCode).toBe(200);
    }
    const tail = await t.manager.store.logTail(id);
    expect(tail).toHaveLength(logTailDefaults.storeKeepLines);
    expect(tail[0]?.text).toBe(`line ${total - logTailDefaults.storeKeepLines}`);
    expect(tail.at(-1)?.text).toBe(`line ${total - 1}`);
  });

  it("accepts at most 12 shipments of an instance in a minute, answering 429 beyond and keeping nothing", async () => {
    const { t, id, token } = await start();
    for (let n = 0; n < 12; n++) {
      expect((await post(t, id, "logs", token, shipment([`line ${n}`], "phase"))).statusCode).toBe(200);
    }
    const refused = await post(t, id, "logs", token, shipment(["one too many"], "failure"));
    expect(refused.statusCode).toBe(429);
    expect(refused.json()).toMatchObject({ error: "LOG_SHIPMENTS_TOO_FREQUENT" });
    expect(refused.headers["retry-after"]).toBe("60");
    // Another instance is not held back, and a minute later this one ships again.
    const other = await t.manager.deploy(1003);
    expect((await post(t, other.id, "logs", t.tokenOf(other.id), shipment(["hi"]))).statusCode).toBe(200);
    t.clock.advance(60_000);
    expect((await post(t, id, "logs", token, shipment(["later"]))).statusCode).toBe(200);
    expect((await t.manager.store.logTail(id)).map((l) => l.text)).not.toContain("one too many");
  });

  it("asks the agent for its tail in the next heartbeat's answer, once, when an operator requests it", async () => {
    const { t, id, token } = await start();
    await post(t, id, "register", token, { agentVersion: "test" });
    expect((await post(t, id, "heartbeat", token, {})).json()).toEqual({ ok: true, sendLogs: false });
    const unauthenticated = await t.app.inject({ method: "POST", url: `/api/instances/${id}/logs/request` });
    expect(unauthenticated.statusCode).toBe(401);
    const asked = await t.app.inject({
      method: "POST",
      url: `/api/instances/${id}/logs/request`,
      headers: { authorization: `Bearer ${testAdminToken}` },
    });
    expect(asked.json()).toEqual({ ok: true, instanceId: id });
    expect((await post(t, id, "heartbeat", token, {})).json()).toEqual({ ok: true, sendLogs: true });
    expect((await post(t, id, "heartbeat", token, {})).json()).toEqual({ ok: true, sendLogs: false });
  });

  it("serves the tail under the other reads' rules: the admin token beyond loopback, 404 for an unknown id", async () => {
    const { t, id } = await start(true);
    expect((await t.app.inject({ url: `/api/instances/${id}/logs` })).statusCode).toBe(401);
    const auth = { authorization: `Bearer ${testAdminToken}` };
    expect((await t.app.inject({ url: `/api/instances/${id}/logs`, headers: auth })).json()).toEqual({
      instanceId: id,
      lines: [],
    });
    const missing = await t.app.inject({ url: "/api/instances/i-00000000/logs", headers: auth });
    expect(missing.statusCode).toBe(404);
  });
});
