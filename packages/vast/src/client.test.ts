import { MiB } from "@cuzkit/core";
import { afterEach, describe, expect, it } from "vitest";
import { createVastClient } from "./client.js";
import {
  VastAbortedError,
  VastAuthError,
  VastBadRequestError,
  VastDuplicateRentError,
  VastEndpointGoneError,
  VastInsufficientCreditError,
  VastMalformedResponseError,
  VastMissingApiKeyError,
  VastNetworkError,
  VastNotFoundError,
  VastOfferGoneError,
  VastRateLimitedError,
  VastServerError,
  VastTimeoutError,
  VastUnsuccessfulError,
} from "./errors.js";
import { collect, type Harness, startHarness } from "./test-support.js";

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.server.close();
  harness = undefined;
});
const start = async (...args: Parameters<typeof startHarness>) => {
  harness = await startHarness(...args);
  return harness;
};

describe("searchOffers", () => {
  it("posts the typed query to /bundles/ with the key only in the Bearer header", async () => {
    const { client, server } = await start();
    const offers = await client.searchOffers({
      filters: { gpuName: "RTX 4090", numGpus: { gte: 2 }, cpuRamBytes: { gte: "200GiB" } },
      order: [["dphTotal", "asc"]],
      limit: 5,
    });
    expect(offers.map((o) => o.id)).toEqual([1001]); // 1005 is unverified, 1004 has one GPU
    const [request] = server.requestsTo("/api/v0/bundles/", "POST");
    expect(request!.headers.authorization).toBe(`Bearer ${server.apiKey}`);
    expect(request!.url).toBe("/api/v0/bundles/");
    expect(request!.url).not.toContain(server.apiKey);
    expect(request!.body).toMatchObject({
      gpu_name: { eq: "RTX 4090" },
      num_gpus: { gte: 2 },
      cpu_ram: { gte: 204800 }, // 200 GiB in MiB
      verified: { eq: true },
      rentable: { eq: true },
      rented: { eq: false },
      order: [["dph_total", "asc"]],
      limit: 5,
      type: "on-demand",
    });
  });

  it("converts both ways with real values: 24564 and 81559 MiB GPUs, a MemTotal-shaped cpu_ram", async () => {
    const { client, server } = await start();
    server.offers.push({
      ...server.offers.find((o) => o.id === 1006),
      id: 1007,
      rented: false,
      cpu_ram: 256_997, // MemTotal 263164908 kB / 1024
    });
    const found = await client.searchOffers({
      filters: { gpuRamBytes: { gte: "80GiB" }, cpuRamBytes: { gte: "250GiB" } },
    });
    expect(found.map((o) => o.id)).toEqual([1007]); // the H100 passes 80GiB as its class; 1003's A40 does not
    expect(found[0]).toMatchObject({ gpuRamBytes: 81_559 * MiB, cpuRamBytes: 256_997 * MiB });
    const sent = server.requestsTo("/api/v0/bundles/")[0]!.body as Record<string, { gte: number }>;
    expect(sent.cpu_ram).toEqual({ gte: 256_000 }); // 250 GiB in MiB
    expect(sent.gpu_ram!.gte).toBeLessThanOrEqual(81_559);
    const rtx = await client.searchOffers({
      filters: { gpuName: "RTX 4090", gpuRamBytes: { gte: "24GiB" } },
    });
    expect(rtx.map((o) => o.gpuRamBytes)).toContain(24_564 * MiB);
  });

  it("normalises units and skips records missing core fields", async () => {
    const { client, lines } = await start({
      offers: [
        {
          id: 1,
          gpu_name: "A40",
          num_gpus: 1,
          gpu_ram: 46068,
          cpu_ram: 500_000,
          dph_total: 0.5,
          disk_space: 100,
        },
        { id: 2, gpu_name: "A40" },
      ],
    });
    const offers = await client.searchOffers({
      defaults: { verified: "any", rentable: "any", rented: "any" },
    });
    expect(offers).toHaveLength(1);
    expect(offers[0]).toMatchObject({
      gpuRamBytes: 46_068 * MiB,
      cpuRamBytes: 500_000 * MiB,
      diskSpaceBytes: 100e9,
    });
    expect(lines.some((l) => l.startsWith("warn vast search skipped") && l.includes("skipped=1"))).toBe(true);
  });

  it("rejects an envelope of the wrong shape as malformed, not a crash", async () => {
    const { client, server } = await start();
    server.failNext({ path: "/api/v0/bundles/", status: 200, body: { results: [] } });
    await expect(client.searchOffers()).rejects.toBeInstanceOf(VastMalformedResponseError);
    server.failNext({ path: "/api/v0/bundles/", status: 200, body: "<html>maintenance</html>" });
    await expect(client.searchOffers()).rejects.toMatchObject({
      code: "VAST_MALFORMED_RESPONSE",
      status: 200,
    });
  });

  it("classifies a bad key on /bundles/ (a 404) as an auth error", async () => {
    const { server } = await start();
    const client = createVastClient({
      apiKey: "wrong-key-123456",
      baseUrl: server.url,
      retry: false,
      rateLimit: false,
    });
    const error = await client.searchOffers().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VastAuthError);
    expect(error).toMatchObject({
      status: 404,
      endpoint: "POST /api/v0/bundles/",
      serverMessage: "Invalid user key",
    });
  });
});

describe("missing key", () => {
  it("is raised at the first call, with a hint, and not at creation", async () => {
    const { server } = await start();
    const client = createVastClient({ baseUrl: server.url, env: {}, homeDir: "/nonexistent-home-for-tests" });
    const error = await client.showInstance(1).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VastMissingApiKeyError);
    expect((error as VastMissingApiKeyError).hint).toMatch(/VAST_API_KEY/);
    expect(server.requests).toHaveLength(0);
  });

  it("reads VAST_API_KEY and VAST_URL from the injected environment", async () => {
    const { server } = await start();
    const client = createVastClient({
      env: { VAST_API_KEY: server.apiKey, VAST_URL: server.url },
      rateLimit: false,
    });
    expect(client.baseUrl).toBe(server.url);
    await client.getCurrentUser();
    expect(client.apiKeySource()).toBe("env");
  });
});

describe("instances", () => {
  it("creates, shows, waits for running, labels, stops, starts and destroys", async () => {
    const { client, server, clock } = await start();
    const created = await client.createInstance(1001, {
      image: "ghcr.io/org/prover:1",
      label: "bench-a",
      diskGb: 100,
    });
    expect(created).toMatchObject({
      label: "bench-a",
      offerId: 1001,
      interruptible: false,
      recoveredByLabel: false,
    });
    expect(created.instanceApiKey).toBe(`inst-key-${created.instanceId}`);
    expect(JSON.stringify(created)).not.toContain("inst-key"); // the per-instance key is not printed
    const ready = await client.waitForStatus(created.instanceId, "running", { pollIntervalMs: 5000 });
    expect(ready.actualStatus).toBe("running");
    expect(clock.sleeps).toEqual([5000, 5000]); // null, loading, running
    await client.labelInstance(created.instanceId, "bench-a-kept");
    await client.stopInstance(created.instanceId);
    expect((await client.showInstance(created.instanceId))?.actualStatus).toBe("stopped");
    await client.startInstance(created.instanceId);
    expect(server.instances.get(created.instanceId)).toMatchObject({
      label: "bench-a-kept",
      actual_status: "running",
    });
    await client.rebootInstance(created.instanceId);
    expect(await client.destroyInstance(created.instanceId)).toEqual({ alreadyGone: false });
    expect(await client.showInstance(created.instanceId)).toBeNull();
    expect(await client.destroyInstance(created.instanceId)).toEqual({ alreadyGone: true });
  });

  it("sends a bid only as price, marking the rental interruptible", async () => {
    const { client, server } = await start();
    const created = await client.createInstance(1002, { image: "img", bidPricePerHour: 0.3 });
    expect(created.interruptible).toBe(true);
    expect(created.label).toMatch(/^cuzkit-/);
    expect(server.requestsTo("/api/v0/asks/1002/")[0]!.body).toMatchObject({
      price: 0.3,
      label: created.label,
    });
  });

  it("treats a non-object instances payload as gone", async () => {
    const { client, server } = await start();
    server.failNext({ path: "/api/v0/instances/5/", status: 200, body: { instances: [] } });
    expect(await client.showInstance(5)).toBeNull();
    server.failNext({ path: "/api/v0/instances/5/", status: 200, body: { nothing: 1 } });
    await expect(client.showInstance(5)).rejects.toBeInstanceOf(VastMalformedResponseError);
  });

  it("pages the v1 list with after_token/next_token and filters by label", async () => {
    const { client, server } = await start();
    for (let i = 0; i < 7; i++) server.addInstance({ label: i % 2 === 0 ? "even" : "odd" });
    const all = await collect(client.listInstances({ pageSize: 3 }));
    expect(all).toHaveLength(7);
    const lists = server.requestsTo("/api/v1/instances/", "GET");
    expect(lists).toHaveLength(3);
    expect(lists[0]!.query.after_token).toBeUndefined();
    expect(lists[1]!.query.after_token).toEqual(expect.any(String));
    expect(JSON.parse(lists[0]!.query.order_by!)).toEqual([{ col: "id", dir: "asc" }]);
    expect(lists[0]!.query.limit).toBe("3");
    const even = await collect(client.listInstances({ label: "even" }));
    expect(even.map((i) => i.label)).toEqual(["even", "even", "even", "even"]);
    expect(JSON.parse(server.requests.at(-1)!.query.select_filters!)).toEqual({ label: { in: ["even"] } });
  });

  it("stops paging when the server repeats a token", async () => {
    const { client, server } = await start();
    server.addInstance();
    server.failNext({
      path: "/api/v1/instances/",
      times: 2,
      status: 200,
      body: { instances: [], next_token: "same" },
    });
    await expect(collect(client.listInstances())).rejects.toBeInstanceOf(VastMalformedResponseError);
  });

  it("fails waitForStatus at once on exited, with status_msg", async () => {
    const { client, server } = await start();
    const id = server.addInstance();
    server.setInstanceStatus(id, "exited", "Error response from daemon: OCI runtime create failed");
    const error = await client.waitForStatus(id, "running").catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "VAST_INSTANCE_FAILED", actualStatus: "exited" });
    expect((error as Error).message).toContain("OCI runtime create failed");
  });

  it("times out waitForStatus on the injected clock", async () => {
    const { client, server, clock } = await start();
    const id = server.addInstance();
    server.setInstanceStatus(id, "loading", "pulling layer 3/9");
    const error = await client
      .waitForStatus(id, "running", { timeoutMs: 60_000, pollIntervalMs: 10_000 })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "VAST_WAIT_TIMEOUT", serverMessage: "pulling layer 3/9" });
    expect(clock.sleeps).toEqual([10_000, 10_000, 10_000, 10_000, 10_000, 10_000]);
  });

  it("fails waitForStatus when the instance vanishes", async () => {
    const { client } = await start();
    await expect(client.waitForStatus(424242, "running")).rejects.toMatchObject({
      code: "VAST_INSTANCE_FAILED",
      actualStatus: null,
    });
  });

  it("maps a 410 on a retired endpoint to VastEndpointGoneError", async () => {
    const { client, server } = await start();
    server.failNext({
      path: "/api/v1/instances/",
      status: 410,
      body: { success: false, error: "deprecated_endpoint", msg: "/api/v1/instances/ is deprecated." },
    });
    await expect(collect(client.listInstances())).rejects.toBeInstanceOf(VastEndpointGoneError);
  });
});

describe("create errors", () => {
  it("reports a gone offer without retrying", async () => {
    const { client, server } = await start();
    const error = await client
      .createInstance(999, { image: "img", recheckOffer: false })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VastOfferGoneError);
    expect(error).toMatchObject({ serverError: "no_such_ask", retryable: false });
    expect(server.requestsTo("/api/v0/asks/999/")).toHaveLength(1);
  });

  it("re-checks the offer right before the create and rents nothing when it was rented meanwhile", async () => {
    const { client, server } = await start();
    server.offers.find((o) => o.id === 1001)!.rented = true; // someone else got it
    const error = await client.createInstance(1001, { image: "img" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VastOfferGoneError);
    expect(error).toMatchObject({ serverError: "not_rentable" });
    expect((error as Error).message).toContain("nothing was rented");
    const [check] = server.requestsTo("/api/v0/bundles/");
    expect(check!.body).toMatchObject({ id: { eq: 1001 }, rentable: { eq: true }, rented: { eq: false } });
    expect(check!.body).not.toHaveProperty("verified"); // an unverified offer can be rented too
    expect(server.requestsTo("/api/v0/asks/1001/")).toHaveLength(0);
    expect(server.instances.size).toBe(0);
  });

  it("lets a bid re-check an offer that is rented (a bid may outbid the tenant)", async () => {
    const { client, server } = await start();
    server.offers.find((o) => o.id === 1001)!.rented = true;
    const created = await client.createInstance(1001, { image: "img", bidPricePerHour: 0.5 });
    expect(created.interruptible).toBe(true);
    expect(server.requestsTo("/api/v0/bundles/")[0]!.body).not.toHaveProperty("rented");
  });

  it("maps 411 to insufficient credit", async () => {
    const { client } = await start({ balance: 0 });
    await expect(client.createInstance(1001, { image: "img" })).rejects.toBeInstanceOf(
      VastInsufficientCreditError,
    );
  });

  it("maps 400 invalid_args to a bad request", async () => {
    const { client, server } = await start();
    server.failNext({
      path: "/api/v0/asks/1001/",
      status: 400,
      body: { success: false, error: "invalid_price", msg: "bid too low" },
    });
    await expect(client.createInstance(1001, { image: "img" })).rejects.toBeInstanceOf(VastBadRequestError);
  });

  it("retries a create after a 429 (it was not executed), waiting the threshold the body names, and rents once", async () => {
    const { client, server, clock, lines } = await start();
    server.failNext({
      path: "/api/v0/asks/1001/",
      status: 429,
      body: "API requests too frequent endpoint threshold=4.5",
    });
    const created = await client.createInstance(1001, { image: "img" });
    expect(server.requestsTo("/api/v0/asks/1001/")).toHaveLength(2);
    expect(server.instances.size).toBe(1);
    expect(created.recoveredByLabel).toBe(false);
    expect(clock.sleeps).toEqual([4500]); // the threshold, above the 1000 ms first backoff
    expect(lines.find((l) => l.startsWith("warn vast call failed, retrying"))).toMatch(
      /endpoint=PUT \/api\/v0\/asks\/1001\/ code=VAST_RATE_LIMITED status=429 attempt=1 of=5 delayMs=4500 thresholdMs=4500/,
    );
  });

  it("gives up on a create that stays rate-limited with the 429, renting nothing", async () => {
    const { client, server } = await start({}, { retry: { retries: 2 } });
    server.failNext({
      path: "/api/v0/asks/1001/",
      times: 3,
      status: 429,
      body: "too frequent threshold=4.5",
    });
    const error = await client.createInstance(1001, { image: "img" }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VastRateLimitedError);
    expect(error).toMatchObject({ thresholdMs: 4500 });
    expect(server.requestsTo("/api/v0/asks/1001/")).toHaveLength(3);
    expect(server.instances.size).toBe(0);
  });

  it("does not retry a create after a 502: it may have happened (label recovery instead)", async () => {
    const { client, server } = await start({}, { createRecovery: { attempts: 1, delayMs: 0 } });
    server.failNext({ path: "/api/v0/asks/1001/", status: 502, body: "bad gateway" });
    await expect(client.createInstance(1001, { image: "img" })).rejects.toMatchObject({
      code: "VAST_CREATE_UNCERTAIN",
    });
    expect(server.requestsTo("/api/v0/asks/1001/")).toHaveLength(1);
  });

  it("resolves an ambiguous create (answer lost after the rental) by label, without replaying", async () => {
    const { client, server, clock, lines } = await start();
    server.failNext({ path: "/api/v0/asks/1001/", mode: "drop-after" });
    const created = await client.createInstance(1001, { image: "img", label: "bench-lost-answer" });
    expect(created.recoveredByLabel).toBe(true);
    expect(server.instances.get(created.instanceId)?.label).toBe("bench-lost-answer");
    expect(server.instances.size).toBe(1); // rented once
    expect(server.requestsTo("/api/v0/asks/1001/")).toHaveLength(1);
    expect(clock.sleeps).toEqual([2000]); // one look-up after the default delay
    expect(lines).toContain(
      "info vast create: waiting before looking the instance up by label label=bench-lost-answer attempt=1 of=3 waitMs=2000",
    );
  });

  it("resolves a create that answered 502 after renting", async () => {
    const { client, server } = await start();
    server.failNext({ path: "/api/v0/asks/1001/", mode: "drop-after" });
    server.failNext({ path: "/api/v1/instances/", status: 503, body: "busy" }); // the look-up itself is retried
    const created = await client.createInstance(1001, { image: "img" });
    expect(created.recoveredByLabel).toBe(true);
  });

  it("says the create may or may not have happened when the label is not found", async () => {
    const { client, server } = await start();
    server.failNext({ path: "/api/v0/asks/1001/", status: 502, body: "<html>Bad Gateway</html>" });
    const error = await client
      .createInstance(1001, { image: "img", label: "bench-unknown" })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "VAST_CREATE_UNCERTAIN", label: "bench-unknown" });
    expect((error as Error).message).toMatch(/may or may not/);
    expect((error as { hint: string }).hint).toContain(`listInstances({ label: "bench-unknown" })`);
    expect(server.requestsTo("/api/v0/asks/1001/")).toHaveLength(1);
    expect(server.requestsTo("/api/v1/instances/")).toHaveLength(4); // the uniqueness check, then three look-ups
    expect(server.instances.size).toBe(0);
  });

  it("treats a connection dropped before handling as ambiguous too", async () => {
    const { client, server } = await start({}, { createRecovery: { attempts: 1, delayMs: 0 } });
    server.failNext({ path: "/api/v0/asks/1001/", mode: "drop-before" });
    await expect(client.createInstance(1001, { image: "img" })).rejects.toMatchObject({
      code: "VAST_CREATE_UNCERTAIN",
    });
    expect(server.requestsTo("/api/v0/asks/1001/")).toHaveLength(1);
  });

  it("refuses a caller's label that is already in use, since recovery would find the old instance", async () => {
    const { client, server } = await start();
    const old = server.addInstance({ label: "bench-dup" });
    const error = await client
      .createInstance(1001, { image: "img", label: "bench-dup" })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "INVALID_INPUT" });
    expect((error as Error).message).toContain(`instance ${old}`);
    expect(server.requestsTo("/api/v0/asks/1001/")).toHaveLength(0);
  });

  it("rents once when two creates of one offer run concurrently (Vast.ai would accept both)", async () => {
    const { client, server } = await start();
    const results = await Promise.allSettled([
      client.createInstance(1001, { image: "img" }),
      client.createInstance(1001, { image: "img" }),
    ]);
    expect(results.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
    const refused = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect(refused.reason).toBeInstanceOf(VastDuplicateRentError);
    expect(refused.reason).toMatchObject({ code: "VAST_DUPLICATE_RENT", offerId: 1001 });
    expect(server.requestsTo("/api/v0/asks/1001/")).toHaveLength(1);
    expect(server.instances.size).toBe(1);
  });

  it("refuses a second create of an offer it rented until that instance is destroyed", async () => {
    const { client, server } = await start();
    const first = await client.createInstance(1001, { image: "img", recheckOffer: false });
    const error = await client
      .createInstance(1001, { image: "img", recheckOffer: false })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "VAST_DUPLICATE_RENT", instanceId: first.instanceId });
    expect((error as { hint: string }).hint).toContain(`destroyInstance(${first.instanceId})`);
    await client.destroyInstance(first.instanceId);
    await client.createInstance(1001, { image: "img", recheckOffer: false });
    expect(server.requestsTo("/api/v0/asks/1001/")).toHaveLength(2);
  });

  it("lets a create be tried again after a definite refusal", async () => {
    const { client, server } = await start();
    server.failNext({ path: "/api/v0/asks/1001/", status: 400, body: { error: "invalid_args", msg: "no" } });
    await expect(client.createInstance(1001, { image: "img" })).rejects.toBeInstanceOf(VastBadRequestError);
    await client.createInstance(1001, { image: "img" });
    expect(server.instances.size).toBe(1);
  });
});

describe("retries", () => {
  it("retries 429 and 5xx on reads with exponential backoff on the injected sleep", async () => {
    const { client, server, clock, lines } = await start();
    server.failNext({
      path: "/api/v0/users/current/",
      status: 429,
      body: "API requests too frequent endpoint threshold=2.0",
    });
    server.failNext({ path: "/api/v0/users/current/", status: 502, body: "<html>Bad Gateway</html>" });
    server.failNext({ path: "/api/v0/users/current/", status: 503, body: { msg: "down" } });
    const user = await client.getCurrentUser();
    expect(user.id).toBe(42);
    expect(server.requestsTo("/api/v0/users/current/")).toHaveLength(4);
    expect(clock.sleeps).toEqual([2000, 2000, 4000]); // the 429's threshold=2.0 beats the 1000 ms backoff
    expect(lines.filter((l) => l.startsWith("warn vast call failed, retrying"))).toHaveLength(3);
  });

  it("gives up after the configured retries with the last error", async () => {
    const { client, server, clock } = await start({}, { retry: { retries: 2, minDelayMs: 100, factor: 3 } });
    server.failNext({ path: "/api/v0/users/current/", times: 5, status: 504, body: "timeout" });
    await expect(client.getCurrentUser()).rejects.toMatchObject({ code: "VAST_SERVER_ERROR", status: 504 });
    expect(server.requestsTo("/api/v0/users/current/")).toHaveLength(3);
    expect(clock.sleeps).toEqual([100, 300]);
  });

  it("does not retry a 500", async () => {
    const { client, server } = await start();
    server.failNext({ path: "/api/v0/users/current/", status: 500, body: { msg: "bug" } });
    await expect(client.getCurrentUser()).rejects.toBeInstanceOf(VastServerError);
    expect(server.requestsTo("/api/v0/users/current/")).toHaveLength(1);
  });

  it("retries network errors on reads", async () => {
    const { client, server, clock } = await start();
    server.failNext({ path: "/api/v0/ssh/", mode: "drop-before" });
    expect(await client.listSshKeys()).toEqual([]);
    expect(clock.sleeps).toEqual([1000]);
  });

  it("retries idempotent destroy, and a destroy whose answer was lost ends as alreadyGone", async () => {
    const { client, server } = await start();
    const id = server.addInstance();
    server.failNext({ path: `/api/v0/instances/${id}/`, method: "DELETE", mode: "drop-after" });
    expect(await client.destroyInstance(id)).toEqual({ alreadyGone: true });
    expect(server.requestsTo(`/api/v0/instances/${id}/`, "DELETE")).toHaveLength(2);
  });

  it("does not take a bare 404 page (wrong base URL) for an already destroyed instance", async () => {
    const { client, server } = await start();
    const id = server.addInstance();
    server.failNext({
      path: `/api/v0/instances/${id}/`,
      method: "DELETE",
      status: 404,
      body: "<html>Not Found</html>",
    });
    await expect(client.destroyInstance(id)).rejects.toMatchObject({ code: "VAST_NOT_FOUND" });
    server.failNext({ path: `/api/v0/instances/${id}/`, method: "GET", status: 404, body: "Not Found" });
    await expect(client.showInstance(id)).rejects.toMatchObject({ code: "VAST_NOT_FOUND" });
  });

  it("takes a per-call timeoutMs", async () => {
    const { client, server } = await start({}, { retry: false });
    server.failNext({ path: "/api/v0/users/current/", mode: "hang" });
    await expect(client.getCurrentUser({ timeoutMs: 50 })).rejects.toMatchObject({
      code: "DEADLINE_EXCEEDED",
      message: expect.stringContaining("within 50 ms"),
    });
  });

  it("does not retry a 200 with success:false", async () => {
    const { client, server } = await start();
    const id = server.addInstance();
    server.failNext({
      path: `/api/v0/instances/${id}/`,
      method: "PUT",
      status: 200,
      body: { success: false, msg: "busy" },
    });
    const error = await client.stopInstance(id).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VastUnsuccessfulError);
    expect(error).toMatchObject({ status: 200, serverMessage: "busy" });
    expect(server.requestsTo(`/api/v0/instances/${id}/`, "PUT")).toHaveLength(1);
  });

  it("does not retry a reboot", async () => {
    const { client, server } = await start();
    const id = server.addInstance();
    server.failNext({ path: `/api/v0/instances/reboot/${id}/`, status: 503 });
    await expect(client.rebootInstance(id)).rejects.toBeInstanceOf(VastServerError);
    expect(server.requestsTo(`/api/v0/instances/reboot/${id}/`)).toHaveLength(1);
  });

  it("runs one attempt when retry is false", async () => {
    const { client, server } = await start({}, { retry: false });
    server.failNext({ path: "/api/v0/users/current/", status: 503 });
    await expect(client.getCurrentUser()).rejects.toBeInstanceOf(VastServerError);
    expect(server.requests).toHaveLength(1);
  });
});

describe("timeouts and cancellation", () => {
  it("times out an attempt that gets no answer", async () => {
    const { client, server } = await start({}, { timeoutMs: 100, retry: false });
    server.failNext({ path: "/api/v0/users/current/", mode: "hang" });
    await expect(client.getCurrentUser()).rejects.toBeInstanceOf(VastTimeoutError);
  });

  it("stops at once when the caller aborts", async () => {
    const { client, server } = await start();
    server.failNext({ path: "/api/v0/users/current/", mode: "hang" });
    const controller = new AbortController();
    const pending = client.getCurrentUser({ signal: controller.signal });
    // Abort while the request hangs at the server (not before it was sent).
    await server.whenRequested("/api/v0/users/current/");
    controller.abort();
    const error = await pending.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VastAbortedError);
    expect(error).toMatchObject({ retryable: false });
  });

  it("reports an aborted create as uncertain, not as a plain abort", async () => {
    const { client, server } = await start();
    server.failNext({ path: "/api/v0/asks/1001/", mode: "hang" });
    const controller = new AbortController();
    const pending = client.createInstance(1001, { image: "img", signal: controller.signal });
    // Abort once the create has reached the server: only then is its outcome unknown.
    await server.whenRequested("/api/v0/asks/1001/", { method: "PUT" });
    controller.abort();
    await expect(pending).rejects.toMatchObject({ code: "VAST_CREATE_UNCERTAIN" });
  });

  it("does not send a create whose signal is already aborted", async () => {
    const { client, server } = await start();
    await expect(
      client.createInstance(1001, { image: "img", signal: AbortSignal.abort() }),
    ).rejects.toBeInstanceOf(VastAbortedError);
    expect(server.requests).toHaveLength(0);
  });

  it("maps a refused connection to a network error", async () => {
    const { server } = await start();
    const url = server.url;
    await server.close();
    const client = createVastClient({ apiKey: "k-12345678", baseUrl: url, retry: false, rateLimit: false });
    await expect(client.getCurrentUser()).rejects.toBeInstanceOf(VastNetworkError);
  });
});

describe("rate limiting", () => {
  it("spaces calls to one endpoint through the client", async () => {
    const { client, server, clock } = await start(
      {},
      { rateLimit: { endpoints: { showInstance: { minIntervalMs: 700 } } } },
    );
    const id = server.addInstance();
    await Promise.all([client.showInstance(id), client.showInstance(id), client.showInstance(id)]);
    expect(clock.sleeps).toEqual([700, 700]);
  });

  it("uses the documented defaults", async () => {
    const { client, server, clock } = await start({}, { rateLimit: {} });
    const id = server.addInstance();
    await client.destroyInstance(id);
    await client.destroyInstance(id);
    expect(clock.sleeps).toEqual([3000]); // destroy's published threshold
  });

  it("paces a script that rents twice and polls so the server's own thresholds never answer 429", async () => {
    const { client, server, lines } = await start({ rateLimits: {} }, { rateLimit: {} });
    const a = await client.createInstance(1001, { image: "img" });
    const b = await client.createInstance(1002, { image: "img" });
    for (let i = 0; i < 3; i++) await client.showInstance(a.instanceId);
    await client.destroyInstance(a.instanceId);
    await client.destroyInstance(b.instanceId);
    expect(lines.some((l) => l.includes("VAST_RATE_LIMITED"))).toBe(false); // no 429 at all
    expect(server.instances.size).toBe(0);
    const creates = server.requestsTo(/^\/api\/v0\/asks\//).map((r) => r.at);
    expect(creates[1]! - creates[0]!).toBeGreaterThanOrEqual(4500);
    expect(lines.some((l) => l.startsWith("debug vast pacing: waiting before the next call"))).toBe(true);
  });

  it("the fake server answers 429 with its threshold when a client does not pace", async () => {
    const { client, server, clock } = await start({ rateLimits: {} });
    const id = server.addInstance();
    await client.showInstance(id);
    await client.showInstance(id); // 429 threshold=2.0, waited out, then answered
    expect(server.requestsTo(`/api/v0/instances/${id}/`, "GET")).toHaveLength(3);
    expect(clock.sleeps).toEqual([2000]);
  });
});

describe("logs", () => {
  it("reports the logs of a gone instance (200 success:false) as not found", async () => {
    const { client } = await start();
    const error = await client.getLogs(4242).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(VastNotFoundError);
    expect(error).toMatchObject({ code: "VAST_NOT_FOUND", status: 200, retryable: false });
  });

  it("requests the logs, then polls result_url without the Authorization header until 200", async () => {
    const { client, server, clock } = await start({ logNotReadyPolls: 3, logText: "proof 1 done\n" });
    const id = server.addInstance();
    const text = await client.getLogs(id, { tail: 200, filter: "proof", pollIntervalMs: 500 });
    expect(text).toBe("proof 1 done\n");
    expect(server.requestsTo(`/api/v0/instances/request_logs/${id}/`)[0]!.body).toEqual({
      tail: "200",
      filter: "proof",
    });
    const polls = server.requestsTo(/^\/s3\/logs\//);
    expect(polls).toHaveLength(4);
    for (const poll of polls) expect(poll.headers.authorization).toBeUndefined();
    expect(clock.sleeps).toEqual([500, 500, 500]);
  });

  it("asks for daemon logs as the string 'true' and tails 1000 by default", async () => {
    const { client, server } = await start({ logNotReadyPolls: 0 });
    const id = server.addInstance();
    await client.getLogs(id, { daemonLogs: true });
    expect(server.requestsTo(`/api/v0/instances/request_logs/${id}/`)[0]!.body).toEqual({
      tail: "1000",
      daemon_logs: "true",
    });
  });

  it("gives up at pollTimeoutMs with a typed error", async () => {
    const { client, server, clock } = await start({ logNotReadyPolls: 1000 });
    const id = server.addInstance();
    const error = await client
      .getLogs(id, { pollTimeoutMs: 3000, pollIntervalMs: 1000 })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "VAST_LOGS_TIMEOUT", retryable: true });
    expect(clock.sleeps).toEqual([1000, 1000, 1000]);
    expect((error as { endpoint: string }).endpoint).not.toContain("Signature"); // presigned query stays out
  });

  it("rejects a logs answer without result_url as malformed", async () => {
    const { client, server } = await start();
    const id = server.addInstance();
    server.failNext({ path: `/api/v0/instances/request_logs/${id}/`, status: 200, body: { success: true } });
    await expect(client.getLogs(id)).rejects.toBeInstanceOf(VastMalformedResponseError);
    server.failNext({
      path: `/api/v0/instances/request_logs/${id}/`,
      status: 200,
      body: { result_url: "https://" },
    });
    await expect(client.getLogs(id)).rejects.toBeInstanceOf(VastMalformedResponseError);
  });
});

describe("ssh keys and user", () => {
  const publicKey = "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIB0bX7p0 me@laptop";

  it("creates, lists and attaches keys", async () => {
    const { client, server } = await start();
    const key = await client.createSshKey(publicKey);
    expect(key).toMatchObject({ id: 1, publicKey });
    expect(await client.listSshKeys()).toEqual([expect.objectContaining({ id: 1, publicKey })]);
    const id = server.addInstance();
    await client.attachSshKey(id, publicKey);
    expect(server.requestsTo(`/api/v0/instances/${id}/ssh/`, "POST")[0]!.body).toEqual({
      ssh_key: publicKey,
    });
  });

  it("refuses a private key and text that is not a public key", async () => {
    const { client, server } = await start();
    await expect(client.createSshKey("-----BEGIN OPENSSH PRIVATE KEY-----\nabc")).rejects.toThrow(
      /PRIVATE key/,
    );
    await expect(client.createSshKey("hello")).rejects.toThrow(/not an OpenSSH public key/);
    expect(server.requests).toHaveLength(0);
  });

  it("rejects a key list that is not a bare array", async () => {
    const { client, server } = await start();
    server.failNext({ path: "/api/v0/ssh/", status: 200, body: { keys: [] } });
    await expect(client.listSshKeys()).rejects.toBeInstanceOf(VastMalformedResponseError);
  });

  it("returns balance and credit and drops the echoed api_key", async () => {
    const { client, server } = await start();
    const user = await client.getCurrentUser();
    expect(user).toMatchObject({ id: 42, email: "operator@example.com", balance: 100, credit: 5 });
    expect(user.raw).not.toHaveProperty("api_key");
    expect(JSON.stringify(user)).not.toContain(server.apiKey);
  });
});
