import { InvalidInputError } from "./errors.js";

// daemon.listen as the daemon parses it: `unix://<path>` binds a unix socket; anything else
// goes through Rust's `SocketAddr::from_str`, which takes only a literal IPv4 `a.b.c.d:port`
// or IPv6 `[addr]:port` (numeric `%scope` allowed) and never resolves a host name, so
// "localhost:9820" stops the daemon at start ("invalid listen address").
// Source: curio extern/cuzk/cuzk-daemon/src/main.rs (listen_addr.strip_prefix("unix://"),
// else listen_addr.parse()), read at e0294b0f.

function isRustIpv4(text: string): boolean {
  const octets = text.split(".");
  // Rust rejects leading zeros ("01") and more than 3 digits per octet.
  return octets.length === 4 && octets.every((o) => /^(0|[1-9]\d{0,2})$/.test(o) && Number(o) <= 255);
}

function isRustIpv6(text: string): boolean {
  const halves = text.split("::");
  if (halves.length > 2) return false;
  const groups = (part: string) => (part === "" ? [] : part.split(":"));
  const all = [...groups(halves[0] ?? ""), ...groups(halves[1] ?? "")];
  let count = 0;
  for (const [index, group] of all.entries()) {
    if (index === all.length - 1 && group.includes(".")) {
      if (!isRustIpv4(group)) return false;
      count += 2;
    } else if (/^[0-9a-fA-F]{1,4}$/.test(group)) count++;
    else return false;
  }
  // "::" stands for at least one group.
  return halves.length === 2 ? count <= 7 : count === 8;
}

function isPort(text: string): boolean {
  return /^\d+$/.test(text) && Number(text) <= 65535;
}

/** Why the daemon would refuse `listen` as daemon.listen, or undefined when it accepts it. */
export function daemonListenProblem(listen: string): string | undefined {
  if (listen.startsWith("unix://")) {
    return listen.length > "unix://".length ? undefined : "the unix socket path after unix:// is empty";
  }
  const v6 = /^\[([^\]]*)\]:(.*)$/.exec(listen);
  if (v6) {
    const [address = "", scope] = (v6[1] ?? "").split("%");
    if (!isRustIpv6(address)) return `"${address}" is not an IPv6 address`;
    if (scope !== undefined && !/^\d+$/.test(scope)) return "the IPv6 scope id must be a number";
    return isPort(v6[2] ?? "") ? undefined : `"${v6[2]}" is not a port (0-65535)`;
  }
  const colon = listen.lastIndexOf(":");
  const host = colon < 0 ? listen : listen.slice(0, colon);
  if (colon < 0) return "it has no port (the daemon takes IP:port or unix://path)";
  if (!isRustIpv4(host)) {
    return `"${host}" is not an IP address: the daemon does not resolve host names (write 127.0.0.1 for localhost, [::1] for IPv6)`;
  }
  return isPort(listen.slice(colon + 1)) ? undefined : `"${listen.slice(colon + 1)}" is not a port (0-65535)`;
}

/** Throws InvalidInputError when the daemon would refuse `listen` as daemon.listen. */
export function assertDaemonListen(listen: string, flag = "daemon.listen"): void {
  const problem = daemonListenProblem(listen);
  if (problem === undefined) return;
  const host = listen.replace(/:\d+$/, "");
  const suggestion =
    host === "localhost"
      ? `write ${listen.replace(/^localhost/, "127.0.0.1")}`
      : "write a literal IP and port such as 127.0.0.1:9820 or [::1]:9820, or a socket such as unix:///run/curio/cuzk.sock";
  throw new InvalidInputError(`cuzk would refuse to start with ${flag} "${listen}": ${problem}`, {
    hint: suggestion,
  });
}
