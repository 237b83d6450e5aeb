import { daemonDialects, InvalidInputError } from "@cuzkit/core";
import { Command, Option } from "commander";
import { defaultDemoProfile, demoProfiles, exampleMinProofsPerHour } from "../demo-profiles.js";
import { addHardwareOptions, describesMachine, type HardwareFlags } from "../hardware-flags.js";
import type { CliIO } from "../io.js";
import { positiveNumberOption, wholeNumberOption } from "../parse.js";

/** The flags of `cuzkit demo`, as commander parses them. */
export interface DemoFlags extends HardwareFlags {
  profile?: string;
  dialect: "partition-workers" | "budget";
  proofs: number;
  seconds: number;
  minProofsPerHour: number;
  json?: boolean;
}

/** The demo's machine, dialect, run length, threshold and output. */
function addDemoOptions(command: Command): Command {
  return command
    .option(
      "--profile <name>",
      `machine: ${Object.keys(demoProfiles).join(", ")} (default: ${defaultDemoProfile}; not with --ram/--cores/--gpus/--detect)`,
    )
    .addOption(
      new Option("--dialect <dialect>", "daemon dialect to tune for")
        .choices(daemonDialects)
        .default("partition-workers"),
    )
    .option("--proofs <n>", "timed proofs of each run", wholeNumberOption("--proofs", 1, "12"), 12)
    .option(
      "--seconds <n>",
      "about how long both runs should take, in real seconds",
      positiveNumberOption("--seconds", "20"),
      20,
    )
    .option(
      "--min-proofs-per-hour <n>",
      "the minimum, machine time (an example: the incidents' value is not stated)",
      positiveNumberOption("--min-proofs-per-hour", "40"),
      exampleMinProofsPerHour,
    )
    .option("--json", "print both reports (machine time) as JSON");
}

/** `cuzkit demo`: the README's main command; needs no GPU, network or files. */
export function createDemoCommand(io: CliIO): Command {
  const command = addDemoOptions(
    new Command("demo").description(
      "tune a machine from the incidents, benchmark it on the simulated daemon, and replay the incident's own config",
    ),
  );
  addHardwareOptions(command)
    .addHelpText(
      "after",
      "\nAll times and rates shown are the simulated machine's (machine time), not the demo's real seconds.\n\nExamples:\n  cuzkit demo\n  cuzkit demo --profile bc-canada-125gb\n  cuzkit demo --ram 512GiB --cores 64 --gpus 2xRTX4090 --dialect budget",
    )
    .action(async (flags: DemoFlags) => {
      checkProfileFlags(flags);
      // The simulator, the tuner and the benchmark harness load only when the demo runs.
      await (await import("./demo-run.js")).runDemoCommand(io, flags);
    });
  return command;
}

/** --profile names a machine from the incidents: describing one as well is refused. */
function checkProfileFlags(flags: DemoFlags): void {
  if (flags.profile !== undefined && (flags.detect || describesMachine(flags))) {
    throw new InvalidInputError(
      "--profile cannot be combined with --ram/--cores/--gpus/--memory-limit/--detect",
      {
        hint: "use --profile NAME for a machine from the incidents, or describe your own with the machine flags",
      },
    );
  }
}
