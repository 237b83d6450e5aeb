import { afterEach, describe, expect, it } from "vitest";
import { type FakeVastServer, startFakeVastServer } from "./fake-vast-server.js";

let server: FakeVastServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe("startFakeVastServer", () => {
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
});
