import { Writable } from "node:stream";
import type { CliIO } from "../io.js";

/** A writable stream that keeps what is written, for command tests. */
export function memorySink(isTTY = false): Writable & { isTTY: boolean; text(): string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  return Object.assign(stream, { isTTY, text: () => chunks.join("") });
}

/** A CliIO over memory streams, a given environment and working directory. */
export function memoryIO(options: { env?: Record<string, string>; cwd?: string } = {}) {
  const stdout = memorySink();
  const stderr = memorySink();
  const io: CliIO = { stdout, stderr, env: options.env ?? {}, cwd: options.cwd ?? process.cwd() };
  return { io, stdout: () => stdout.text(), stderr: () => stderr.text() };
}

/** Runs a command in-process with `args`; resolves with what it threw (undefined when it finished). */
export async function parseCapturingError(
  command: { parseAsync(args: string[], options: { from: "user" }): Promise<unknown> },
  args: string[],
): Promise<unknown> {
  try {
    await command.parseAsync(args, { from: "user" });
    return undefined;
  } catch (error) {
    return error;
  }
}
