import { type ChildProcess, spawn } from "node:child_process";
import { createWriteStream, type WriteStream } from "node:fs";
import { mkdtemp, rename, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  type Clock,
  CuzkitError,
  type CuzkitErrorOptions,
  type Logger,
  monotonicClock,
  realSleep,
  type Sleep,
  silentLogger,
} from "@cuzkit/core";
import { addressAnswers } from "./address-probe.js";

/** How a supervised daemon process ended. */
export interface DaemonExit {
  /** Milliseconds since the supervisor was created. */
  atMs: number;
  /** Exit code, or null when a signal ended it. */
  exitCode: number | null;
  /** Signal name that ended it, or null. */
  signal: NodeJS.Signals | null;
  /** True when the supervisor asked it to stop. */
  expected: boolean;
  /** True for exit code 137 or a SIGKILL that we did not send: the signature of the kernel's OOM killer. */
  likelyOom: boolean;
  /** True when the supervisor killed it because it had frozen (see kill()). */
  frozen: boolean;
  /** One sentence for people. */
  explanation: string;
  /** The last lines the daemon printed. */
  logTail: string[];
}

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

export type DaemonStartErrorCode = "DAEMON_START_FAILED" | "ADDRESS_IN_USE" | "DAEMON_NOT_OURS";

/** Error thrown when the daemon cannot be started, does not answer, or is not the one we started. */
export class DaemonStartError extends CuzkitError<DaemonStartErrorCode> {
  /** The child's exit when it exited before it was seen ready; undefined for other failures. */
  readonly exit: DaemonExit | undefined;
  constructor(
    message: string,
    options: CuzkitErrorOptions<DaemonStartErrorCode> & { exit?: DaemonExit | undefined } = {},
  ) {
    const { exit, ...rest } = options;
    super(message, { ...rest, code: rest.code ?? "DAEMON_START_FAILED" });
    this.exit = exit;
  }
}

/** Reads an exit for people: OOM for 137/SIGKILL, "not found" for 127, the log's own word for a crash. */
export function explainExit(
  exitCode: number | null,
  signal: NodeJS.Signals | null,
  logTail: readonly string[],
): { likelyOom: boolean; text: string } {
  const likelyOom = exitCode === 137 || signal === "SIGKILL";
  const last = logTail.at(-1);
  const said = last === undefined ? "" : `; its last line: "${last}"`;
  if (likelyOom) {
    return {
      likelyOom,
      text: `killed (${signal ?? `exit ${exitCode}`}): most likely the kernel's OOM killer; check dmesg and lower partition workers / concurrency (cuzkit tune)${said}`,
    };
  }
  if (signal) return { likelyOom, text: `ended by ${signal}${said}` };
  if (exitCode === 127)
    return { likelyOom, text: `exited with code 127: the command was not found (check --spawn)${said}` };
  if (exitCode === 126)
    return { likelyOom, text: `exited with code 126: the command is not executable (check --spawn)${said}` };
  const crashed = logTail.some((line) => /panic|crash|segfault|SIGSEGV|abort/i.test(line));
  return {
    likelyOom,
    text: `exited with code ${exitCode}${exitCode === 0 ? " (unexpectedly)" : ""}${crashed ? ": it crashed" : ""}${said}`,
  };
}

/** Uptime may exceed the time since our spawn by this much (whole seconds, clock steps). */
const uptimeSlackSeconds = 3;

/** Starts and watches a daemon process for a benchmark run. */
export function createDaemonSupervisor(options: DaemonSupervisorOptions): DaemonSupervisor {
  const logger = options.logger ?? silentLogger;
  const tailSize = options.logTailLines ?? 40;
  const graceMs = options.stopGraceMs ?? 10_000;
  const clock = options.clock ?? monotonicClock;
  const sleep = options.sleep ?? realSleep;
  const createdAt = clock.now();
  const tail: string[] = [];
  const crashes: DaemonExit[] = [];
  const listeners = new Set<(exit: DaemonExit) => void>();
  let child: ChildProcess | undefined;
  let exited: Promise<DaemonExit> | undefined;
  let stopping = false;
  let killReason: string | undefined;
  let workDir = options.workDir;
  let starts = 0;
  let logStream: WriteStream | undefined;

  const remember = (chunk: Buffer) => {
    logStream?.write(chunk);
    for (const line of chunk.toString("utf8").split("\n")) {
      if (line.trim() === "") continue;
      tail.push(line);
      if (tail.length > tailSize) tail.shift();
    }
  };

  const commandFor = (configPath: string) => {
    let command = options.command;
    if (!command.includes("{config}")) command += " --config {config}";
    if (!command.includes("{addr}")) command += " --listen {addr}";
    return command
      .replaceAll("{config}", JSON.stringify(configPath))
      .replaceAll("{addr}", JSON.stringify(options.address));
  };

  const signalGroup = (proc: ChildProcess, signal: NodeJS.Signals) => {
    try {
      if (proc.pid !== undefined) process.kill(-proc.pid, signal);
    } catch {
      // Already gone.
    }
  };
  // Never leave an orphan: if this process exits while the daemon runs, take its group down.
  const onProcessExit = () => {
    if (child) signalGroup(child, "SIGKILL");
  };

  /** The child's exit, once its whole group is gone: a crash (reported to listeners once it had answered) unless asked for. */
  function watchExit(proc: ChildProcess, started: { answered: boolean }): Promise<DaemonExit> {
    return new Promise<DaemonExit>((resolve) => {
      proc.once("exit", (exitCode, signal) => {
        process.off("exit", onProcessExit);
        const frozen = killReason !== undefined;
        const expected = stopping && !frozen;
        const explained = explainExit(exitCode, signal, tail);
        const exit: DaemonExit = {
          atMs: clock.now() - createdAt,
          exitCode,
          signal,
          expected,
          likelyOom: !expected && !frozen && explained.likelyOom,
          frozen,
          explanation: expected ? "stopped by the benchmark" : (killReason ?? explained.text),
          logTail: [...tail],
        };
        logStream?.write(`== cuzkit bench: the daemon ended: ${exit.explanation}\n`);
        // The shell can end before the daemon it ran: act once the whole group is gone.
        void groupGone(proc, graceMs).then(async (gone) => {
          if (!gone) {
            signalGroup(proc, "SIGKILL");
            await groupGone(proc, 2_000);
          }
          child = undefined;
          if (!exit.expected) {
            crashes.push(exit);
            logger.error("daemon exited", { exitCode, signal, explanation: exit.explanation });
            if (started.answered) for (const listener of listeners) listener(exit);
          }
          resolve(exit);
        });
      });
    });
  }

  /** Waits for the daemon to answer (or exit, or the start to be cancelled); checks the daemon that answers is ours. */
  async function awaitReady(
    proc: ChildProcess,
    spawnedAt: number,
    exited: Promise<DaemonExit>,
    started: { answered: boolean },
    cancel: AbortSignal | undefined,
  ): Promise<void> {
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
      if (!child || child !== proc) throw await earlyExit;
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
      if (child) await stop();
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

  async function start(
    configToml: string,
    label: string,
    startOptions: { signal?: AbortSignal | undefined } = {},
  ): Promise<void> {
    const cancel = startOptions.signal;
    if (child)
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
    workDir ??= await mkdtemp(join(tmpdir(), "cuzkit-bench-"));
    const configPath = join(workDir, `cuzk-${label}.toml`);
    await writeFile(`${configPath}.tmp`, configToml);
    await rename(`${configPath}.tmp`, configPath);
    if (cancel?.aborted) throw cancel.reason;
    const command = commandFor(configPath);
    logger.info("starting daemon", { label, command });
    if (options.logFile !== undefined && !logStream)
      logStream = createWriteStream(options.logFile, { flags: "a" });
    logStream?.write(`== cuzkit bench: starting the daemon (${label}) at ${new Date().toISOString()}\n`);
    stopping = false;
    killReason = undefined;
    starts++;
    const spawnedAt = clock.now();
    // An exit before the daemon answered is the start's error, not a crash to act on.
    const started = { answered: false };
    // detached: the daemon gets its own process group so stop() reaches the shell's children too.
    const proc = spawn(command, {
      shell: true,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, ...options.env },
    });
    child = proc;
    process.once("exit", onProcessExit);
    proc.stdout?.on("data", (chunk: Buffer) => {
      remember(chunk);
      options.onOutput?.(chunk, "stdout");
    });
    proc.stderr?.on("data", (chunk: Buffer) => {
      remember(chunk);
      options.onOutput?.(chunk, "stderr");
    });
    exited = watchExit(proc, started);
    await awaitReady(proc, spawnedAt, exited, started, cancel);
  }

  /** Waits until every process of the daemon's group is gone (the shell can exit before the daemon it ran). */
  async function groupGone(proc: ChildProcess, waitMs: number): Promise<boolean> {
    const until = clock.now() + waitMs;
    for (;;) {
      try {
        if (proc.pid === undefined) return true;
        process.kill(-proc.pid, 0);
      } catch {
        return true;
      }
      if (clock.now() >= until) return false;
      await sleep(20);
    }
  }

  async function stop(): Promise<DaemonExit | undefined> {
    const proc = child;
    if (!proc || !exited) return undefined;
    stopping = true;
    signalGroup(proc, "SIGTERM");
    const grace = new AbortController();
    sleep(graceMs, grace.signal).then(
      () => signalGroup(proc, "SIGKILL"),
      () => {}, // the daemon ended within the grace period
    );
    try {
      return await exited;
    } finally {
      grace.abort();
    }
  }

  async function kill(reason: string): Promise<DaemonExit | undefined> {
    const proc = child;
    if (!proc || !exited) return undefined;
    killReason = reason;
    signalGroup(proc, "SIGKILL");
    return exited;
  }

  return {
    start,
    stop,
    kill,
    get running() {
      return child !== undefined;
    },
    crashes,
    get starts() {
      return starts;
    },
    onCrash(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    logTail: () => [...tail],
  };
}
