import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream, type WriteStream } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type Clock,
  CuzkitError,
  type Logger,
  monotonicClock,
  realSleep,
  type Sleep,
  silentLogger,
} from "@cuzkit/core";
import { addressAnswers } from "./address-probe.js";
import { commandFor, writeConfigFile } from "./daemon-config.js";
import { type DaemonExit, explainExit } from "./daemon-exit.js";
import { DaemonStartError, type DaemonStartErrorCode } from "./daemon-start-error.js";
import { groupGone, signalGroup } from "./process-group.js";

export { type DaemonExit, DaemonStartError, type DaemonStartErrorCode, explainExit };

/** What the daemon said when it first answered (for the identity check). */
export interface ReadyStatus {
  /** The daemon's uptime when it answered, in seconds. */
  uptimeSeconds: number;
}

/** Options of {@link createDaemonSupervisor}. */
export interface DaemonSupervisorOptions {
  /**
   * Shell command that starts the daemon. `{config}` and `{addr}` are replaced by the config
   * path and listen address; when absent, ` --config {config}` and ` --listen {addr}` are appended
   * (both cuzk-daemon and `cuzkit sim` take these flags).
   */
  command: string;
  /** Address the daemon listens on, e.g. "127.0.0.1:9820". */
  address: string;
  /** Resolves once the daemon answers (with its status, for the identity check); rejects on timeout. Called after every start. */
  waitForReady: (signal: AbortSignal) => Promise<ReadyStatus | undefined>;
  /** Folder for config files. Default: a new temporary folder. */
  workDir?: string | undefined;
  /** Lines of daemon output kept for the report. Default: 40. */
  logTailLines?: number | undefined;
  /** Also append every line the daemon prints to this file. Default: none. */
  logFile?: string | undefined;
  /** Called with every chunk the daemon prints, raw, and which stream it came from (the agent's log tail). Default: none. */
  onOutput?: ((chunk: Buffer, stream: "stdout" | "stderr") => void) | undefined;
  /** Grace period between SIGTERM and SIGKILL when stopping, in ms. Default: 10000. */
  stopGraceMs?: number | undefined;
  /** Extra environment for the daemon. Default: none. */
  env?: Record<string, string> | undefined;
  /** Logger for start/stop/exit events. Default: silent. */
  logger?: Logger | undefined;
  /** Clock for exit times and the uptime check (differences only). Default: monotonic, so a stepped system clock is never read as another daemon. */
  clock?: Clock | undefined;
  /** Sleep for the stop grace period and the process-group polls. Default: a real timer. */
  sleep?: Sleep | undefined;
}

/** A daemon process the benchmark starts, restarts and watches. */
export interface DaemonSupervisor {
  /**
   * Writes `configToml` (atomically) and starts the daemon, resolving once it answers. Refuses
   * (DaemonStartError ADDRESS_IN_USE) when something already answers at the address, and
   * (DAEMON_NOT_OURS) when the daemon that answers is not the child it started.
   */
  start(configToml: string, label: string, options?: { signal?: AbortSignal | undefined }): Promise<void>;
  /** Stops the daemon's process group (SIGTERM, then SIGKILL after the grace period). Idempotent. */
  stop(): Promise<DaemonExit | undefined>;
  /** Kills a daemon that froze (SIGKILL to its process group); the exit is reported as a crash with `reason`. */
  kill(reason: string): Promise<DaemonExit | undefined>;
  /** True while the process runs. */
  readonly running: boolean;
  /** Every exit the supervisor did not ask for (kills of a frozen daemon included), oldest first. */
  readonly crashes: readonly DaemonExit[];
  /** Starts made (the first one included). */
  readonly starts: number;
  /** Calls `listener` when the daemon exits unexpectedly after it answered (an exit while starting rejects start()); returns an unsubscribe function. */
  onCrash(listener: (exit: DaemonExit) => void): () => void;
  /** The last lines the daemon printed. */
  logTail(): string[];
}

/** Uptime may exceed the time since our spawn by this much (whole seconds, clock steps). */
const uptimeSlackSeconds = 3;

/** The supervisor's settings, with their defaults applied. */
interface SupervisorSettings {
  options: DaemonSupervisorOptions;
  logger: Logger;
  tailSize: number;
  graceMs: number;
  clock: Clock;
  sleep: Sleep;
  /** When the supervisor was created: exits are timed from here. */
  createdAt: number;
}

/** What the supervisor knows of its daemon, changed by the steps below. */
interface SupervisorState {
  /** The last lines the daemon printed. */
  tail: string[];
  crashes: DaemonExit[];
  listeners: Set<(exit: DaemonExit) => void>;
  /** The running daemon (its shell); undefined once its whole group is gone. */
  child: ChildProcess | undefined;
  /** The latest child's exit, once its group is gone. */
  exited: Promise<DaemonExit> | undefined;
  /** True once stop() asked the daemon to end. */
  stopping: boolean;
  /** Why kill() ended a frozen daemon. */
  killReason: string | undefined;
  workDir: string | undefined;
  starts: number;
  logStream: WriteStream | undefined;
  /** Never leave an orphan: if this process exits while the daemon runs, take its group down. */
  onProcessExit: () => void;
}

/** Keeps a chunk of the daemon's output: in the log file, and its lines in the tail. */
function remember(settings: SupervisorSettings, state: SupervisorState, chunk: Buffer): void {
  state.logStream?.write(chunk);
  for (const line of chunk.toString("utf8").split("\n")) {
    if (line.trim() === "") continue;
    state.tail.push(line);
    if (state.tail.length > settings.tailSize) state.tail.shift();
  }
}

/** The exit as the supervisor reports it: asked for, a frozen daemon killed, or a crash explained. */
function describeExit(
  settings: SupervisorSettings,
  state: SupervisorState,
  exitCode: number | null,
  signal: NodeJS.Signals | null,
): DaemonExit {
  const frozen = state.killReason !== undefined;
  const expected = state.stopping && !frozen;
  const explained = explainExit(exitCode, signal, state.tail);
  return {
    atMs: settings.clock.now() - settings.createdAt,
    exitCode,
    signal,
    expected,
    likelyOom: !expected && !frozen && explained.likelyOom,
    frozen,
    explanation: expected ? "stopped by the benchmark" : (state.killReason ?? explained.text),
    logTail: [...state.tail],
  };
}

/** The child's exit, once its whole group is gone: a crash (reported to listeners once it had answered) unless asked for. */
function watchExit(
  settings: SupervisorSettings,
  state: SupervisorState,
  proc: ChildProcess,
  started: { answered: boolean },
): Promise<DaemonExit> {
  const { clock, sleep } = settings;
  return new Promise<DaemonExit>((resolve) => {
    proc.once("exit", (exitCode, signal) => {
      process.off("exit", state.onProcessExit);
      const exit = describeExit(settings, state, exitCode, signal);
      state.logStream?.write(`== cuzkit bench: the daemon ended: ${exit.explanation}\n`);
      // The shell can end before the daemon it ran: act once the whole group is gone.
      void groupGone(proc, settings.graceMs, clock, sleep).then(async (gone) => {
        if (!gone) {
          signalGroup(proc, "SIGKILL");
          await groupGone(proc, 2_000, clock, sleep);
        }
        state.child = undefined;
        if (!exit.expected) {
          state.crashes.push(exit);
          settings.logger.error("daemon exited", { exitCode, signal, explanation: exit.explanation });
          if (started.answered) for (const listener of state.listeners) listener(exit);
        }
        resolve(exit);
      });
    });
  });
}

/** Waits for the daemon to answer (or exit, or the start to be cancelled); checks the daemon that answers is ours. */
async function awaitReady(
  settings: SupervisorSettings,
  state: SupervisorState,
  proc: ChildProcess,
  spawnedAt: number,
  exited: Promise<DaemonExit>,
  started: { answered: boolean },
  cancel: AbortSignal | undefined,
): Promise<void> {
  const { options, clock } = settings;
  const readiness = new AbortController();
  // Stopping the run while the daemon starts: give up waiting, and stop it below.
  const onCancel = () => readiness.abort(cancel?.reason);
  cancel?.addEventListener("abort", onCancel, { once: true });
  const earlyExit = exited.then((exit) => {
    throw new DaemonStartError(`the daemon exited while starting: ${exit.explanation}`, {
      exit,
      hint: `check the command and its config; its last output:\n${exit.logTail.slice(-10).join("\n")}`,
    });
  });
  try {
    const status = await Promise.race([options.waitForReady(readiness.signal), earlyExit]);
    // The daemon that answered must be ours: our child still runs, and it was not up before we started it.
    if (!state.child || state.child !== proc) throw await earlyExit;
    const sinceSpawnSec = (clock.now() - spawnedAt) / 1000;
    if (status && status.uptimeSeconds > sinceSpawnSec + uptimeSlackSeconds) {
      throw new DaemonStartError(
        `the daemon answering at ${options.address} has been up ${status.uptimeSeconds} s, but ours started ${sinceSpawnSec.toFixed(0)} s ago: another daemon answers there`,
        {
          hint: "stop the other daemon first, or start this one on another address",
          code: "DAEMON_NOT_OURS",
        },
      );
    }
    started.answered = true;
  } catch (error) {
    readiness.abort();
    if (state.child) await stop(settings, state);
    throw CuzkitError.is(error)
      ? error
      : new DaemonStartError("the daemon did not become ready", {
          hint: "check that the command starts the daemon on the given address",
          cause: error,
        });
  } finally {
    cancel?.removeEventListener("abort", onCancel);
    readiness.abort();
    earlyExit.catch(() => {});
  }
}

/** Refuses a start while our daemon runs, or while something else answers at the address. */
async function refuseBusyStart(options: DaemonSupervisorOptions, state: SupervisorState): Promise<void> {
  if (state.child)
    throw new DaemonStartError("the daemon is already running", {
      hint: "stop it before starting it again",
    });
  if (await addressAnswers(options.address)) {
    throw new DaemonStartError(
      `something already answers at ${options.address}; the benchmark would measure it instead of the daemon it starts`,
      {
        hint: "stop the other daemon (or the old container) first, or start this one on another address",
        code: "ADDRESS_IN_USE",
      },
    );
  }
}

/** Writes the config into the work folder (a new temporary one at the first start); returns its path. */
async function writeConfig(state: SupervisorState, configToml: string, label: string): Promise<string> {
  state.workDir ??= await mkdtemp(join(tmpdir(), "cuzkit-bench-"));
  return writeConfigFile(state.workDir, configToml, label);
}

/** Spawns the daemon in its own process group and keeps its output; it becomes the current child. */
function spawnDaemon(settings: SupervisorSettings, state: SupervisorState, command: string): ChildProcess {
  const { options } = settings;
  // detached: the daemon gets its own process group so stop() reaches the shell's children too.
  const proc = spawn(command, {
    shell: true,
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, ...options.env },
  });
  state.child = proc;
  process.once("exit", state.onProcessExit);
  proc.stdout?.on("data", (chunk: Buffer) => {
    remember(settings, state, chunk);
    options.onOutput?.(chunk, "stdout");
  });
  proc.stderr?.on("data", (chunk: Buffer) => {
    remember(settings, state, chunk);
    options.onOutput?.(chunk, "stderr");
  });
  return proc;
}

/** See DaemonSupervisor.start. */
async function start(
  settings: SupervisorSettings,
  state: SupervisorState,
  configToml: string,
  label: string,
  cancel: AbortSignal | undefined,
): Promise<void> {
  const { options, logger } = settings;
  await refuseBusyStart(options, state);
  const configPath = await writeConfig(state, configToml, label);
  if (cancel?.aborted) throw cancel.reason;
  const command = commandFor(options.command, options.address, configPath);
  logger.info("starting daemon", { label, command });
  if (options.logFile !== undefined && !state.logStream)
    state.logStream = createWriteStream(options.logFile, { flags: "a" });
  state.logStream?.write(`== cuzkit bench: starting the daemon (${label}) at ${new Date().toISOString()}\n`);
  state.stopping = false;
  state.killReason = undefined;
  state.starts++;
  const spawnedAt = settings.clock.now();
  // An exit before the daemon answered is the start's error, not a crash to act on.
  const started = { answered: false };
  const proc = spawnDaemon(settings, state, command);
  const exited = watchExit(settings, state, proc, started);
  state.exited = exited;
  await awaitReady(settings, state, proc, spawnedAt, exited, started, cancel);
}

/** See DaemonSupervisor.stop: SIGTERM to the group, SIGKILL after the grace period. */
async function stop(settings: SupervisorSettings, state: SupervisorState): Promise<DaemonExit | undefined> {
  const proc = state.child;
  const exited = state.exited;
  if (!proc || !exited) return undefined;
  state.stopping = true;
  signalGroup(proc, "SIGTERM");
  const grace = new AbortController();
  settings.sleep(settings.graceMs, grace.signal).then(
    () => signalGroup(proc, "SIGKILL"),
    () => {}, // the daemon ended within the grace period
  );
  try {
    return await exited;
  } finally {
    grace.abort();
  }
}

/** See DaemonSupervisor.kill. */
async function kill(state: SupervisorState, reason: string): Promise<DaemonExit | undefined> {
  const proc = state.child;
  if (!proc || !state.exited) return undefined;
  state.killReason = reason;
  signalGroup(proc, "SIGKILL");
  return state.exited;
}

/** Starts and watches a daemon process for a benchmark run. */
export function createDaemonSupervisor(options: DaemonSupervisorOptions): DaemonSupervisor {
  const clock = options.clock ?? monotonicClock;
  const settings: SupervisorSettings = {
    options,
    logger: options.logger ?? silentLogger,
    tailSize: options.logTailLines ?? 40,
    graceMs: options.stopGraceMs ?? 10_000,
    clock,
    sleep: options.sleep ?? realSleep,
    createdAt: clock.now(),
  };
  const state: SupervisorState = {
    tail: [],
    crashes: [],
    listeners: new Set(),
    child: undefined,
    exited: undefined,
    stopping: false,
    killReason: undefined,
    workDir: options.workDir,
    starts: 0,
    logStream: undefined,
    onProcessExit: () => {
      if (state.child) signalGroup(state.child, "SIGKILL");
    },
  };
  return {
    start: (configToml, label, startOptions = {}) =>
      start(settings, state, configToml, label, startOptions.signal),
    stop: () => stop(settings, state),
    kill: (reason) => kill(state, reason),
    get running() {
      return state.child !== undefined;
    },
    crashes: state.crashes,
    get starts() {
      return state.starts;
    },
    onCrash(listener) {
      state.listeners.add(listener);
      return () => state.listeners.delete(listener);
    },
    logTail: () => [...state.tail],
  };
}
