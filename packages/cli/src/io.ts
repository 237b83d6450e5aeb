import type { Writable } from "node:stream";

/**
 * What a command may touch of the outside world. The real process passes its own streams and
 * environment; tests pass buffers and a fake environment, so commands run in-process.
 */
export interface CliIO {
  /** Where results go (tables, JSON, TOML). */
  stdout: Writable & { isTTY?: boolean };
  /** Where progress, warnings and errors go. */
  stderr: Writable & { isTTY?: boolean };
  /** Environment variables (CUZK_ADDR, VAST_API_KEY, ...). */
  env: Record<string, string | undefined>;
  /** Working directory for relative paths. */
  cwd: string;
}

/** The CliIO of the running process. */
export function processIO(): CliIO {
  return { stdout: process.stdout, stderr: process.stderr, env: process.env, cwd: process.cwd() };
}

/**
 * Thrown by a command to end the process with `exitCode` after it has printed what it must
 * (for example 2 when a benchmark is below its threshold). Not an error to report.
 */
export class CommandExit extends Error {
  constructor(readonly exitCode: number) {
    super(`exit ${exitCode}`);
    this.name = "CommandExit";
  }
}
