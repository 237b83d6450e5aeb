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
