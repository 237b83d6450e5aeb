import { CuzkitError } from "@cuzkit/core";
import { CommanderError } from "commander";
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
    return await reportError(error, io, debug);
  }
}

async function reportError(error: unknown, io: CliIO, debug: boolean): Promise<number> {
  if (error instanceof CommandExit) return error.exitCode;
  if (error instanceof CommanderError) {
    // Commander has already printed its message (unknown option, missing argument, --help).
    return error.exitCode;
  }
  if (CuzkitError.is(error)) {
    // The hint tables name every library's error codes: loaded only when there is an error to explain.
    const { cliHint, cliMessage } = await import("./cli-hints.js");
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
