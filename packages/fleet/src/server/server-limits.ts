import type { ServerOptions } from "node:http";

// The manager's HTTP server faces the internet (agents on rented machines report to it), so a
// client that opens a connection and stalls must not hold it: each limit below closes one kind
// of stall. Node checks the header and request timeouts only every `connectionsCheckingInterval`
// (30 s by default), which is why a stalled request once stayed open past 32 s.

/** Time limits of the manager's HTTP server, ms. */
export interface FleetServerTimeouts {
  /** From connection to the end of the request's headers. Default 10 s: headers are a few hundred bytes. */
  headersTimeoutMs?: number | undefined;
  /** From connection to the end of the request's body. Default 30 s: the largest body (1 MiB report) at ~35 kB/s. */
  requestTimeoutMs?: number | undefined;
  /** An idle keep-alive connection between two requests. Default 5 s (Node's): agents send a request every 30 s at most. */
  keepAliveTimeoutMs?: number | undefined;
  /** A connection with no bytes either way, event streams included (they tick every 10 s). Default 60 s. */
  idleTimeoutMs?: number | undefined;
  /** How often Node checks the header and request timeouts. Default 1 s (Node's own is 30 s). */
  timeoutCheckIntervalMs?: number | undefined;
}

/** The defaults of {@link FleetServerTimeouts}. */
export const fleetServerTimeoutDefaults = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  idleTimeoutMs: 60_000,
  timeoutCheckIntervalMs: 1_000,
} as const satisfies Required<FleetServerTimeouts>;

/** How many dashboard event streams (SSE) may be open at once before new ones get 503. */
export const defaultMaxEventStreams = 32;

/** The Fastify options that apply the timeouts to its Node HTTP server. */
export function fastifyTimeoutOptions(timeouts: FleetServerTimeouts = {}): {
  requestTimeout: number;
  keepAliveTimeout: number;
  connectionTimeout: number;
  http: ServerOptions;
} {
  const t: Required<{ [K in keyof FleetServerTimeouts]: number }> = {
    ...fleetServerTimeoutDefaults,
    ...definedOnly(timeouts),
  };
  // Node refuses a headers timeout above the request timeout.
  const headersTimeout = Math.min(t.headersTimeoutMs, t.requestTimeoutMs);
  return {
    requestTimeout: t.requestTimeoutMs,
    keepAliveTimeout: t.keepAliveTimeoutMs,
    connectionTimeout: t.idleTimeoutMs,
    http: { headersTimeout, connectionsCheckingInterval: t.timeoutCheckIntervalMs },
  };
}

function definedOnly(value: FleetServerTimeouts): Partial<Record<keyof FleetServerTimeouts, number>> {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined));
}
