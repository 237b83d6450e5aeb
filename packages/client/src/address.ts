import { isIP } from "node:net";
import { daemonDefaults } from "@cuzkit/core";
import { InvalidAddressError } from "./errors.js";

/** A daemon address the transport can dial. */
export type DaemonAddress =
  | {
      kind: "tcp";
      /** Host name or IP literal (IPv6 without brackets). */
      host: string;
      /** TCP port. */
      port: number;
      /** URL the HTTP/2 session uses: `http://host:port` (IPv6 in brackets). */
      baseUrl: string;
      /** The address as given, trimmed. */
      text: string;
    }
  | {
      kind: "unix";
      /** Path of the unix socket. */
      path: string;
      /** URL the HTTP/2 session uses; the authority is a placeholder for the socket. */
      baseUrl: string;
      /** The address as given, trimmed. */
      text: string;
    };

/**
 * Parses a daemon address as people write it: `unix:///run/curio/cuzk.sock`, `unix:/path`,
 * `unix:relative.sock`, `127.0.0.1:9820`, `http://127.0.0.1:9820`, `[::1]:9820`,
 * `localhost:9820`, `dns:///host:port` (Go style). A missing port means 9820.
 * Throws InvalidAddressError for anything else (https, bare IPv6, bad ports, paths in URLs).
 */
export function parseDaemonAddress(input: string): DaemonAddress {
  const text = typeof input === "string" ? input.trim() : "";
  const fail = (why: string): never => {
    throw new InvalidAddressError(`invalid daemon address ${JSON.stringify(input)}: ${why}`, {
      address: String(input),
    });
  };
  if (text === "") return fail("it is empty");

  if (/^unix:/i.test(text)) {
    const rest = text.slice("unix:".length);
    let path: string;
    if (rest.startsWith("//")) {
      // unix://<authority>/<path>: only an empty authority is meaningful (unix:///abs/path).
      const afterSlashes = rest.slice(2);
      if (!afterSlashes.startsWith("/")) {
        return fail("use three slashes for an absolute path, as in unix:///run/curio/cuzk.sock");
      }
      path = afterSlashes;
    } else {
      path = rest;
    }
    if (path === "" || path === "/") return fail("the socket path is missing");
    return { kind: "unix", path, baseUrl: "http://localhost", text };
  }

  let rest = text;
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(rest);
  if (scheme) {
    const name = scheme[1]!.toLowerCase();
    if (name === "https" || name === "grpcs") {
      return fail("the daemon speaks plaintext HTTP/2 (h2c) only; use http:// or no scheme");
    }
    if (name !== "http" && name !== "grpc" && name !== "dns") return fail(`unknown scheme "${name}://"`);
    rest = rest.slice(scheme[0].length);
    if (name === "dns" && rest.startsWith("/")) rest = rest.slice(1);
    // Allow a single trailing slash (http://127.0.0.1:9820/) but no path.
    if (rest.endsWith("/")) rest = rest.slice(0, -1);
    if (rest.includes("/")) return fail("a daemon address has no path");
  } else if (rest.includes("/")) {
    return fail("a path needs the unix: prefix, as in unix:///run/curio/cuzk.sock");
  }

  let host: string;
  let portText: string | undefined;
  if (rest.startsWith("[")) {
    const close = rest.indexOf("]");
    if (close < 0) return fail("unclosed [ in an IPv6 address");
    host = rest.slice(1, close);
    const after = rest.slice(close + 1);
    if (after !== "" && !after.startsWith(":")) return fail("unexpected text after ]");
    portText = after === "" ? undefined : after.slice(1);
    if (isIP(host) !== 6) return fail(`"${host}" is not an IPv6 address`);
  } else {
    const colons = rest.split(":").length - 1;
    if (colons > 1) return fail("write an IPv6 address in brackets, as in [::1]:9820");
    const [h, p] = rest.split(":");
    host = h ?? "";
    portText = colons === 1 ? (p ?? "") : undefined;
    if (host === "") return fail("the host is missing");
    if (!/^[a-z0-9.-]+$/i.test(host)) return fail(`"${host}" is not a host name or IP address`);
  }

  let port: number = daemonDefaults.tcpPort;
  if (portText !== undefined) {
    if (!/^\d{1,5}$/.test(portText)) return fail(`"${portText}" is not a port number`);
    port = Number(portText);
    if (port < 1 || port > 65535) return fail(`port ${port} is outside 1-65535`);
  }
  const urlHost = host.includes(":") ? `[${host}]` : host;
  return { kind: "tcp", host, port, baseUrl: `http://${urlHost}:${port}`, text };
}

/** Formats an address for people and logs: `unix:///path` or `host:port`. */
export function formatDaemonAddress(address: DaemonAddress): string {
  if (address.kind === "unix")
    return address.path.startsWith("/") ? `unix://${address.path}` : `unix:${address.path}`;
  return address.host.includes(":") ? `[${address.host}]:${address.port}` : `${address.host}:${address.port}`;
}
