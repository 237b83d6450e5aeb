import { describe, expect, it } from "vitest";
import { formatDaemonAddress, parseDaemonAddress } from "./address.js";
import { InvalidAddressError } from "./errors.js";

describe("parseDaemonAddress", () => {
  it.each([
    [
      "unix:///run/curio/cuzk.sock",
      { kind: "unix", path: "/run/curio/cuzk.sock", baseUrl: "http://localhost" },
    ],
    ["unix:/run/curio/cuzk.sock", { kind: "unix", path: "/run/curio/cuzk.sock" }],
    ["unix:cuzk.sock", { kind: "unix", path: "cuzk.sock" }],
    ["  unix:///tmp/a.sock  ", { kind: "unix", path: "/tmp/a.sock" }],
    ["127.0.0.1:9820", { kind: "tcp", host: "127.0.0.1", port: 9820, baseUrl: "http://127.0.0.1:9820" }],
    [
      "http://127.0.0.1:9820",
      { kind: "tcp", host: "127.0.0.1", port: 9820, baseUrl: "http://127.0.0.1:9820" },
    ],
    ["http://127.0.0.1:9820/", { kind: "tcp", host: "127.0.0.1", port: 9820 }],
    ["[::1]:9820", { kind: "tcp", host: "::1", port: 9820, baseUrl: "http://[::1]:9820" }],
    ["http://[::1]:9821", { kind: "tcp", host: "::1", port: 9821 }],
    ["localhost:9820", { kind: "tcp", host: "localhost", port: 9820, baseUrl: "http://localhost:9820" }],
    ["dns:///gpu-box.lan:9820", { kind: "tcp", host: "gpu-box.lan", port: 9820 }],
    ["127.0.0.1", { kind: "tcp", host: "127.0.0.1", port: 9820 }],
    ["[::1]", { kind: "tcp", host: "::1", port: 9820 }],
  ])("accepts %s", (text, expected) => {
    expect(parseDaemonAddress(text)).toMatchObject(expected);
  });

  it.each([
    ["", /empty/],
    ["   ", /empty/],
    ["unix:", /missing/],
    ["unix://", /missing|three slashes/],
    ["unix://run/cuzk.sock", /three slashes/],
    ["https://127.0.0.1:9820", /plaintext/],
    ["ftp://127.0.0.1:9820", /unknown scheme/],
    ["http://127.0.0.1:9820/cuzk", /no path/],
    ["/run/curio/cuzk.sock", /unix: prefix/],
    ["::1:9820", /brackets/],
    ["[::1:9820", /unclosed/],
    ["[127.0.0.1]:9820", /not an IPv6/],
    ["[::1]x", /after \]/],
    ["127.0.0.1:", /not a port/],
    ["127.0.0.1:abc", /not a port/],
    ["127.0.0.1:0", /outside/],
    ["127.0.0.1:70000", /outside/],
    [":9820", /host is missing/],
    ["bad_host!:9820", /not a host/],
  ])("rejects %j with a typed error", (text, why) => {
    let caught: unknown;
    try {
      parseDaemonAddress(text);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(InvalidAddressError);
    expect((caught as InvalidAddressError).code).toBe("INVALID_ADDRESS");
    expect((caught as InvalidAddressError).message).toMatch(why);
    expect((caught as InvalidAddressError).hint).toMatch(/unix:\/\/\//);
  });

  it("formats addresses for people", () => {
    expect(formatDaemonAddress(parseDaemonAddress("unix:/a/b.sock"))).toBe("unix:///a/b.sock");
    expect(formatDaemonAddress(parseDaemonAddress("http://[::1]:1"))).toBe("[::1]:1");
    expect(formatDaemonAddress(parseDaemonAddress("localhost"))).toBe("localhost:9820");
  });
});
