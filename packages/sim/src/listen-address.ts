import { isIP } from "node:net";
import { isAbsolute } from "node:path";
import { InvalidInputError } from "@cuzkit/core";

/** A listen address the daemon accepts: a literal IP and port, or a unix socket path. */
export type ListenAddress =
  | { kind: "tcp"; host: string; port: number; family: 4 | 6 }
  | { kind: "unix"; path: string };

const hint =
  'write a literal IP and port ("127.0.0.1:9820", "[::1]:0", "0.0.0.0:9820") or "unix:///absolute/path.sock"; the daemon does not resolve host names';

/**
 * Parses a listen address the way cuzk-daemon does: `unix://<absolute path>` or a literal
 * socket address `IP:port` (IPv6 in brackets). Host names such as `localhost:9820` are
 * refused, as the daemon refuses them. Port 0 asks for an ephemeral port.
 */
export function parseListenAddress(text: string): ListenAddress {
  const trimmed = text.trim();
  if (trimmed.startsWith("unix://")) {
    const path = trimmed.slice("unix://".length);
    if (!isAbsolute(path)) {
      throw new InvalidInputError(`invalid listen address "${text}": the socket path must be absolute`, {
        hint,
      });
    }
    return { kind: "unix", path };
  }
  const match = /^(?:\[([^\]]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(trimmed);
  const host = match?.[1] ?? match?.[2];
  const port = Number(match?.[3]);
  if (!match || host === undefined || port > 65_535) {
    throw new InvalidInputError(`invalid listen address "${text}"`, { hint });
  }
  const family = isIP(host);
  if (family === 0 || (family === 6 && match[1] === undefined)) {
    throw new InvalidInputError(`invalid listen address "${text}": "${host}" is not a literal IP`, { hint });
  }
  return { kind: "tcp", host, port, family: family as 4 | 6 };
}

/**
 * The address a client dials to reach a listener bound at `address` on `port`: wildcard
 * hosts become loopback ("0.0.0.0" -> "127.0.0.1", "::" -> "::1"), IPv6 gets brackets.
 */
export function dialAddress(address: ListenAddress, port?: number): string {
  if (address.kind === "unix") return `unix://${address.path}`;
  const host =
    address.host === "0.0.0.0"
      ? "127.0.0.1"
      : address.host === "::" || address.host === "::0"
        ? "::1"
        : address.host;
  const shown = address.family === 6 ? `[${host}]` : host;
  return `${shown}:${port ?? address.port}`;
}
