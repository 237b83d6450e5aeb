import { createRequire } from "node:module";
import { Command } from "commander";
import { createAgentCommand } from "./commands/agent.js";
import { createBenchCommand } from "./commands/bench.js";
import { createCompletionCommand } from "./commands/completion.js";
import { createDemoCommand } from "./commands/demo.js";
import { createFleetCommand } from "./commands/fleet/index.js";
import { createProveCommand } from "./commands/prove.js";
import { createSimCommand } from "./commands/sim.js";
import { createStatusCommand } from "./commands/status.js";
import { createTuneCommand } from "./commands/tune.js";
import { createVastCommand } from "./commands/vast/index.js";
import type { CliIO } from "./io.js";

const { version } = createRequire(import.meta.url)("../package.json") as { version: string };

/** The `cuzkit` program with every command, writing to `io` and never exiting the process itself. */
export function createProgram(io: CliIO): Command {
  const program = new Command("cuzkit")
    .description(
      "cuzkit: run cuzk GPU provers well: tune the daemon to the machine, prove, benchmark, simulate, rent on Vast.ai",
    )
    .version(version, "-V, --version")
    .option("--debug", "print stack traces and causes of errors")
    .showHelpAfterError("(run with --help for usage)")
    .addHelpText(
      "after",
      `
Examples:
  cuzkit demo                                        # tuned vs. hand-set config on a simulated 2x RTX 3090 box
  cuzkit tune --detect --format toml --out cuzk.toml # size the daemon to this machine
  cuzkit bench --addr 127.0.0.1:9820 --c1 c1.json --concurrency auto --detect
  cuzkit sim --listen 127.0.0.1:9820                 # a simulated daemon to try things against
  cuzkit vast offers --gpu "RTX 4090" --min-ram 256GiB

Environment: CUZK_ADDR (default for --addr), VAST_API_KEY, VAST_URL.`,
    );
  const commands = [
    createTuneCommand(io),
    createBenchCommand(io),
    createProveCommand(io),
    createStatusCommand(io),
    createSimCommand(io),
    createVastCommand(io),
    createDemoCommand(io),
    createFleetCommand(io),
    createAgentCommand(io),
    createCompletionCommand(io, () => program),
  ];
  for (const command of [program, ...commands]) {
    command.exitOverride().configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    });
  }
  for (const command of commands) program.addCommand(command);
  // Subcommands of subcommands (vast offers, ...) write to the same streams and never exit.
  for (const command of commands) {
    for (const sub of command.commands) {
      sub.exitOverride().configureOutput({
        writeOut: (text) => io.stdout.write(text),
        writeErr: (text) => io.stderr.write(text),
      });
    }
  }
  return program;
}
