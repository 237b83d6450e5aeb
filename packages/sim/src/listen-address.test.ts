import { describe, expect, it } from "vitest";
import { dialAddress, parseListenAddress } from "./listen-address.js";

describe("parseListenAddress", () => {
  it.each([
    ["127.0.0.1:9820", { kind: "tcp", host: "127.0.0.1", port: 9820, family: 4 }],
    ["0.0.0.0:0", { kind: "tcp", host: "0.0.0.0", port: 0, family: 4 }],
    ["[::1]:0", { kind: "tcp", host: "::1", port: 0, family: 6 }],
    ["[::]:9820", { kind: "tcp", host: "::", port: 9820, family: 6 }],
    ["unix:///run/curio/cuzk.sock", { kind: "unix", path: "/run/curio/cuzk.sock" }],
  ])("reads %s", (text, expected) => {
    expect(parseListenAddress(text)).toEqual(expected);
  });

  it.each([
    "localhost:9820",
    "::1:9820",
    "127.0.0.1",
    "127.0.0.1:70000",
    "unix://relative.sock",
    "http://127.0.0.1:1",
  ])("refuses %s as the daemon does", (text) => {
    expect(() => parseListenAddress(text)).toThrow(/invalid listen address/);
  });
});

describe("dialAddress", () => {
  it("turns wildcards into loopback and brackets IPv6", () => {
    expect(dialAddress(parseListenAddress("0.0.0.0:0"), 1234)).toBe("127.0.0.1:1234");
    expect(dialAddress(parseListenAddress("[::]:0"), 1234)).toBe("[::1]:1234");
    expect(dialAddress(parseListenAddress("[::1]:5"))).toBe("[::1]:5");
    expect(dialAddress(parseListenAddress("unix:///tmp/x.sock"))).toBe("unix:///tmp/x.sock");
  });
});
