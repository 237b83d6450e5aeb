import { InvalidInputError } from "@cuzkit/core";
import { describe, expect, it } from "vitest";
import { InvalidAddressError } from "./errors.js";
import { resolveClientOptions } from "./options.js";

describe("resolveClientOptions", () => {
  it("fills the documented defaults", () => {
    const o = resolveClientOptions({ address: "127.0.0.1:9820" });
    expect(o.keepalive).toEqual({
      pingIntervalMs: 15_000,
      pingTimeoutMs: 10_000,
      idleConnectionTimeoutMs: 900_000,
    });
    expect(o.deadlines).toMatchObject({
      statusMs: 10_000,
      proofMs: 1_800_000,
      warmupProofMs: 3_600_000,
      preloadMs: 600_000,
    });
    expect(o.reconnect).toMatchObject({
      initialDelayMs: 250,
      maxDelayMs: 5_000,
      giveUpAfterMs: 120_000,
      frozenAfterMs: 15_000,
      probeTimeoutMs: 5_000,
    });
    // prove reports a freeze after the PING timeout plus one probe: within 45 s by default.
    expect(
      o.keepalive.pingIntervalMs + o.keepalive.pingTimeoutMs + o.reconnect.probeTimeoutMs,
    ).toBeLessThanOrEqual(45_000);
    expect(o.resubmit).toEqual({ porep: 0, snap: 0, wpost: 2, winning: 2 });
    expect(o.maxInFlight).toBe(10);
    expect(o.maxRequestBytes).toBe(128 * 1024 * 1024);
    expect(o.address).toMatchObject({ kind: "tcp", port: 9820 });
  });

  it("merges partial overrides", () => {
    const o = resolveClientOptions({
      address: "unix:///tmp/x.sock",
      keepalive: { pingIntervalMs: 200 },
      deadlines: { proofMs: 5 },
      resubmit: { porep: 1 },
      maxInFlight: Number.POSITIVE_INFINITY,
    });
    expect(o.keepalive.pingIntervalMs).toBe(200);
    expect(o.keepalive.pingTimeoutMs).toBe(10_000);
    expect(o.deadlines.proofMs).toBe(5);
    expect(o.resubmit.porep).toBe(1);
    expect(o.resubmit.wpost).toBe(2);
    expect(o.maxInFlight).toBe(Number.POSITIVE_INFINITY);
  });

  it("rejects bad values and bad addresses with typed errors", () => {
    expect(() => resolveClientOptions({ address: "https://x:1" })).toThrow(InvalidAddressError);
    expect(() => resolveClientOptions({ address: "x:1", keepalive: { pingTimeoutMs: 0 } })).toThrow(
      InvalidInputError,
    );
    expect(() => resolveClientOptions({ address: "x:1", maxInFlight: -1 })).toThrow(/maxInFlight/);
    expect(() => resolveClientOptions({ address: "x:1", deadlines: { proofMs: Number.NaN } })).toThrow(
      /proofMs/,
    );
    expect(() => resolveClientOptions(undefined as never)).toThrow(InvalidInputError);
  });
});
