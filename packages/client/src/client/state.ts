import { setMaxListeners } from "node:events";
import { type Client, createClient } from "@connectrpc/connect";
import { ProvingEngine } from "@cuzkit/proto";
import { formatDaemonAddress } from "../address.js";
import { type Admission, createAdmission } from "../admission.js";
import { type CuzkClientOptions, type ResolvedClientOptions, resolveClientOptions } from "../options.js";
import type { StatusSample } from "../recovery.js";
import { createSentIds, type SentIds } from "../sent-ids.js";
import type { DaemonStatus } from "../status.js";
import { createDaemonTransport, type DaemonTransport } from "../transport.js";

// One client's state, shared by the step modules that implement its methods (invoke.ts,
// status-cache.ts, proof-calls.ts, daemon-calls.ts): they take it as their first argument.

/** A client's state: its options, its connection, and what its calls share. */
export interface ClientState {
  /** The options in effect, defaults filled in. */
  readonly options: ResolvedClientOptions;
  /** The daemon address, normalised, for messages. */
  readonly address: string;
  /** The HTTP/2 transport, with its pre-encoded path and session handles. */
  readonly daemonTransport: DaemonTransport;
  /** The generated gRPC client over `daemonTransport`. */
  readonly rpc: Client<typeof ProvingEngine>;
  /** Aborted by close(): every call in flight listens to it. */
  readonly closing: AbortController;
  /** The `maxInFlight` slots that prove, proveOnce and admit run in. */
  readonly admission: Admission;
  /** Request ids this client sent (refused again unless allowed). */
  readonly sentIds: SentIds;
  /** The most recent GetStatus, as evidence for a later break. */
  lastStatus: StatusSample | undefined;
  /** The latest GetStatus answer and when it arrived (clock ms), for recentStatus. */
  latest: { status: DaemonStatus; atMs: number } | undefined;
  /** The GetStatus being fetched for recentStatus, shared by its callers. */
  fetching: Promise<DaemonStatus> | undefined;
}

/** Checks the options and address (InvalidAddressError now for a bad one) and builds the state; dials nothing. */
export function createClientState(clientOptions: CuzkClientOptions): ClientState {
  const options = resolveClientOptions(clientOptions);
  const address = formatDaemonAddress(options.address);
  const daemonTransport = createDaemonTransport({
    address: options.address,
    pingIntervalMs: options.keepalive.pingIntervalMs,
    pingTimeoutMs: options.keepalive.pingTimeoutMs,
    idleConnectionTimeoutMs: options.keepalive.idleConnectionTimeoutMs,
    readMaxBytes: options.maxRequestBytes,
  });
  const closing = new AbortController();
  // Every call in flight listens for close(): hundreds are normal, not a leak.
  setMaxListeners(0, closing.signal);
  return {
    options,
    address,
    daemonTransport,
    rpc: createClient(ProvingEngine, daemonTransport.transport),
    closing,
    admission: createAdmission(options.maxInFlight),
    sentIds: createSentIds(),
    lastStatus: undefined,
    latest: undefined,
    fetching: undefined,
  };
}
