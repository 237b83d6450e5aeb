import type { CircuitId } from "@cuzkit/core";
import type { Run } from "./daemon-run.js";
import { dialAddress, type ListenAddress } from "./listen-address.js";
import type { ResolvedSimFaults, ResolvedSimOptions } from "./options.js";
import { createPceFileWaits, type PceFileWaits } from "./pce-files.js";
import { createReceivedCalls, type ReceivedCalls } from "./received-calls.js";
import type { SimCrashDetail, SimCrashReason, SimState } from "./sim-daemon-types.js";

// What the simulated daemon keeps over its whole life (all runs): its addresses, life state,
// faults armed, counters and waits, and the run in progress. Shared by its lifecycle
// (daemon-lifecycle.ts), its listening (daemon-listen.ts) and its faults (daemon-faults.ts).

/** Totals over the daemon's life. */
export interface DaemonTotals {
  completed: number;
  failed: number;
  restarts: number;
  crashes: number;
  oomKills: number;
  connections: number;
}

/** Everything the simulated daemon holds over its life. */
export interface DaemonState {
  resolved: ResolvedSimOptions;
  listen: ListenAddress;
  /** The TCP status listen address, when statusListen was given. */
  statusListen: Extract<ListenAddress, { kind: "tcp" }> | undefined;
  /** The faults the daemon was started with (a restart without faults gets them again). */
  baseFaults: ResolvedSimFaults;
  /** The gRPC port: 0 or undefined until known (undefined for a unix socket). */
  port: number | undefined;
  statusPort: number | undefined;
  state: SimState;
  failNext: { count: number; message: string };
  /** Set once stop() was called. */
  stopping: Promise<void> | undefined;
  crashListeners: Set<(reason: SimCrashReason, detail: SimCrashDetail) => void>;
  submissions: Map<string, number>;
  received: ReceivedCalls;
  totals: DaemonTotals;
  /** Modelled memory in use by the current run, in bytes, as the engine last reported it. */
  memoryNow: number;
  peakMemory: number;
  lastCrash: SimCrashDetail | undefined;
  pceFilesLoaded: CircuitId[];
  pceFilesWritten: PceFileWaits;
  /** The run in progress (or the last one, once stopped or crashed). */
  current: Run;
}

/** The state of a daemon about to start `first`. */
export function createDaemonState(resolved: ResolvedSimOptions, first: Run): DaemonState {
  const listen = resolved.listen;
  const statusListen = resolved.statusListen?.kind === "tcp" ? resolved.statusListen : undefined;
  const baseFaults = resolved.faults;
  return {
    resolved,
    listen,
    statusListen,
    baseFaults,
    port: listen.kind === "tcp" ? listen.port : undefined,
    statusPort: statusListen?.port,
    state: "starting",
    failNext: { ...baseFaults.failNextProofs },
    stopping: undefined,
    crashListeners: new Set(),
    submissions: new Map(),
    received: createReceivedCalls(),
    totals: { completed: 0, failed: 0, restarts: 0, crashes: 0, oomKills: 0, connections: 0 },
    memoryNow: 0,
    peakMemory: 0,
    lastCrash: undefined,
    pceFilesLoaded: [],
    pceFilesWritten: createPceFileWaits(),
    current: first,
  };
}

/** What a client dials: "127.0.0.1:PORT", "[::1]:PORT" or "unix:///path". */
export function addressOf(d: DaemonState): string {
  return dialAddress(d.listen, d.port);
}

/** "http://127.0.0.1:PORT/status" when statusListen was given. */
export function statusUrlOf(d: DaemonState): string | undefined {
  return d.statusListen === undefined
    ? undefined
    : `http://${dialAddress(d.statusListen, d.statusPort)}/status`;
}
