import { afterEach, describe, expect, it } from "vitest";
import { type ListeningFleetServer, startFleetServer } from "../server/fleet-server.js";
import { startTestFleet, type TestFleet } from "../test-support/test-fleet.js";
import { isLoopbackUrl, resolveRentingManagerUrl, verifyManagerUrl } from "./manager-url.js";

let fleet: TestFleet | undefined;
const servers: ListeningFleetServer[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await server.close();
  await fleet?.close();
  fleet = undefined;
});

const creates = (t: TestFleet) => t.fake.requestsTo(/^\/api\/v0\/asks\/\d+\/$/, "PUT");

describe("the manager URL renting hands agents", () => {
  it("treats loopback and listen addresses as unreachable, and public ones as addresses", () => {
    for (const url of [
      "http://127.0.0.1:7320",
      "http://127.8.9.10:7320",
      "http://localhost:7320",
      "http://[::1]:7320",
      "http://0.0.0.0:7320",
      "http://[::]:7320",
    ]) {
      expect(isLoopbackUrl(url), url).toBe(true);
    }
    for (const url of ["http://203.0.113.5:7320", "https://fleet.example.com", "http://10.0.0.2:7320"]) {
      expect(isLoopbackUrl(url), url).toBe(false);
    }
  });

  it("refuses to rent without a manager URL, writing no row and sending no create", async () => {
    fleet = await startTestFleet({ config: { managerUrl: undefined } });
    await expect(fleet.manager.deploy(1002)).rejects.toMatchObject({
      code: "FLEET_MANAGER_URL",
      hint: expect.stringContaining("--manager-url https://"),
    });
    expect(await fleet.manager.store.list()).toEqual([]);
    expect(creates(fleet)).toHaveLength(0);
  });

  it("refuses a loopback manager URL unless the test/dev override is on", async () => {
    fleet = await startTestFleet({
      config: { managerUrl: "http://127.0.0.1:7320", allowLoopbackManagerUrl: false },
    });
    await expect(fleet.manager.deploy(1002)).rejects.toMatchObject({
      code: "FLEET_MANAGER_URL",
      message: expect.stringContaining("agents on rented machines can never reach it"),
      hint: expect.stringContaining("--allow-loopback-manager-url"),
    });
    expect(await fleet.manager.store.list()).toEqual([]);
    expect(creates(fleet)).toHaveLength(0);
  });

  it("accepts a stored URL only when this manager answers its health check there", async () => {
    fleet = await startTestFleet();
    const ours = await startFleetServer({ manager: fleet.manager, listen: "127.0.0.1:0" });
    const other = await startFleetServer({ manager: fleet.manager, listen: "127.0.0.1:0" });
    servers.push(ours, other);
    expect(ours.nonce).not.toBe(other.nonce);

    await expect(verifyManagerUrl({ url: ours.url, expectedNonce: ours.nonce })).resolves.toBeUndefined();
    // A stored URL that now reaches another manager.
    await expect(verifyManagerUrl({ url: other.url, expectedNonce: ours.nonce })).rejects.toMatchObject({
      code: "FLEET_MANAGER_URL",
      message: expect.stringContaining("another manager"),
      hint: expect.stringContaining("--manager-url"),
    });
    // No serving manager recorded itself: nothing to compare with.
    await expect(verifyManagerUrl({ url: ours.url, expectedNonce: undefined })).rejects.toMatchObject({
      code: "FLEET_MANAGER_URL",
    });
    // A stored URL on a dead port.
    const deadUrl = other.url;
    await other.close();
    servers.splice(servers.indexOf(other), 1);
    await expect(verifyManagerUrl({ url: deadUrl, expectedNonce: other.nonce })).rejects.toMatchObject({
      code: "FLEET_MANAGER_URL",
      message: expect.stringContaining("did not answer its health check"),
    });

    // Through the renting resolution: loopback needs the override even when it answers.
    await expect(
      resolveRentingManagerUrl({ given: undefined, stored: ours.url, expectedNonce: ours.nonce }),
    ).rejects.toMatchObject({ code: "FLEET_MANAGER_URL" });
    await expect(
      resolveRentingManagerUrl({
        given: undefined,
        stored: ours.url,
        expectedNonce: ours.nonce,
        allowLoopback: true,
      }),
    ).resolves.toBe(ours.url);
  });

  it("uses --manager-url as given, without a health check (the manager may not reach its own public address)", async () => {
    let fetched = 0;
    const url = await resolveRentingManagerUrl({
      given: "https://fleet.example.com",
      stored: "http://203.0.113.9:7320",
      expectedNonce: undefined,
      fetchHealth: async () => {
        fetched++;
        throw new Error("not called");
      },
    });
    expect(url).toBe("https://fleet.example.com");
    expect(fetched).toBe(0);
    await expect(
      resolveRentingManagerUrl({ given: undefined, stored: undefined, expectedNonce: undefined }),
    ).rejects.toMatchObject({ code: "FLEET_MANAGER_URL", hint: expect.stringContaining("--manager-url") });
  });
});
