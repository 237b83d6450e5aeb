import { describe, expect, it } from "vitest";
import { hostOfUrl, loopbackHostAllowed } from "./host-check.js";

// Reads without the admin token answer only to a Host that names this loopback server: a
// DNS-rebinding page reaches the port under its own name and must be refused.

describe("loopbackHostAllowed", () => {
  it("allows localhost, 127.0.0.1 and [::1] at the port the request arrived on, in any case", () => {
    for (const host of ["localhost:7320", "127.0.0.1:7320", "[::1]:7320", "LocalHost:7320"]) {
      expect(loopbackHostAllowed(host, 7320), host).toBe(true);
    }
  });

  it("refuses a rebinding name, another port, a bare name on a non-default port, and no Host at all", () => {
    expect(loopbackHostAllowed("evil.example:7320", 7320)).toBe(false);
    expect(loopbackHostAllowed("localhost:7321", 7320)).toBe(false);
    expect(loopbackHostAllowed("localhost", 7320)).toBe(false);
    expect(loopbackHostAllowed(undefined, 7320)).toBe(false);
    expect(loopbackHostAllowed("localhost:7320", undefined)).toBe(false);
  });

  it("takes a bare loopback name on port 80, where a browser leaves the port out", () => {
    expect(loopbackHostAllowed("localhost", 80)).toBe(true);
    expect(loopbackHostAllowed("127.0.0.1", 80)).toBe(true);
    expect(loopbackHostAllowed("evil.example", 80)).toBe(false);
  });

  it("allows the manager URL's host as given, case-insensitively, and nothing else besides loopback", () => {
    const extra = ["Fleet.Example:8443"];
    expect(loopbackHostAllowed("fleet.example:8443", 7320, extra)).toBe(true);
    expect(loopbackHostAllowed("fleet.example:8443", undefined, extra)).toBe(true);
    expect(loopbackHostAllowed("fleet.example:9999", 7320, extra)).toBe(false);
    expect(loopbackHostAllowed("localhost:7320", 7320, extra)).toBe(true);
  });
});

describe("hostOfUrl", () => {
  it("is the Host header a browser sends for the URL: lower case, the default port left out", () => {
    expect(hostOfUrl("https://Fleet.Example:8443/dash")).toBe("fleet.example:8443");
    expect(hostOfUrl("https://fleet.example:443/")).toBe("fleet.example");
    expect(hostOfUrl("http://fleet.example/")).toBe("fleet.example");
  });

  it("is undefined for no URL or one that does not parse", () => {
    expect(hostOfUrl(undefined)).toBeUndefined();
    expect(hostOfUrl("not a url")).toBeUndefined();
  });
});
