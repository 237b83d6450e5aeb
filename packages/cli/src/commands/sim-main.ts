// Runs `cuzkit sim` as its own process, without the rest of the cuzkit program: used by the
// tests that exercise the command as a real child process (node --import tsx sim-main.ts ...).
import { CuzkitError } from "@cuzkit/core";
import { CommanderError } from "commander";
import { CommandExit, processIO } from "../io.js";
import { createSimCommand } from "./sim.js";

const io = processIO();
let code = 0;
try {
  await createSimCommand(io).exitOverride().parseAsync(process.argv.slice(2), { from: "user" });
} catch (error) {
  if (error instanceof CommandExit) code = error.exitCode;
  else if (error instanceof CommanderError) code = error.exitCode;
  else if (CuzkitError.is(error)) {
    io.stderr.write(`error: ${error.message}\n`);
    if (error.hint) io.stderr.write(`hint: ${error.hint}\n`);
    code = 1;
  } else {
    io.stderr.write(`error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    code = 1;
  }
}
process.exit(code);
