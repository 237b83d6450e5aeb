import { createManualClock } from "@cuzkit/core/testing";
import { describe, expect, it } from "vitest";
import { AbortedError, DaemonUnavailableError } from "./errors.js";
import { resolveClientOptions } from "./options.js";
import { waitUntilReady } from "./ready.js";
import { normalizeStatus } from "./status.js";
import { create as statusFixture } from "./testing/status-fixture.js";

function setup(failures: number) {
  const clock = createManualClock();
  const options = resolveClientOptions({ address: "127.0.0.1:9820", clock, sleep: clock.sleep });
  let calls = 0;
  const deps = {
    options,
    address: "127.0.0.1:9820",
    async status() {
      calls += 1;
      if (calls <= failures) throw new DaemonUnavailableError("refused");
      return normalizeStatus(statusFixture(5));
    },
  };
  return { clock, deps, calls: () => calls };
}

describe("waitUntilReady", () => {
  it("polls with backoff until the daemon answers", async () => {
    const t = setup(5);
    const status = await waitUntilReady(t.deps, { timeoutMs: 600_000 });
    expect(status.uptimeSeconds).toBe(5);
    expect(t.calls()).toBe(6);
    expect(t.clock.sleeps).toEqual([250, 500, 1000, 2000, 4000]);
  });

  it("gives up with DaemonUnavailableError after the timeout", async () => {
    const t = setup(Number.POSITIVE_INFINITY);
    const error = await waitUntilReady(t.deps, { timeoutMs: 20_000 }).catch((e) => e);
    expect(error).toBeInstanceOf(DaemonUnavailableError);
    expect(error.message).toMatch(/did not become ready within 20000 ms \(last: refused\)/);
    expect(t.clock.now()).toBe(20_000);
    expect(Math.max(...t.clock.sleeps)).toBe(5_000);
  });

  it("stops at once on abort", async () => {
    const t = setup(Number.POSITIVE_INFINITY);
    await expect(
      waitUntilReady(t.deps, { timeoutMs: 20_000, signal: AbortSignal.abort() }),
    ).rejects.toBeInstanceOf(AbortedError);
    expect(t.calls()).toBeLessThanOrEqual(1);
  });

  it("stops at once when the host name does not resolve", async () => {
    const t = setup(0);
    const notFound = Object.assign(new Error("getaddrinfo ENOTFOUND nowhere"), {
      code: "ENOTFOUND",
      syscall: "getaddrinfo",
    });
    let calls = 0;
    const deps = {
      ...t.deps,
      async status(): Promise<never> {
        calls += 1;
        throw notFound;
      },
    };
    const error = await waitUntilReady(deps, { timeoutMs: 600_000 }).catch((e) => e);
    expect(error).toBeInstanceOf(DaemonUnavailableError);
    expect(error.message).toMatch(/cannot resolve the daemon's host/);
    expect(error.hint).toMatch(/check the host name/);
    expect(calls).toBe(1);
    expect(t.clock.sleeps).toEqual([]);
  });
});
