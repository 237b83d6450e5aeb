import { Command } from "commander";
import { addrHelp } from "../common.js";
import { clientHelpDefaults } from "../help-defaults.js";
import type { CliIO } from "../io.js";
import { durationOption, durationText, wholeNumberOption } from "../parse.js";
import { addProofInputOptions, type ProofInputFlags } from "../proof-input-flags.js";
import { addStuckOptions, type StuckFlags } from "../stuck-flags.js";

/** The flags of `cuzkit prove`, as commander parses them. */
export interface ProveFlags extends ProofInputFlags, StuckFlags {
  addr?: string;
  out?: string;
  warmup?: boolean;
  timeout?: number;
  resubmit?: number;
  restartWait: number;
  json?: boolean;
  verbose?: boolean;
}

/**
 * How long `cuzkit prove` waits for a daemon that refuses connections to come back, in ms.
 * Default 40 s: long enough for a supervisor's restart to start listening, short enough that a
 * daemon nobody restarts is reported within 45 s (the client library's own default is 2 min).
 */
export const defaultRestartWaitMs = 40_000;

/** `cuzkit prove`: one proof through the resilient client; writes the proof bytes. */
export function createProveCommand(io: CliIO): Command {
  const command = new Command("prove")
    .description(
      "prove one proof and write the proof bytes (submit, then await with resume after a broken connection)",
    )
    .option("--addr <address>", addrHelp)
    .option("--out <file>", "write the proof bytes here (written whole or not at all)");
  addProofInputOptions(command)
    .option(
      "--warmup",
      `first proof after a start: use the long warmup deadline (${durationText(clientHelpDefaults.warmupProofMs)})`,
    )
    .option(
      "--timeout <duration>",
      `deadline of the whole proof, e.g. 45m (default ${durationText(clientHelpDefaults.proofMs)}, warmup ${durationText(clientHelpDefaults.warmupProofMs)})`,
      durationOption("--timeout", "45m"),
    )
    .option(
      "--resubmit <n>",
      `resubmit up to N times if the daemon restarts and loses the job (default: ${Object.entries(
        clientHelpDefaults.resubmit,
      )
        .map(([kind, n]) => `${n} for ${kind}`)
        .join(", ")})`,
      wholeNumberOption("--resubmit", 0, "1"),
    )
    .option(
      "--restart-wait <duration>",
      `how long to wait for a daemon that refuses connections to be restarted before failing, e.g. 2m under a supervisor (default ${durationText(defaultRestartWaitMs)})`,
      durationOption("--restart-wait", "2m"),
      defaultRestartWaitMs,
    );
  addStuckOptions(command)
    .option("--json", "print the result as JSON (proof as hex)")
    .option("--verbose", "log every client step")
    .addHelpText(
      "after",
      `
Examples:
  cuzkit prove --addr 127.0.0.1:9820 --c1 /data/32gbench/c1.json --out proof.bin
  cuzkit prove --addr unix:///run/curio/cuzk.sock --kind winning --vanilla winning.json --randomness 00..00
  CUZK_ADDR=127.0.0.1:9820 cuzkit prove --synthetic --json     # against \`cuzkit sim\``,
    )
    // The client (gRPC) loads only when a proof is sent.
    .action(async (flags: ProveFlags) => (await import("./prove-run.js")).runProve(io, flags));
  return command;
}
