/** The loopback names a browser on this machine sends in its Host header. */
const loopbackNames = ["localhost", "127.0.0.1", "[::1]"];

/**
 * True when a Host header names this loopback server: localhost, 127.0.0.1 or [::1] at the port
 * the request arrived on, or one of `extraHosts` (the manager URL's host). A DNS-rebinding page
 * reaches the loopback port under its own name, which this refuses.
 */
export function loopbackHostAllowed(
  hostHeader: string | undefined,
  localPort: number | undefined,
  extraHosts: readonly string[] = [],
): boolean {
  if (hostHeader === undefined) return false;
  const host = hostHeader.toLowerCase();
  if (extraHosts.some((h) => h.toLowerCase() === host)) return true;
  if (localPort === undefined) return false;
  // Port 80 is the default: a browser leaves it out of Host.
  return loopbackNames.some((name) => host === `${name}:${localPort}` || (localPort === 80 && host === name));
}

/** The Host header value of a URL (`host:port`, the port left out when it is the scheme's default), or undefined. */
export function hostOfUrl(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return undefined;
  }
}
