import { crashNow, stallDaemon, unstallDaemon } from "./daemon-faults.js";
import { restartDaemon, startRun, stopDaemon } from "./daemon-lifecycle.js";
import { createRun } from "./daemon-run.js";
import { addressOf, createDaemonState, type DaemonState, statusUrlOf } from "./daemon-state.js";
import { reservePort } from "./listener.js";
import {
  defaultInjectedFailureMessage,
  resolveSimFaults,
  resolveSimOptions,
  type SimDaemonOptions,
} from "./options.js";
import type { SimDaemon, SimStats } from "./sim-daemon-types.js";

export type {
  SimCrashDetail,
  SimCrashReason,
  SimDaemon,
  SimRestartOptions,
  SimState,
  SimStats,
} from "./sim-daemon-types.js";

// startSimDaemon wires the layers: the daemon's life-long state (daemon-state.ts), its runs
// (daemon-run.ts) started, restarted and stopped by daemon-lifecycle.ts, each listening through
// daemon-listen.ts (engine, gRPC server, HTTP status), with the faults of daemon-faults.ts.

/**
 * Starts a simulated cuzk daemon: a grpc-js server speaking cuzk.v1.ProvingEngine on `listen`,
 * whose proofs take the model's time (or `proofTimeMs`), with fault injection. Resolves once
 * the address is known; it is listening by then unless faults.startDelayMs is set (see ready()).
 */
export async function startSimDaemon(options: SimDaemonOptions = {}): Promise<SimDaemon> {
  const resolved = resolveSimOptions(options);
  const d = createDaemonState(resolved, createRun(resolved.faults));
  if (d.baseFaults.startDelayMs > 0) {
    // The listener starts later, yet the address must be known now: pick the ports first.
    if (d.listen.kind === "tcp" && d.port === 0) d.port = await reservePort(d.listen);
    if (d.statusListen && d.statusPort === 0) d.statusPort = await reservePort(d.statusListen);
  }
  startRun(d, d.current);
  if (d.baseFaults.startDelayMs === 0) await d.current.ready;
  return daemonHandle(d);
}

/** The handle over the daemon's state that startSimDaemon resolves with. */
function daemonHandle(d: DaemonState): SimDaemon {
  return {
    get address() {
      return addressOf(d);
    },
    get statusUrl() {
      return statusUrlOf(d);
    },
    get state() {
      return d.state;
    },
    options: d.resolved,
    ready: () => d.current.ready,
    stop: () => stopDaemon(d),
    crash(reason = "killed") {
      if (d.state === "crashed" || d.state === "stopped") return;
      crashNow(d, d.current, reason);
    },
    restart: (restartOptions) => restartDaemon(d, restartOptions),
    stall: () => stallDaemon(d),
    unstall: () => unstallDaemon(d),
    dropConnections() {
      d.resolved.logger.warn("dropping every connection", { connections: d.current.gates.size });
      for (const gate of d.current.gates) gate.destroy();
    },
    failNextProofs(count, message) {
      const checked = resolveSimFaults({ failNextProofs: { count, message } }).failNextProofs;
      d.failNext = { count: checked.count, message: message ?? defaultInjectedFailureMessage };
    },
    stats: () => daemonStats(d),
    whenReceived: (method, query) => d.received.whenReceived(method, query),
    whenPceFileWritten: (circuit, waitOptions) => d.pceFilesWritten.when(circuit, waitOptions?.signal),
    whenConnectionsClosed: () =>
      Promise.all([...d.current.gates].map((gate) => gate.closed)).then(() => undefined),
    onCrash(listener) {
      d.crashListeners.add(listener);
      return () => {
        d.crashListeners.delete(listener);
      };
    },
  };
}

/** Counters over the daemon's whole life, except memory in use (the current run's). */
function daemonStats(d: DaemonState): SimStats {
  const { current, totals } = d;
  return {
    submissionsByRequestId: Object.fromEntries(d.submissions),
    proofsCompleted: totals.completed,
    proofsFailed: totals.failed,
    memoryInUseBytes: current.ended ? 0 : (current.engine?.memoryInUseBytes() ?? 0),
    peakMemoryBytes: d.peakMemory,
    restarts: totals.restarts,
    crashes: totals.crashes,
    oomKills: totals.oomKills,
    connections: totals.connections,
    openConnections: current.gates.size,
    lastCrash: d.lastCrash,
    callsReceived: d.received.counts(),
    pceFilesLoaded: [...d.pceFilesLoaded],
  };
}
