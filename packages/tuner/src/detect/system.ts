import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { availableParallelism, cpus, totalmem } from "node:os";
import type { Resolved } from "@cuzkit/core";

// The outside world detection reads, injectable so tests run on fixture directories.

/** What a command printed and how it ended. */
export interface CommandResult {
  /** The exit status (0 = success). */
  exitCode: number;
  stdout: string;
  stderr: string;
}

/** Options of detectHardware(). */
export interface DetectOptions {
  /** Root of the proc filesystem. Default "/proc". */
  procRoot?: string | undefined;
  /** Root of the sys filesystem. Default "/sys". */
  sysRoot?: string | undefined;
  /** Reads a text file and rejects when it cannot. Default: fs.readFile as UTF-8. */
  readFile?: ((path: string) => Promise<string>) | undefined;
  /** Runs a program without a shell; rejects (code "ENOENT") when it is missing. Default: child_process.execFile. */
  runCommand?: ((file: string, args: readonly string[]) => Promise<CommandResult>) | undefined;
  /** The operating system; /proc and cgroups are read only on "linux". Default process.platform. */
  platform?: NodeJS.Platform | undefined;
  /** Host RAM in bytes when /proc/meminfo cannot be read. Default os.totalmem(). */
  totalMemoryBytes?: (() => number) | undefined;
  /** Host CPU threads when /sys and /proc cannot be read. Default os.cpus().length. */
  hostCpuCount?: (() => number) | undefined;
  /** CPU threads this process may use when /proc/self/status cannot be read. Default os.availableParallelism(). */
  availableParallelism?: (() => number) | undefined;
  /** Time nvidia-smi may take, in milliseconds. Default 10000. */
  commandTimeoutMs?: number | undefined;
}

/** DetectOptions with every default filled in. */
export type ResolvedDetectOptions = Resolved<DetectOptions>;

function runWithExecFile(timeoutMs: number) {
  return (file: string, args: readonly string[]): Promise<CommandResult> =>
    new Promise((resolve, reject) => {
      execFile(
        file,
        [...args],
        { timeout: timeoutMs, maxBuffer: 1024 * 1024, windowsHide: true },
        (error, stdout, stderr) => {
          if (error && typeof error.code !== "number") {
            reject(error);
            return;
          }
          resolve({
            exitCode: error ? Number(error.code) : 0,
            stdout: String(stdout),
            stderr: String(stderr),
          });
        },
      );
    });
}

/** Fills in the defaults of DetectOptions. */
export function resolveDetectOptions(options: DetectOptions = {}): ResolvedDetectOptions {
  const commandTimeoutMs = options.commandTimeoutMs ?? 10_000;
  return {
    procRoot: options.procRoot ?? "/proc",
    sysRoot: options.sysRoot ?? "/sys",
    readFile: options.readFile ?? ((path) => readFile(path, "utf8")),
    runCommand: options.runCommand ?? runWithExecFile(commandTimeoutMs),
    platform: options.platform ?? process.platform,
    totalMemoryBytes: options.totalMemoryBytes ?? (() => totalmem()),
    hostCpuCount: options.hostCpuCount ?? (() => cpus().length),
    availableParallelism: options.availableParallelism ?? (() => availableParallelism()),
    commandTimeoutMs,
  };
}

/** Reads a file, or undefined when it cannot be read (missing, permission, not a file). */
export async function tryRead(options: ResolvedDetectOptions, path: string): Promise<string | undefined> {
  try {
    return await options.readFile(path);
  } catch {
    return undefined;
  }
}
