import { describe, expect, it } from "vitest";
import { resolveVastOptions } from "./options.js";
import { startFakeVastServer } from "./testing/fake-vast-server.js";

// Options are typed `x?: T | undefined`: passing `x: undefined` must mean "not given".

describe("an option passed as undefined keeps its default", () => {
  it("baseUrl: undefined still reads VAST_URL", () => {
    const resolved = resolveVastOptions({ baseUrl: undefined, env: { VAST_URL: "http://127.0.0.1:9" } });
    expect(resolved.baseUrl).toBe("http://127.0.0.1:9");
  });

  it("the fake server's rateLimits: { listInstances: undefined } keeps that endpoint's interval", async () => {
    const server = await startFakeVastServer({ rateLimits: { listInstances: undefined }, now: () => 1_000 });
    try {
      const list = () =>
        fetch(`${server.url}/api/v1/instances/`, { headers: { authorization: `Bearer ${server.apiKey}` } });
      expect((await list()).status).toBe(200);
      // Same instant: the default 1 s interval answers 429, as Vast does.
      const second = await list();
      expect(second.status).toBe(429);
      expect(await second.text()).toMatch(/threshold=1\.0/);
    } finally {
      await server.close();
    }
  });
});
