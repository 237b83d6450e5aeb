import type * as grpc from "@grpc/grpc-js";
import type { ConnectionGate } from "./connection-gate.js";
import type { SimEngine } from "./engine.js";
import type { BoundListener } from "./listener.js";
import type { ResolvedSimFaults } from "./options.js";
import type { StatusHttpServer } from "./status-http.js";

// One run of the simulated daemon, from a start or restart to its stop, crash or the next
// restart: its engine, gRPC server, listeners, connections and timers, ended all at once.

/** What one run of the daemon holds. */
export interface Run {
  engine: SimEngine | undefined;
  grpcServer: grpc.Server | undefined;
  listener: BoundListener | undefined;
  status: StatusHttpServer | undefined;
  gates: Set<ConnectionGate>;
  timers: Set<() => void>;
  faults: ResolvedSimFaults;
  proofsFinished: number;
  /** Answers handed to grpc-js, and HTTP/2 streams ended on the wire, in this run. */
  answers: number;
  streamsEnded: number;
  /** Woken when a stream ends, a write reaches the kernel or the run ends (afterFlush waits on them). */
  flushWaiters: Set<() => void>;
  ended: boolean;
  ready: Promise<void>;
  /** The bind in progress or done (undefined while a start delay runs). */
  binding: Promise<void> | undefined;
  /** Rejects `ready` when the run ends before it listens (set while a start delay runs). */
  abortStart: (() => void) | undefined;
  closing: Promise<void>;
}

/** A run not yet started, with `faults`. */
export function createRun(faults: ResolvedSimFaults): Run {
  return {
    engine: undefined,
    grpcServer: undefined,
    listener: undefined,
    status: undefined,
    gates: new Set(),
    timers: new Set(),
    faults,
    proofsFinished: 0,
    answers: 0,
    streamsEnded: 0,
    flushWaiters: new Set(),
    ended: false,
    ready: Promise.resolve(),
    binding: undefined,
    abortStart: undefined,
    closing: Promise.resolve(),
  };
}

/** Wakes afterFlush to look again. */
export function wakeFlushWaiters(run: Run): void {
  for (const wake of [...run.flushWaiters]) wake();
}

/** Ends the run (idempotent): timers, engine, connections and gRPC server stop; `closing` closes the listeners. */
export function endRun(run: Run): void {
  if (run.ended) return;
  run.ended = true;
  wakeFlushWaiters(run);
  run.abortStart?.();
  for (const cancel of run.timers) cancel();
  run.timers.clear();
  run.engine?.dispose();
  for (const gate of run.gates) gate.destroy();
  run.grpcServer?.forceShutdown();
  // Listeners still being bound are closed once binding settles.
  run.closing = (run.binding ?? Promise.resolve())
    .catch(() => undefined)
    .then(() => Promise.all([run.listener?.close(), run.status?.close()]))
    .then(() => undefined);
}
