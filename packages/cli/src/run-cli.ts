import { CuzkitError } from "@cuzkit/core";
import { CommanderError } from "commander";
import { cliHint, cliMessage } from "./cli-hints.js";
import { type CliIO, CommandExit, processIO } from "./io.js";
import { createProgram } from "./program.js";

/**
 * Runs the `cuzkit` command line with `argv` (without node and script) and returns the exit
 * code instead of exiting, so tests can run it in-process. Errors print their message and the
 * hint, not a stack trace; `--debug` adds the stack and the causes.
 */
export async function runCli(argv: readonly string[], io: CliIO = processIO()): Promise<number> {
  const debug = argv.includes("--debug");
  const program = createProgram(io);
  try {
    await program.parseAsync([...argv], { from: "user" });
    return 0;
  } catch (error) {
    return reportError(error, io, debug);
  }
}

function reportError(error: unknown, io: CliIO, debug: boolean): number {
  if (error instanceof CommandExit) return error.exitCode;
  if (error instanceof CommanderError) {
    // Commander has already printed its message (unknown option, missing argument, --help).
    return error.exitCode;
  }
  if (CuzkitError.is(error)) {
    io.stderr.write(`error: ${cliMessage(error)}\n`);
    const hint = cliHint(error);
    if (hint) io.stderr.write(`hint: ${hint}\n`);
  } else {
    const message = error instanceof Error ? error.message : String(error);
    io.stderr.write(`error: ${message}\n`);
    if (!debug)
      io.stderr.write(
        "hint: this looks like a bug in cuzkit; run again with --debug and report the output\n",
      );
  }
  if (debug) {
    let current: unknown = error;
    while (current !== undefined) {
      io.stderr.write(`${current instanceof Error ? (current.stack ?? current.message) : String(current)}\n`);
      current = current instanceof Error ? current.cause : undefined;
      if (current !== undefined) io.stderr.write("caused by: ");
    }
  }
  return 1;
}
