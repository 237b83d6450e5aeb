import type { Command } from "commander";
import { interruptOnSignals } from "../../interrupt.js";
import { positiveNumberOption, wholeNumberOption } from "../../parse.js";
import type { FleetContext } from "./context.js";

interface DemoFlags {
  seed?: number;
  hours?: number;
  inProcess?: boolean;
}

/**
 * `cuzkit fleet demo`: the fleet's economics on a simulated market with hidden truth, through
 * real `cuzkit agent` and `cuzkit sim` processes (or, with --in-process, the fast model of the
 * same decisions that the economics benchmark runs).
 */
export function addDemoCommand(fleet: Command, ctx: FleetContext): void {
  fleet
    .command("demo")
    .description(
      "the fleet on a simulated market with hidden truth: real agents and simulated daemons, the ranking before and after measurement, what was kept and destroyed and why, the learnt calibration, $ per 1000 proofs",
    )
    .option("--seed <n>", "the seed of each machine's own spread (default 1)", wholeNumberOption("--seed", 1))
    .option(
      "--hours <n>",
      "simulated hours (default 20, about 75 s; with --in-process 12)",
      positiveNumberOption("--hours"),
    )
    .option(
      "--in-process",
      "no processes: the fleet's ranking, calibration and planner on modelled machines (what `pnpm bench:economics` runs), with spec-only and oracle fleets for comparison",
    )
    .addHelpText(
      "after",
      `
Each rental on the simulated market is a local \`cuzkit agent\` in front of a \`cuzkit sim\` whose
speed is the machine's hidden truth (slow memory, a weak CPU, a host that dies, parameters that
never finish); the real manager and the \`fleet run\` loop see only what the agents measure.
A simulated hour takes 3.6 s. Ctrl-C ends the run early and still prints the summary.`,
    )
    .action(async (flags: DemoFlags) => {
      const { runEconomyDemo, runMarketDemo } = await import("@cuzkit/fleet/demo");
      if (flags.inProcess) {
        runEconomyDemo({ seed: flags.seed, hours: flags.hours, write: ctx.print });
        return;
      }
      // The client and the simulator load only for the market demo, not with the command's definition.
      const [{ porepRequest }, { createSyntheticC1 }] = await Promise.all([
        import("@cuzkit/client"),
        import("@cuzkit/sim"),
      ]);
      const request = await porepRequest({ minerId: 1000, c1: createSyntheticC1(), sectorNumber: 1 });
      // The agents and sims are this same program: the node binary, its flags (a loader when run
      // from source) and the script.
      const cuzkit = ctx.deps.cuzkitCommand ?? {
        command: process.execPath,
        args: [...process.execArgv, process.argv[1] ?? ""],
      };
      const interrupt = interruptOnSignals(["SIGINT", "SIGTERM"]);
      try {
        await runMarketDemo({
          cuzkit,
          request,
          seed: flags.seed,
          hours: flags.hours ?? 20,
          write: ctx.print,
          signal: interrupt.signal,
        });
      } finally {
        interrupt.dispose();
      }
    });
}
