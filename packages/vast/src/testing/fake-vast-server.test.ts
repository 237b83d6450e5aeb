import { afterEach, describe, expect, it } from "vitest";
import { type FakeVastServer, startFakeVastServer } from "./fake-vast-server.js";

let server: FakeVastServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("startFakeVastServer", () => {
  it("whenRequested resolves on the counted request to a path and method, earlier ones included", async () => {
    server = await startFakeVastServer();
    const fake = server;
    const get = () =>
      fetch(`${fake.url}/api/v0/users/current/`, { headers: { Authorization: `Bearer ${fake.apiKey}` } });
    let second = false;
    const waiting = fake.whenRequested("/api/v0/users/current/", { method: "GET", count: 2 }).then(() => {
      second = true;
    });
    await get();
    await fake.whenRequested(/users\/current/); // the first, already received
    expect(second).toBe(false);
    await expect(
      Promise.race([fake.whenRequested("/api/v0/users/current/", { method: "PUT" }), "no PUT yet"]),
    ).resolves.toBe("no PUT yet");
    await get();
    await waiting;
    expect(second).toBe(true);
  });

  it("answers 410 on the retired v0 instance list", async () => {
    server = await startFakeVastServer();
    const response = await fetch(`${server.url}/api/v0/instances/`, {
      headers: { Authorization: `Bearer ${server.apiKey}` },
    });
    expect(response.status).toBe(410);
    expect(await response.json()).toMatchObject({ error: "deprecated_endpoint" });
  });

  it("serves logs 404 a few times, then 200, and rejects an Authorization header", async () => {
    server = await startFakeVastServer({ logNotReadyPolls: 2 });
    const id = server.addInstance();
    const asked = await fetch(`${server.url}/api/v0/instances/request_logs/${id}/`, {
      method: "PUT",
      headers: { Authorization: `Bearer ${server.apiKey}` },
      body: "{}",
    });
    const { result_url: resultUrl } = (await asked.json()) as { result_url: string };
    expect((await fetch(resultUrl, { headers: { Authorization: `Bearer ${server.apiKey}` } })).status).toBe(
      400,
    );
    expect((await fetch(resultUrl)).status).toBe(404);
    expect((await fetch(resultUrl)).status).toBe(404);
    const ready = await fetch(resultUrl);
    expect(ready.status).toBe(200);
    expect(await ready.text()).toContain("cuzk daemon");
  });

  it("answers 400 to a bad after_token and sends 429 as plain text without Retry-After", async () => {
    server = await startFakeVastServer();
    const auth = { Authorization: `Bearer ${server.apiKey}` };
    expect((await fetch(`${server.url}/api/v1/instances/?after_token=%%%`, { headers: auth })).status).toBe(
      400,
    );
    server.failNext({ path: "/api/v0/ssh/", status: 429, body: "API requests too frequent" });
    const limited = await fetch(`${server.url}/api/v0/ssh/`, { headers: auth });
    expect(limited.status).toBe(429);
    expect(limited.headers.get("retry-after")).toBeNull();
    expect(await limited.text()).toBe("API requests too frequent");
  });

  it("enforces the published per-endpoint thresholds on its own, on the clock it is given", async () => {
    let nowMs = 0;
    server = await startFakeVastServer({ now: () => nowMs });
    const auth = { Authorization: `Bearer ${server.apiKey}` };
    const id = server.addInstance();
    const show = () => fetch(`${server!.url}/api/v0/instances/${id}/?owner=me`, { headers: auth });
    expect((await show()).status).toBe(200);
    nowMs += 1999;
    const limited = await show();
    expect(limited.status).toBe(429);
    expect(await limited.text()).toBe("API requests too frequent endpoint threshold=2.0");
    nowMs += 1;
    expect((await show()).status).toBe(200);
    const create = () =>
      fetch(`${server!.url}/api/v0/asks/1002/`, {
        method: "PUT",
        headers: auth,
        body: JSON.stringify({ image: "img" }),
      });
    expect((await create()).status).toBe(200);
    nowMs += 4000;
    expect(await (await create()).text()).toContain("threshold=4.5");
    expect(server.instances.size).toBe(2); // the 429'd create rented nothing
  });

  it("accepts a second purchase of the same offer, as Vast.ai does", async () => {
    server = await startFakeVastServer({ rateLimits: false });
    const auth = { Authorization: `Bearer ${server.apiKey}` };
    for (let i = 0; i < 2; i++) {
      const response = await fetch(`${server.url}/api/v0/asks/1001/`, {
        method: "PUT",
        headers: auth,
        body: JSON.stringify({ image: "img" }),
      });
      expect(response.status).toBe(200);
    }
    expect(server.instances.size).toBe(2);
  });

  it("serves memory in MiB as the real API does, and filters reliability (records also carry reliability2)", async () => {
    server = await startFakeVastServer();
    const search = async (query: unknown) => {
      const response = await fetch(`${server!.url}/api/v0/bundles/`, {
        method: "POST",
        headers: { Authorization: `Bearer ${server!.apiKey}` },
        body: JSON.stringify(query),
      });
      return ((await response.json()) as { offers: { id: number; gpu_ram: number; reliability2: number }[] })
        .offers;
    };
    const reliable = await search({ reliability: { gte: 0.99 } });
    expect(reliable.map((o) => o.id).sort()).toEqual([1001, 1003, 1006]);
    expect(reliable.find((o) => o.id === 1001)).toMatchObject({ gpu_ram: 24564, reliability2: 0.995 });
    const h100 = await search({ gpu_name: { eq: "H100 SXM" } });
    expect(h100[0]?.gpu_ram).toBe(81559);
  });

  it("answers 200 success:false for the logs of an instance that is gone", async () => {
    server = await startFakeVastServer();
    const response = await fetch(`${server.url}/api/v0/instances/request_logs/999/`, {
      method: "PUT",
      headers: { Authorization: `Bearer ${server.apiKey}` },
      body: "{}",
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ success: false, msg: "Instance not found" });
  });
});
