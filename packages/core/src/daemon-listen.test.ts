import { describe, expect, it } from "vitest";
import { assertDaemonListen, daemonListenProblem } from "./daemon-listen.js";
import { InvalidInputError } from "./errors.js";

// What cuzk-daemon's main.rs accepts as daemon.listen: unix://<path>, else SocketAddr::from_str.
describe("daemon.listen as the daemon parses it", () => {
  it.each([
    "unix:///run/curio/cuzk.sock",
    "unix://relative.sock",
    "127.0.0.1:9820",
    "0.0.0.0:9820",
    "[::1]:9820",
    "[::]:9820",
    "[fe80::1%2]:9820",
    "[2001:db8::ffff:192.0.2.1]:9820",
    "[1:2:3:4:5:6:7:8]:65535",
  ])("accepts %j", (listen) => {
    expect(daemonListenProblem(listen)).toBeUndefined();
  });

  it.each([
    ["localhost:9820", /does not resolve host names/],
    ["cuzk.example:9820", /does not resolve host names/],
    ["127.0.0.1", /no port/],
    ["127.0.0.1:70000", /not a port/],
    ["127.0.0.01:9820", /not an IP address/],
    ["::1:9820", /not an IP address/],
    ["[::1]", /not an IP address|no port/],
    ["[fe80::1%eth0]:9820", /scope id/],
    ["[1:2:3:4:5:6:7:8:9]:1", /not an IPv6 address/],
    ["unix://", /path after unix:\/\/ is empty/],
    ["unix:/run/cuzk.sock", /not an IP address/],
    [" 127.0.0.1:9820", /not an IP address/],
  ])("refuses %j", (listen, why) => {
    expect(daemonListenProblem(listen)).toMatch(why);
  });

  it("throws a typed error whose hint names the literal address to write", () => {
    try {
      assertDaemonListen("localhost:9820", "--addr");
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(InvalidInputError);
      expect((error as InvalidInputError).message).toMatch(/refuse to start with --addr "localhost:9820"/);
      expect((error as InvalidInputError).hint).toBe("write 127.0.0.1:9820");
    }
  });
});
