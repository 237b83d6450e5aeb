import type { Socket } from "node:net";
import { type CircuitId, daemonMaxMessageBytes, loadsPceFromDisk } from "@cuzkit/core";
import * as grpc from "@grpc/grpc-js";
import { createConnectionGate } from "./connection-gate.js";
import { crashNow, onProofFinished } from "./daemon-faults.js";
import { endRun, type Run, wakeFlushWaiters } from "./daemon-run.js";
import { addressOf, type DaemonState, statusUrlOf } from "./daemon-state.js";
import { createSimEngine, type SimEngine } from "./engine.js";
import { provingEngineServerDefinition } from "./grpc-service.js";
import { createProvingEngineHandlers } from "./handlers.js";
import { bindListener } from "./listener.js";
import { pceWriteSec, readPceFiles, writePceFile } from "./pce-files.js";
import { startStatusHttp } from "./status-http.js";

// How a run comes to listen: it reads the PCE files on disk, creates its engine and its gRPC
// server, binds the gRPC listener (and the HTTP status server), then arms its crashAtMs fault.
// Connections accepted are gated (stalls, stream ends) and handed to the run's gRPC server.

// grpc-js must take in a request above 128 MiB for the handler to answer OUT_OF_RANGE as tonic
// does; beyond this outer cap grpc-js itself refuses with RESOURCE_EXHAUSTED.
const receiveCapBytes = 4 * daemonMaxMessageBytes;

/** Starts `run` listening; rejects (with the run ended) when it cannot bind. */
export async function listenRun(d: DaemonState, run: Run): Promise<void> {
  if (run.ended) return;
  const { logger, scheduler } = d.resolved;
  const engine = createRunEngine(d, run, loadPceOnDisk(d));
  const { grpcServer, injector } = createRunGrpcServer(d, run, engine);
  run.engine = engine;
  run.grpcServer = grpcServer;
  try {
    await bindRun(d, run, engine, (socket) => acceptConnection(d, run, injector, socket));
  } catch (error) {
    endRun(run);
    throw error;
  }
  // Stopped or restarted while binding: endRun's closing closes what was bound.
  if (run.ended) return;
  d.state = "running";
  logger.info("listening", { address: addressOf(d), status: statusUrlOf(d) });
  const crashAt = run.faults.crashAtMs;
  if (crashAt !== undefined) run.timers.add(scheduler.setTimer(() => crashNow(d, run, "scheduled"), crashAt));
}

/** The circuits whose PCE file is on disk now (read at start, as the daemon does). */
function loadPceOnDisk(d: DaemonState): Set<CircuitId> {
  const paramCache = d.resolved.paramCacheDir;
  // Only the partition-workers daemon loads PCE files.
  const pceOnDisk =
    paramCache !== undefined && loadsPceFromDisk(d.resolved.config)
      ? readPceFiles(paramCache)
      : new Set<CircuitId>();
  d.pceFilesLoaded = [...pceOnDisk];
  if (pceOnDisk.size > 0)
    d.resolved.logger.info("pce loaded from disk", { circuits: d.pceFilesLoaded.join(",") });
  return pceOnDisk;
}

/** The run's engine, wired to the daemon's counters and faults. */
function createRunEngine(d: DaemonState, run: Run, pceOnDisk: Set<CircuitId>): SimEngine {
  return createSimEngine({
    options: d.resolved,
    pceOnDisk,
    onPceExtracted: (circuit) => savePce(d, run, circuit),
    takeInjectedFailure: () => {
      if (d.failNext.count <= 0) return undefined;
      d.failNext.count--;
      return d.failNext.message;
    },
    onSubmitted: (jobId) => d.submissions.set(jobId, (d.submissions.get(jobId) ?? 0) + 1),
    onFinished: (proof) => onProofFinished(d, run, proof),
    sticks: () =>
      run.faults.stickAfterProofs !== undefined && run.proofsFinished >= run.faults.stickAfterProofs,
    holdsResult: () =>
      run.faults.holdAfterProofs !== undefined && run.proofsFinished >= run.faults.holdAfterProofs,
    onOom: (detail) => crashNow(d, run, "oom", detail),
    onMemory: (bytes) => {
      d.memoryNow = bytes;
      d.peakMemory = Math.max(d.peakMemory, bytes);
    },
  });
}

/** The run's gRPC server serving cuzk.v1.ProvingEngine from `engine`, and what hands it connections. */
function createRunGrpcServer(
  d: DaemonState,
  run: Run,
  engine: SimEngine,
): { grpcServer: grpc.Server; injector: grpc.ConnectionInjector } {
  const grpcServer = new grpc.Server({
    "grpc.max_receive_message_length": receiveCapBytes,
    "grpc.max_send_message_length": daemonMaxMessageBytes,
  });
  grpcServer.addService(
    provingEngineServerDefinition(),
    createProvingEngineHandlers(engine, d.resolved.logger, {
      onAnswer: () => run.answers++,
      onReceived: (method, jobId) => d.received.record(method, jobId),
    }),
  );
  const injector = grpcServer.createConnectionInjector(grpc.ServerCredentials.createInsecure());
  return { grpcServer, injector };
}

/** Binds the gRPC listener, then the HTTP status server; the ports picked are kept for restarts. */
async function bindRun(
  d: DaemonState,
  run: Run,
  engine: SimEngine,
  accept: (socket: Socket) => void,
): Promise<void> {
  run.listener = await bindListener(d.listen, accept, d.port);
  if (d.port === 0 || d.port === undefined) d.port = run.listener.port;
  if (d.statusListen) {
    run.status = await startStatusHttp(d.statusListen, d.statusPort ?? 0, () => engine.statusJson(), false);
    d.statusPort = run.status.port;
  }
}

/** A connection to the run's port: gated (stalls, stream ends) and handed to its gRPC server; refused once the run ended. */
function acceptConnection(d: DaemonState, run: Run, injector: grpc.ConnectionInjector, socket: Socket): void {
  if (run.ended) {
    socket.destroy();
    return;
  }
  d.totals.connections++;
  const gate = createConnectionGate(
    socket,
    d.state === "stalled",
    () => {
      run.streamsEnded++;
      wakeFlushWaiters(run);
    },
    () => wakeFlushWaiters(run),
  );
  run.gates.add(gate);
  void gate.closed.then(() => run.gates.delete(gate));
  injector.injectConnection(gate.duplex);
}

/** Writes a circuit's PCE file once the modelled save time has passed, unless the run ends first. */
function savePce(d: DaemonState, run: Run, circuit: CircuitId): void {
  const { logger, scheduler, paramCacheDir: paramCache } = d.resolved;
  if (paramCache === undefined) return;
  run.timers.add(
    scheduler.setTimer(
      () => {
        if (run.ended) return;
        writePceFile(paramCache, circuit).then(
          (path) => {
            logger.info("pce file written", { circuit, path });
            d.pceFilesWritten.written(circuit, path);
          },
          (error: unknown) =>
            logger.error("could not write the pce file", {
              circuit,
              error: error instanceof Error ? error.message : String(error),
            }),
        );
      },
      pceWriteSec * 1000 * d.resolved.timeScale,
    ),
  );
}
