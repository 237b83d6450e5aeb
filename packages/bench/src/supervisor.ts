import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rename, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CuzkitError, type Logger, silentLogger } from "@cuzkit/core";

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
  /** True for exit code 137 or SIGKILL that we did not send: the signature of the kernel's OOM killer. */
  likelyOom: boolean;
  /** One sentence for people. */
  explanation: string;
  /** The last lines the daemon printed. */
  logTail: string[];
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
  /** Resolves once the daemon answers; rejects on timeout. Called after every start. */
  waitForReady: (signal: AbortSignal) => Promise<void>;
  /** Folder for config files. Default: a new temporary folder. */
  workDir?: string;
  /** Lines of daemon output kept for the report. Default: 40. */
  logTailLines?: number;
  /** Grace period between SIGTERM and SIGKILL when stopping, in ms. Default: 10000. */
  stopGraceMs?: number;
  /** Extra environment for the daemon. Default: none. */
  env?: Record<string, string>;
  /** Logger for start/stop/exit events. Default: silent. */
  logger?: Logger;
}

/** A daemon process the benchmark starts, restarts and watches. */
export interface DaemonSupervisor {
  /** Writes `configToml` (atomically) and starts the daemon, resolving once it answers. */
  start(configToml: string, label: string): Promise<void>;
  /** Stops the daemon (SIGTERM, then SIGKILL after the grace period). Idempotent. */
  stop(): Promise<DaemonExit | undefined>;
  /** True while the process runs. */
  readonly running: boolean;
  /** Every exit the supervisor did not ask for, oldest first. */
  readonly crashes: readonly DaemonExit[];
  /** Calls `listener` when the daemon exits unexpectedly; returns an unsubscribe function. */
  onCrash(listener: (exit: DaemonExit) => void): () => void;
  /** The last lines the daemon printed. */
  logTail(): string[];
}

/** Error thrown when the daemon cannot be started or does not answer. */
export class DaemonStartError extends CuzkitError {
  constructor(message: string, hint: string, cause?: unknown) {
    super("DAEMON_START_FAILED", message, { hint, cause });
  }
}

function explain(
  exitCode: number | null,
  signal: NodeJS.Signals | null,
  expected: boolean,
): { likelyOom: boolean; text: string } {
  if (expected) return { likelyOom: false, text: "stopped by the benchmark" };
  const likelyOom = exitCode === 137 || signal === "SIGKILL";
  if (likelyOom) {
    return {
      likelyOom,
      text: `killed (${signal ?? `exit ${exitCode}`}): most likely the kernel's OOM killer; check dmesg and lower partition workers / concurrency (cuzkit tune)`,
    };
  }
  if (signal) return { likelyOom, text: `ended by ${signal}` };
  return { likelyOom, text: `exited with code ${exitCode}${exitCode === 0 ? " (unexpectedly)" : ""}` };
}

/** Starts and watches a daemon process for a benchmark run. */
export function createDaemonSupervisor(options: DaemonSupervisorOptions): DaemonSupervisor {
  const logger = options.logger ?? silentLogger;
  const tailSize = options.logTailLines ?? 40;
  const graceMs = options.stopGraceMs ?? 10_000;
  const createdAt = Date.now();
  const tail: string[] = [];
  const crashes: DaemonExit[] = [];
  const listeners = new Set<(exit: DaemonExit) => void>();
  let child: ChildProcess | undefined;
  let exited: Promise<DaemonExit> | undefined;
  let stopping = false;
  let workDir = options.workDir;

  const remember = (chunk: Buffer) => {
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

  async function start(configToml: string, label: string): Promise<void> {
    if (child)
      throw new DaemonStartError("the daemon is already running", "stop it before starting it again");
    workDir ??= await mkdtemp(join(tmpdir(), "cuzkit-bench-"));
    const configPath = join(workDir, `cuzk-${label}.toml`);
    await writeFile(`${configPath}.tmp`, configToml);
    await rename(`${configPath}.tmp`, configPath);
    const command = commandFor(configPath);
    logger.info("starting daemon", { label, command });
    stopping = false;
    // detached: the daemon gets its own process group so stop() reaches the shell's children too.
    const proc = spawn(command, {
      shell: true,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, ...options.env },
    });
    child = proc;
    proc.stdout?.on("data", remember);
    proc.stderr?.on("data", remember);
    exited = new Promise<DaemonExit>((resolve) => {
      proc.once("exit", (exitCode, signal) => {
        const { likelyOom, text } = explain(exitCode, signal, stopping);
        const exit: DaemonExit = {
          atMs: Date.now() - createdAt,
          exitCode,
          signal,
          expected: stopping,
          likelyOom,
          explanation: text,
          logTail: [...tail],
        };
        child = undefined;
        if (!exit.expected) {
          crashes.push(exit);
          logger.error("daemon exited", { exitCode, signal, explanation: text });
          for (const listener of listeners) listener(exit);
        }
        resolve(exit);
      });
    });
    const readiness = new AbortController();
    const earlyExit = exited.then((exit) => {
      throw new DaemonStartError(
        `the daemon exited while starting: ${exit.explanation}`,
        `check the command and its config; its last output:\n${exit.logTail.slice(-10).join("\n")}`,
      );
    });
    try {
      await Promise.race([options.waitForReady(readiness.signal), earlyExit]);
    } catch (error) {
      readiness.abort();
      if (child) await stop();
      throw CuzkitError.is(error)
        ? error
        : new DaemonStartError(
            "the daemon did not become ready",
            "check that the command starts the daemon on the given address",
            error,
          );
    } finally {
      readiness.abort();
      earlyExit.catch(() => {});
    }
  }

  async function stop(): Promise<DaemonExit | undefined> {
    const proc = child;
    if (!proc || !exited) return undefined;
    stopping = true;
    const kill = (signal: NodeJS.Signals) => {
      try {
        if (proc.pid !== undefined) process.kill(-proc.pid, signal);
      } catch {
        // Already gone.
      }
    };
    kill("SIGTERM");
    const timer = setTimeout(() => kill("SIGKILL"), graceMs);
    try {
      return await exited;
    } finally {
      clearTimeout(timer);
    }
  }

  return {
    start,
    stop,
    get running() {
      return child !== undefined;
    },
    crashes,
    onCrash(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    logTail: () => [...tail],
  };
}
