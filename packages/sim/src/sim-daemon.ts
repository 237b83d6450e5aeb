import { rm } from "node:fs/promises";
import type { Socket } from "node:net";
import { performance } from "node:perf_hooks";
import { setImmediate as nextTurn } from "node:timers/promises";
import {
  type CircuitId,
  CuzkitError,
  daemonMaxMessageBytes,
  formatBytes,
  loadsPceFromDisk,
} from "@cuzkit/core";
import * as grpc from "@grpc/grpc-js";
import { type ConnectionGate, createConnectionGate } from "./connection-gate.js";
import { createSimEngine, type FinishedProof, type SimEngine } from "./engine.js";
import { SimStoppedError } from "./errors.js";
import { provingEngineServerDefinition } from "./grpc-service.js";
import { createProvingEngineHandlers } from "./handlers.js";
import { dialAddress } from "./listen-address.js";
import { type BoundListener, bindListener, reservePort } from "./listener.js";
import {
  defaultInjectedFailureMessage,
  type ResolvedSimFaults,
  type ResolvedSimOptions,
  resolveSimFaults,
  resolveSimOptions,
  type SimDaemonOptions,
  type SimFaults,
} from "./options.js";
import { createPceFileWaits, pceWriteSec, readPceFiles, writePceFile } from "./pce-files.js";
import type { OomDetail } from "./pipeline.js";
import { createReceivedCalls, type ReceivedCallQuery, type SimRpcMethod } from "./received-calls.js";
import { type StatusHttpServer, startStatusHttp } from "./status-http.js";

/** Life states of the simulated daemon. */
export type SimState = "starting" | "running" | "stalled" | "crashed" | "stopped";

/** Why the daemon died: modelled memory over usable RAM, crash() called, or a scheduled fault. */
export type SimCrashReason = "oom" | "killed" | "scheduled";

/** What a crash listener learns. */
export interface SimCrashDetail {
  reason: SimCrashReason;
  /** One line for people, e.g. "oom-kill: modelled memory 270.0 GiB exceeds 251.0 GiB". */
  message: string;
  /** Modelled memory in use when it died, in bytes. */
  memoryInUseBytes: number;
  /** Usable RAM of the simulated machine, in bytes. */
  usableRamBytes: number;
}

/** Counters over the daemon object's whole life (all runs), except memoryInUseBytes (current run). */
export interface SimStats {
  /** Submissions (SubmitProof and Prove) per job id; a duplicate request id counts twice. */
  submissionsByRequestId: Record<string, number>;
  proofsCompleted: number;
  proofsFailed: number;
  /** Modelled memory in use by the current run, in bytes (0 in fixed-time mode). */
  memoryInUseBytes: number;
  /** Highest modelled memory in use over all runs, in bytes. */
  peakMemoryBytes: number;
  restarts: number;
  /** Crashes of every reason (oom, killed, scheduled). */
  crashes: number;
  oomKills: number;
  /** gRPC connections accepted over the daemon's life. */
  connections: number;
  /** gRPC connections open now. */
  openConnections: number;
  /** The last crash, if any. */
  lastCrash: SimCrashDetail | undefined;
  /** RPCs received per method, over all runs. */
  callsReceived: Partial<Record<SimRpcMethod, number>>;
  /** Circuits whose PCE file the current run loaded at start (its first proof of them is warm); empty for the budget daemon. */
  pceFilesLoaded: CircuitId[];
}

/** Options of restart(). */
export interface SimRestartOptions {
  /** Faults for the new run. Default: the faults the daemon was started with. */
  faults?: SimFaults | undefined;
}

/** A running simulated cuzk daemon. */
export interface SimDaemon {
  /** What a client dials: "127.0.0.1:PORT", "[::1]:PORT" or "unix:///path"; the same after restarts. */
  readonly address: string;
  /** "http://127.0.0.1:PORT/status" when statusListen was given. */
  readonly statusUrl: string | undefined;
  readonly state: SimState;
  /** The resolved options (defaults applied). */
  readonly options: ResolvedSimOptions;
  /** Resolves once the daemon listens (at once unless faults.startDelayMs delays it); rejects if it cannot. */
  ready(): Promise<void>;
  /** Closes every connection and the listeners and removes the socket file; idempotent. */
  stop(): Promise<void>;
  /** Dies at once: every connection dropped mid-call, listeners closed, jobs lost. Default reason "killed". */
  crash(reason?: "oom" | "killed"): void;
  /** Comes back on the same address with a new uptime and no jobs (also after a crash); resolves once listening. */
  restart(options?: SimRestartOptions): Promise<void>;
  /** Answers nothing (no responses, no PING acks) on every connection, current and new, until unstall. */
  stall(): void;
  unstall(): void;
  /** Destroys every gRPC connection mid-call but keeps listening and keeps the jobs. */
  dropConnections(): void;
  /** Fails the next `count` proofs submitted with `message` (FAILED result, timings 0). */
  failNextProofs(count: number, message?: string): void;
  stats(): SimStats;
  /**
   * Resolves once the daemon has received `method` (for `query.jobId`, `query.count` times;
   * calls before the wait count too), e.g. "until the daemon holds the AwaitProof of job X".
   * Rejects with SIM_STOPPED when the daemon stops first. For tests: wait on this, never sleep.
   */
  whenReceived(method: SimRpcMethod, query?: ReceivedCallQuery): Promise<void>;
  /**
   * Resolves with the file's path once the daemon has written `circuit`'s PCE file into
   * paramCacheDir (a file written earlier in the object's life counts too). Rejects with
   * SIM_STOPPED when the daemon stops first. For tests: wait on this, never poll the folder.
   */
  whenPceFileWritten(circuit: CircuitId, options?: { signal?: AbortSignal | undefined }): Promise<string>;
  /** Resolves once every gRPC connection open now has closed (e.g. a client's close() has reached the daemon). */
  whenConnectionsClosed(): Promise<void>;
  /** Calls `listener` on every crash; returns an unsubscribe function. */
  onCrash(listener: (reason: SimCrashReason, detail: SimCrashDetail) => void): () => void;
}

interface Run {
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

// grpc-js must take in a request above 128 MiB for the handler to answer OUT_OF_RANGE as tonic
// does; beyond this outer cap grpc-js itself refuses with RESOURCE_EXHAUSTED.
const receiveCapBytes = 4 * daemonMaxMessageBytes;
// A scheduled crash or stall first lets the answers already given leave: it waits until the
// connections have ended as many HTTP/2 streams as the handlers answered, at most flushLimitMs.
const flushLimitMs = 250;

/** Wakes afterFlush to look again. */
function wakeFlushWaiters(run: Run): void {
  for (const wake of [...run.flushWaiters]) wake();
}

/**
 * Starts a simulated cuzk daemon: a grpc-js server speaking cuzk.v1.ProvingEngine on `listen`,
 * whose proofs take the model's time (or `proofTimeMs`), with fault injection. Resolves once
 * the address is known; it is listening by then unless faults.startDelayMs is set (see ready()).
 */
export async function startSimDaemon(options: SimDaemonOptions = {}): Promise<SimDaemon> {
  const resolved = resolveSimOptions(options);
  const { logger, scheduler } = resolved;
  const listen = resolved.listen;
  const statusListen = resolved.statusListen?.kind === "tcp" ? resolved.statusListen : undefined;
  const baseFaults = resolved.faults;
  let port = listen.kind === "tcp" ? listen.port : undefined;
  let statusPort = statusListen?.port;
  let state: SimState = "starting";
  let failNext = { ...baseFaults.failNextProofs };
  let stopping: Promise<void> | undefined;
  const crashListeners = new Set<(reason: SimCrashReason, detail: SimCrashDetail) => void>();
  const submissions = new Map<string, number>();
  const received = createReceivedCalls();
  const totals = { completed: 0, failed: 0, restarts: 0, crashes: 0, oomKills: 0, connections: 0 };
  let memoryNow = 0;
  let peakMemory = 0;
  let lastCrash: SimCrashDetail | undefined;
  let pceFilesLoaded: CircuitId[] = [];
  const pceFilesWritten = createPceFileWaits();

  if (baseFaults.startDelayMs > 0) {
    // The listener starts later, yet the address must be known now: pick the ports first.
    if (listen.kind === "tcp" && port === 0) port = await reservePort(listen);
    if (statusListen && statusPort === 0) statusPort = await reservePort(statusListen);
  }

  const address = () => dialAddress(listen, port);
  const statusUrl = () =>
    statusListen === undefined ? undefined : `http://${dialAddress(statusListen, statusPort)}/status`;

  const gib = (bytes: number) => formatBytes(bytes, 1);

  const crashNow = (run: Run, reason: SimCrashReason, oom?: OomDetail) => {
    if (run.ended || current !== run) return;
    const memory = oom?.memoryInUseBytes ?? memoryNow;
    const detail: SimCrashDetail = {
      reason,
      message:
        reason === "oom"
          ? `oom-kill: modelled memory ${gib(memory)} exceeds ${gib(resolved.hardware.usableRamBytes)}`
          : reason === "scheduled"
            ? "crash: scheduled fault"
            : "crash: killed",
      memoryInUseBytes: memory,
      usableRamBytes: resolved.hardware.usableRamBytes,
    };
    endRun(run);
    state = "crashed";
    totals.crashes++;
    if (reason === "oom") totals.oomKills++;
    lastCrash = detail;
    memoryNow = 0;
    logger.error(detail.message, { address: address() });
    for (const listener of [...crashListeners]) listener(reason, detail);
  };

  const endRun = (run: Run) => {
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
  };

  /** Runs `action` once the answers already given have left (the last proof is delivered before a scheduled fault). */
  const afterFlush = (run: Run, action: () => void) => {
    void (async () => {
      await nextTurn();
      await nextTurn();
      // By now every waiter of the finished proof has handed its answer to grpc-js.
      const answered = run.answers;
      const deadline = performance.now() + flushLimitMs;
      const busy = () => run.streamsEnded < answered || [...run.gates].some((gate) => gate.writePending());
      while (!run.ended && performance.now() < deadline && busy()) {
        await new Promise<void>((resolve) => {
          const wake = () => {
            clearTimeout(limit);
            run.flushWaiters.delete(wake);
            resolve();
          };
          const limit = setTimeout(wake, deadline - performance.now());
          run.flushWaiters.add(wake);
        });
      }
      if (!run.ended && current === run) action();
    })();
  };

  const onFinished = (run: Run, proof: FinishedProof) => {
    if (proof.status === "completed") totals.completed++;
    else totals.failed++;
    run.proofsFinished++;
    logger.debug("proof finished", { jobId: proof.jobId, kind: proof.kind, status: proof.status });
    if (run.faults.crashAfterProofs === run.proofsFinished) afterFlush(run, () => crashNow(run, "scheduled"));
    if (run.faults.stallAfterProofs === run.proofsFinished) afterFlush(run, () => daemon.stall());
  };

  const paramCache = resolved.paramCacheDir;
  /** Writes a circuit's PCE file once the modelled save time has passed, unless the run ends first. */
  const savePce = (run: Run, circuit: CircuitId) => {
    if (paramCache === undefined) return;
    run.timers.add(
      scheduler.setTimer(
        () => {
          if (run.ended) return;
          writePceFile(paramCache, circuit).then(
            (path) => {
              logger.info("pce file written", { circuit, path });
              pceFilesWritten.written(circuit, path);
            },
            (error: unknown) =>
              logger.error("could not write the pce file", {
                circuit,
                error: error instanceof Error ? error.message : String(error),
              }),
          );
        },
        pceWriteSec * 1000 * resolved.timeScale,
      ),
    );
  };

  /** A connection to the run's port: gated (stalls, stream ends) and handed to its gRPC server; refused once the run ended. */
  const acceptConnection = (run: Run, injector: grpc.ConnectionInjector, socket: Socket) => {
    if (run.ended) {
      socket.destroy();
      return;
    }
    totals.connections++;
    const gate = createConnectionGate(
      socket,
      state === "stalled",
      () => {
        run.streamsEnded++;
        wakeFlushWaiters(run);
      },
      () => wakeFlushWaiters(run),
    );
    run.gates.add(gate);
    void gate.closed.then(() => run.gates.delete(gate));
    injector.injectConnection(gate.duplex);
  };

  const listenRun = async (run: Run) => {
    if (run.ended) return;
    // Read at start, as the daemon does: only the partition-workers daemon loads PCE files.
    const pceOnDisk =
      paramCache !== undefined && loadsPceFromDisk(resolved.config)
        ? readPceFiles(paramCache)
        : new Set<CircuitId>();
    pceFilesLoaded = [...pceOnDisk];
    if (pceOnDisk.size > 0) logger.info("pce loaded from disk", { circuits: pceFilesLoaded.join(",") });
    const engine = createSimEngine({
      options: resolved,
      pceOnDisk,
      onPceExtracted: (circuit) => savePce(run, circuit),
      takeInjectedFailure: () => {
        if (failNext.count <= 0) return undefined;
        failNext.count--;
        return failNext.message;
      },
      onSubmitted: (jobId) => submissions.set(jobId, (submissions.get(jobId) ?? 0) + 1),
      onFinished: (proof) => onFinished(run, proof),
      sticks: () =>
        run.faults.stickAfterProofs !== undefined && run.proofsFinished >= run.faults.stickAfterProofs,
      holdsResult: () =>
        run.faults.holdAfterProofs !== undefined && run.proofsFinished >= run.faults.holdAfterProofs,
      onOom: (detail) => crashNow(run, "oom", detail),
      onMemory: (bytes) => {
        memoryNow = bytes;
        peakMemory = Math.max(peakMemory, bytes);
      },
    });
    const grpcServer = new grpc.Server({
      "grpc.max_receive_message_length": receiveCapBytes,
      "grpc.max_send_message_length": daemonMaxMessageBytes,
    });
    grpcServer.addService(
      provingEngineServerDefinition(),
      createProvingEngineHandlers(engine, logger, {
        onAnswer: () => run.answers++,
        onReceived: (method, jobId) => received.record(method, jobId),
      }),
    );
    const injector = grpcServer.createConnectionInjector(grpc.ServerCredentials.createInsecure());
    run.engine = engine;
    run.grpcServer = grpcServer;
    const accept = (socket: Socket) => acceptConnection(run, injector, socket);
    try {
      run.listener = await bindListener(listen, accept, port);
      if (port === 0 || port === undefined) port = run.listener.port;
      if (statusListen) {
        run.status = await startStatusHttp(statusListen, statusPort ?? 0, () => engine.statusJson(), false);
        statusPort = run.status.port;
      }
    } catch (error) {
      endRun(run);
      throw error;
    }
    // Stopped or restarted while binding: endRun's closing closes what was bound.
    if (run.ended) return;
    state = "running";
    logger.info("listening", { address: address(), status: statusUrl() });
    const crashAt = run.faults.crashAtMs;
    if (crashAt !== undefined) run.timers.add(scheduler.setTimer(() => crashNow(run, "scheduled"), crashAt));
  };

  const beginRun = (faults: ResolvedSimFaults): Run => {
    const run: Run = {
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
    state = "starting";
    if (faults.startDelayMs > 0) {
      logger.info("loading parameters before listening", {
        address: address(),
        delayMs: faults.startDelayMs,
      });
      run.ready = new Promise<void>((resolve, reject) => {
        run.abortStart = () =>
          reject(
            new CuzkitError("the simulated daemon ended before it listened", {
              code: "SIM_START_ABORTED",
              hint: "it was stopped, crashed or restarted during its start delay",
            }),
          );
        run.timers.add(
          scheduler.setTimer(() => {
            run.abortStart = undefined;
            run.binding = listenRun(run);
            run.binding.then(resolve, (error: unknown) => {
              if (current === run) state = "stopped";
              logger.error("could not listen", {
                error: error instanceof Error ? error.message : String(error),
              });
              reject(error);
            });
          }, faults.startDelayMs),
        );
      });
    } else {
      run.binding = listenRun(run);
      run.ready = run.binding;
    }
    // A failure is reported through ready(); never as an unhandled rejection.
    run.ready.catch(() => {});
    return run;
  };

  let current: Run = beginRun(baseFaults);
  if (baseFaults.startDelayMs === 0) await current.ready;

  const daemon: SimDaemon = {
    get address() {
      return address();
    },
    get statusUrl() {
      return statusUrl();
    },
    get state() {
      return state;
    },
    options: resolved,
    ready: () => current.ready,
    stop() {
      stopping ??= (async () => {
        endRun(current);
        state = "stopped";
        received.close();
        pceFilesWritten.close();
        await current.closing;
        if (listen.kind === "unix") await rm(listen.path, { force: true });
        logger.info("stopped", { address: address() });
      })();
      return stopping;
    },
    crash(reason = "killed") {
      if (state === "crashed" || state === "stopped") return;
      crashNow(current, reason);
    },
    async restart(restartOptions = {}) {
      if (stopping) {
        throw new SimStoppedError("the simulated daemon was stopped and cannot restart", {
          hint: "start a new one with startSimDaemon()",
        });
      }
      const previous = current;
      endRun(previous);
      await previous.closing;
      totals.restarts++;
      memoryNow = 0;
      const faults =
        restartOptions.faults === undefined ? baseFaults : resolveSimFaults(restartOptions.faults);
      current = beginRun(faults);
      logger.info("restarting", { address: address() });
      await current.ready;
    },
    stall() {
      if (state !== "running") return;
      state = "stalled";
      for (const gate of current.gates) gate.stall();
      current.status?.stall();
      logger.warn("stalled: answering nothing", { address: address() });
    },
    unstall() {
      if (state !== "stalled") return;
      state = "running";
      for (const gate of current.gates) gate.unstall();
      current.status?.unstall();
      logger.info("unstalled", { address: address() });
    },
    dropConnections() {
      logger.warn("dropping every connection", { connections: current.gates.size });
      for (const gate of current.gates) gate.destroy();
    },
    failNextProofs(count, message) {
      const checked = resolveSimFaults({ failNextProofs: { count, message } }).failNextProofs;
      failNext = { count: checked.count, message: message ?? defaultInjectedFailureMessage };
    },
    stats() {
      return {
        submissionsByRequestId: Object.fromEntries(submissions),
        proofsCompleted: totals.completed,
        proofsFailed: totals.failed,
        memoryInUseBytes: current.ended ? 0 : (current.engine?.memoryInUseBytes() ?? 0),
        peakMemoryBytes: peakMemory,
        restarts: totals.restarts,
        crashes: totals.crashes,
        oomKills: totals.oomKills,
        connections: totals.connections,
        openConnections: current.gates.size,
        lastCrash,
        callsReceived: received.counts(),
        pceFilesLoaded: [...pceFilesLoaded],
      };
    },
    whenReceived: (method, query) => received.whenReceived(method, query),
    whenPceFileWritten: (circuit, waitOptions) => pceFilesWritten.when(circuit, waitOptions?.signal),
    whenConnectionsClosed: () =>
      Promise.all([...current.gates].map((gate) => gate.closed)).then(() => undefined),
    onCrash(listener) {
      crashListeners.add(listener);
      return () => {
        crashListeners.delete(listener);
      };
    },
  };
  return daemon;
}
