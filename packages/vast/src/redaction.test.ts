import { inspect } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { createVastClient } from "./client.js";
import { createRedactor } from "./redact.js";
import { type Harness, startHarness } from "./test-support.js";

const key = "sk-live-9c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.server.close();
  harness = undefined;
});

/** Every text form of an error, its cause chain included. */
function textsOf(error: unknown): string[] {
  const texts = [String(error), inspect(error, { depth: 10, showHidden: true }), JSON.stringify(error)];
  let current: unknown = error;
  for (let i = 0; i < 6 && current instanceof Error; i++) {
    texts.push(String(current), current.stack ?? "", JSON.stringify(current), current.message);
    for (const field of ["hint", "serverMessage", "endpoint"] as const) {
      texts.push(String((current as unknown as Record<string, unknown>)[field]));
    }
    current = (current as Error & { cause?: unknown }).cause;
  }
  return texts;
}

function expectNoKey(error: unknown, lines: string[]): void {
  expect(error).toBeInstanceOf(Error);
  for (const text of [...textsOf(error), ...lines]) {
    expect(text).not.toContain(key);
    expect(text).not.toContain(encodeURIComponent(key));
  }
}

describe("the API key never leaks", () => {
  it.each([
    ["401 echo", 401, { error: "auth_error", msg: "Invalid user key {{key}}" }],
    ["404 echo", 404, { success: false, msg: "Invalid user key: {{key}}" }],
    ["429 plain text echo", 429, "API requests too frequent for api_key={{key}}"],
    ["500 echo", 500, { msg: "crash with Authorization: Bearer {{key}}" }],
    ["503 html echo", 503, "<html>upstream {{key}}</html>"],
    ["200 success:false echo", 200, { success: false, msg: "refused {{key}}" }],
    ["200 not json", 200, "garbage {{key}}"],
    ["400 echo", 400, { success: false, error: "invalid_args", msg: "bad key {{key}}" }],
  ])("from a server that echoes it (%s)", async (_name, status, body) => {
    harness = await startHarness({ apiKey: key }, { retry: { retries: 1, minDelayMs: 1 } });
    const { client, server, lines } = harness;
    server.failNext({ path: "/api/v0/users/current/", times: 2, status, body });
    const error = await client.getCurrentUser().catch((e: unknown) => e);
    expectNoKey(error, lines);
    expect(server.requests[0]!.headers.authorization).toBe(`Bearer ${key}`); // it was sent, in the header
  });

  it("from a create that ends uncertain, with its cause chain", async () => {
    harness = await startHarness({ apiKey: key });
    const { client, server, lines } = harness;
    server.failNext({ path: "/api/v0/asks/1001/", status: 502, body: "bad gateway {{key}}" });
    const error = await client.createInstance(1001, { image: "img" }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "VAST_CREATE_UNCERTAIN" });
    expectNoKey(error, lines);
  });

  it("from network errors and timeouts", async () => {
    harness = await startHarness({ apiKey: key }, { timeoutMs: 100, retry: false });
    const { client, server, lines } = harness;
    server.failNext({ path: "/api/v0/users/current/", mode: "hang" });
    expectNoKey(await client.getCurrentUser().catch((e: unknown) => e), lines);
    server.failNext({ path: "/api/v0/users/current/", mode: "drop-before" });
    expectNoKey(await client.getCurrentUser().catch((e: unknown) => e), lines);
  });

  it("from every log line at debug level across a rental", async () => {
    harness = await startHarness({ apiKey: key, logNotReadyPolls: 1 });
    const { client, server, lines } = harness;
    const created = await client.createInstance(1001, { image: "img" });
    await client.waitForStatus(created.instanceId, "running", { pollIntervalMs: 1 });
    await client.getLogs(created.instanceId, { pollIntervalMs: 1 });
    await client.getCurrentUser();
    await client.destroyInstance(created.instanceId);
    expect(lines.length).toBeGreaterThan(10);
    for (const line of lines) expect(line).not.toContain(key);
    for (const request of server.requests) expect(request.url).not.toContain(key);
  });

  it("from a missing-key error (no key to leak, but a hint)", async () => {
    harness = await startHarness({ apiKey: key });
    const client = createVastClient({
      baseUrl: harness.server.url,
      env: {},
      homeDir: "/nonexistent-home-for-tests",
    });
    const error = await client.getCurrentUser().catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "VAST_NO_API_KEY" });
    expectNoKey(error, []);
  });
});

describe("createRedactor", () => {
  it("removes the key, its URL encoding, api_key values and Bearer tokens", () => {
    const redact = createRedactor(() => ["a+b/c=key-123"]);
    expect(redact("x a+b/c=key-123 y")).toBe("x [redacted] y");
    expect(redact(`x ${encodeURIComponent("a+b/c=key-123")} y`)).toBe("x [redacted] y");
    expect(redact("GET /x?api_key=other-secret&y=1")).toBe("GET /x?api_key=[redacted]&y=1");
    expect(redact("Authorization: Bearer other-token")).toBe("Authorization: Bearer [redacted]");
  });
});
