import { setMaxListeners } from "node:events";
import {
  type CuzkClient,
  type CuzkClientOptions,
  createCuzkClient,
  defaultDeadlines,
  type ProofResult,
} from "@cuzkit/client";
import { createEarlyVerdictTest, type EarlyDecision, type EarlyVerdictTest } from "../early-verdict.js";
import { type BenchmarkOptions, benchDefaults, type ResolvedBenchmarkOptions } from "../options.js";
import { modelPhaseEtas, type PhaseEtas, phaseDeadlines } from "../phase-deadlines.js";
import type { ProofCycle } from "../proof-rate.js";
import type { ProofRecord } from "../records.js";
import type { PhaseRecord, ProofFailure } from "../report.js";
import { type BenchPhase, createStatusFileWriter, type StatusFileWriter } from "../status-file.js";
import type { Watchdog } from "../watchdog.js";

/** Proof counts of the run. */
export interface RunCounts {
  /** Timed proofs completed. */
  done: number;
  /** Timed proofs failed. */
  failed: number;
  /** Proofs in flight (warmup included). */
  inFlight: number;
  /** Timed proofs submitted. */
  started: number;
  /** Timed proofs failed in a row (a completion resets it). */
  consecutiveFailures: number;
  /** Warmup proofs completed. */
  warmupCompleted: number;
  /** How long the warmup took, in ms. */
  warmupDurationMs: number;
}

/** What the run knows about daemon restarts and deaths. */
export interface RunRestarts {
  /** Restarts the client saw that the benchmark did not make (unsupervised). */
  seenByClient: number;
  /** Deaths seen without a supervisor. */
  unsupervisedDeaths: number;
  /** When the current daemon started (run clock, ms), from its uptime. */
  lastDaemonStartMs: number | undefined;
  /** True once a client-reported restart was counted. */
  counted: boolean;
  /** Restarts the benchmark made after crashes. */
  used: number;
  /** The restart in progress, if any. */
  pending: Promise<void> | undefined;
}

/** The phase the run is in and its deadline. */
export interface RunPhase {
  current: BenchPhase;
  /** When it started, in ms since the run started. */
  startMs: number;
  /** Aborts the current phase's deadline wait. */
  deadline: AbortController | undefined;
  /** True once a first phase was entered (the record of the initial phase is skipped before). */
  entered: boolean;
  /** When the work ended, in ms since the run started ("done" starts there). */
  workEndMs: number | undefined;
}

/** Everything one benchmark run knows: its options, its phase, its counts, restarts, proofs and errors. */
export interface RunState {
  readonly o: ResolvedBenchmarkOptions;
  readonly sup: ResolvedBenchmarkOptions["supervision"];
  /** True when the warmup runs on its own config and the daemon restarts with the full one after. */
  readonly twoConfigs: boolean;
  readonly startedAt: Date;
  /** The run's start on its clock, in ms. */
  readonly runStartMs: number;
  readonly inputBytes: number;
  readonly etas: PhaseEtas;
  readonly deadlines: PhaseEtas;
  /** Aborted (with a StopBenchmark reason) to end the run early; every proof in flight listens. */
  readonly stop: AbortController;
  /** Ends a restart's readiness wait when the run is over: the batch can finish on the new daemon first. */
  readonly teardown: AbortController;
  readonly earlyTest: EarlyVerdictTest | undefined;
  readonly statusWriter: StatusFileWriter | undefined;
  readonly client: CuzkClient;
  watchdog: Watchdog | undefined;
  readonly phase: RunPhase;
  readonly counts: RunCounts;
  readonly restarts: RunRestarts;
  early: EarlyDecision | undefined;
  readonly failures: ProofFailure[];
  readonly records: ProofRecord[];
  readonly results: ProofResult[];
  readonly incidents: string[];
  readonly notes: string[];
  readonly phases: PhaseRecord[];
  /** Completed timed proofs' cycles in completion order: what the report's rate and the early verdict both rest on. */
  readonly cycles: ProofCycle[];
  /** Per slot: its last timed completion, or its first timed submit before that. */
  readonly slotMarks: Map<number, number>;
}

/** The fallback deadlines when the model gives no ETA, in ms. */
function fallbackDeadlines(
  readyTimeoutMs: number,
  warmupTimeoutMs: number | undefined,
  pceTimeoutMs: number | undefined,
): PhaseEtas {
  return {
    "starting-daemon": readyTimeoutMs,
    "waiting-for-daemon": readyTimeoutMs,
    warmup: warmupTimeoutMs ?? defaultDeadlines.warmupProofMs,
    "waiting-for-pce": pceTimeoutMs ?? benchDefaults.pceWaitMs,
    "restarting-daemon": readyTimeoutMs,
  };
}

/** The ETA of each phase from the model, if one was given. */
function runEtas(o: ResolvedBenchmarkOptions): PhaseEtas {
  return o.model
    ? modelPhaseEtas({
        ...o.model,
        kind: o.kind,
        count: o.count,
        concurrency: o.concurrency,
        warmupProofs: o.warmupProofs,
      })
    : {};
}

/** The client the run proves through (the caller's clock and sleep win over the client options'). */
function runClient(o: ResolvedBenchmarkOptions, options: BenchmarkOptions): CuzkClient {
  const clientOptions: CuzkClientOptions = {
    ...o.client,
    address: o.address,
    maxInFlight: o.concurrency,
    logger: o.logger,
    clock: options.clock ?? o.client?.clock,
    sleep: options.sleep ?? o.client?.sleep,
  };
  return createCuzkClient(clientOptions);
}

/** The state of a run about to start (no phase entered yet, no watchdog yet). */
export function createRunState(o: ResolvedBenchmarkOptions, options: BenchmarkOptions): RunState {
  const sup = o.supervision;
  const etas = runEtas(o);
  const stop = new AbortController();
  // Every proof in flight listens on this signal.
  setMaxListeners(0, stop.signal);
  const startedAt = new Date();
  const runStartMs = o.clock.now();
  return {
    o,
    sup,
    twoConfigs: sup?.warmupConfigToml !== undefined && o.warmupProofs > 0,
    startedAt,
    runStartMs,
    inputBytes: (o.request as { vanillaProof?: Uint8Array }).vanillaProof?.byteLength ?? 0,
    etas,
    deadlines: phaseDeadlines(
      etas,
      fallbackDeadlines(o.readyTimeoutMs, o.warmupTimeoutMs, sup?.pceWait?.timeoutMs),
      o.phaseDeadlines,
    ),
    stop,
    teardown: new AbortController(),
    earlyTest:
      o.earlyVerdict && o.minProofsPerHour !== undefined
        ? createEarlyVerdictTest(o.minProofsPerHour, o.concurrency, {
            ...o.earlyVerdict,
            maxSamples: o.earlyVerdict.maxSamples ?? o.count,
          })
        : undefined,
    statusWriter: o.statusFile === undefined ? undefined : createStatusFileWriter(o.statusFile),
    client: runClient(o, options),
    watchdog: undefined,
    phase: {
      current: sup ? "starting-daemon" : "waiting-for-daemon",
      startMs: 0,
      deadline: undefined,
      entered: false,
      workEndMs: undefined,
    },
    counts: {
      done: 0,
      failed: 0,
      inFlight: 0,
      started: 0,
      consecutiveFailures: 0,
      warmupCompleted: 0,
      warmupDurationMs: 0,
    },
    restarts: {
      seenByClient: 0,
      unsupervisedDeaths: 0,
      lastDaemonStartMs: undefined,
      counted: false,
      used: 0,
      pending: undefined,
    },
    early: undefined,
    failures: [],
    records: [],
    results: [],
    incidents: [],
    notes: [],
    phases: [],
    cycles: [],
    slotMarks: new Map(),
  };
}

/** Milliseconds since the run started. */
export function since(run: RunState): number {
  return run.o.clock.now() - run.runStartMs;
}

/** Daemon crashes: the supervisor's, or the deaths seen without one. */
export function crashCount(run: RunState): number {
  return run.sup ? run.sup.supervisor.crashes.length : run.restarts.unsupervisedDeaths;
}
