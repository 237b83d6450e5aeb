import { InvalidInputError } from "@cuzkit/core";
import { describe, expect, it } from "vitest";
import { defaultEndpointLimits } from "./endpoints.js";
import { defaultRetry, resolveVastOptions } from "./options.js";

describe("resolveVastOptions", () => {
  it("fills documented defaults", () => {
    const resolved = resolveVastOptions({ env: {} });
    expect(resolved.baseUrl).toBe("https://console.vast.ai");
    expect(resolved.timeoutMs).toBe(60_000);
    expect(resolved.retry).toEqual(defaultRetry);
    expect(resolved.limits).toEqual(defaultEndpointLimits);
    expect(resolved.createRecovery).toEqual({ attempts: 3, delayMs: 2000 });
  });

  it("takes VAST_URL, and the option over it, without a trailing slash", () => {
    expect(resolveVastOptions({ env: { VAST_URL: "http://127.0.0.1:8080/" } }).baseUrl).toBe(
      "http://127.0.0.1:8080",
    );
    expect(
      resolveVastOptions({ env: { VAST_URL: "https://a.test" }, baseUrl: "https://b.test" }).baseUrl,
    ).toBe("https://b.test");
  });

  it("merges rate-limit overrides: all, then per endpoint", () => {
    const limits = resolveVastOptions({
      env: {},
      rateLimit: { all: { minIntervalMs: 100 }, endpoints: { createInstance: { minIntervalMs: 5000 } } },
    }).limits;
    expect(limits ? limits.showInstance : undefined).toEqual({ minIntervalMs: 100, concurrency: 1 });
    expect(limits ? limits.createInstance : undefined).toEqual({ minIntervalMs: 5000, concurrency: 1 });
    expect(resolveVastOptions({ env: {}, rateLimit: false }).limits).toBe(false);
  });

  it("refuses http:// to a non-loopback host (the key would travel in clear), allows it on loopback", () => {
    expect(() => resolveVastOptions({ env: {}, baseUrl: "http://console.vast.ai" })).toThrow(/in clear/);
    expect(() => resolveVastOptions({ env: { VAST_URL: "http://10.0.0.5:8080" } })).toThrow(/in clear/);
    for (const url of ["http://127.0.0.1:4000", "http://[::1]:4000", "http://localhost:4000"]) {
      expect(resolveVastOptions({ env: {}, baseUrl: url }).baseUrl).toBe(url);
    }
  });

  it.each([
    [{ baseUrl: "console.vast.ai" }],
    [{ baseUrl: "ftp://console.vast.ai" }],
    [{ baseUrl: "https://console.vast.ai/?api_key=x" }],
    [{ baseUrl: "https://user:pw@console.vast.ai" }],
    [{ timeoutMs: 0 }],
    [{ retry: { retries: -1 } }],
    [{ retry: { jitter: 2 } }],
    [{ rateLimit: { all: { concurrency: 0 } } }],
  ])("rejects %j", (options) => {
    expect(() => resolveVastOptions({ env: {}, ...options })).toThrow(InvalidInputError);
  });
});
