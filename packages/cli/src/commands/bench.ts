import { daemonDialects } from "@cuzkit/core";
import { Command, InvalidArgumentError, Option } from "commander";
import { addrHelp } from "../common.js";
import { addHardwareOptions } from "../hardware-flags.js";
import { benchHelpDefaults, clientHelpDefaults } from "../help-defaults.js";
import type { CliIO } from "../io.js";
import { daemonDefaultParamCache } from "../param-cache.js";
import {
  durationOption,
  durationText,
  parseWholeNumber,
  positiveNumberOption,
  wholeNumberOption,
} from "../parse.js";
import { addProofInputOptions } from "../proof-input-flags.js";
import { addStuckOptions } from "../stuck-flags.js";
import type { BenchFlags } from "./bench-run.js";

function parseWarmup(text: string): "auto" | "none" | number {
  if (text === "auto" || text === "none") return text;
  try {
    return parseWholeNumber(text, { what: "--warmup", min: 0, example: "auto" });
  } catch {
    throw new InvalidArgumentError(
      `"${text}" is not a warmup: give "auto", "none" or a number of warmup proofs`,
    );
  }
}

/** The batch's options: input, count, concurrency, warmup, deadlines, threshold and outputs. */
function addBatchOptions(command: Command): void {
  addStuckOptions(addProofInputOptions(command))
    .option("--count <n>", "timed proofs", wholeNumberOption("--count", 1, "12"), 12)
    .option(
      "--resubmit <n>",
      `resubmit a proof up to N times when the daemon restarts and loses it, at submit or while proving (default ${benchHelpDefaults.resubmit})`,
      wholeNumberOption("--resubmit", 0, "1"),
    )
    .option("--concurrency <n|auto>", "proofs in flight; auto = the tuner's value for this machine", "1")
    .option(
      "--warmup <auto|none|n>",
      "untimed warmup proofs first (auto = one, with the long warmup deadline)",
      parseWarmup,
      "auto",
    )
    .option(
      "--proof-timeout <duration>",
      `deadline of each timed proof (default ${durationText(clientHelpDefaults.proofMs)})`,
      durationOption("--proof-timeout", "45m"),
    )
    .option(
      "--warmup-timeout <duration>",
      `deadline of the warmup (default: the model's ETA x margin, else ${durationText(clientHelpDefaults.warmupProofMs)}; not with --warmup none)`,
      durationOption("--warmup-timeout", "90m"),
    )
    .option(
      "--ready-timeout <duration>",
      `how long to wait for the daemon to answer (default ${durationText(benchHelpDefaults.readyTimeoutMs)})`,
      durationOption("--ready-timeout", "20m"),
    )
    .option(
      "--batch-timeout <duration>",
      "deadline of the timed batch (default: the model's ETA x margin, else none)",
      durationOption("--batch-timeout", "6h"),
    )
    .option(
      "--deadline-margin <n>",
      "phase deadlines are the model's ETA times this",
      positiveNumberOption("--deadline-margin", "3"),
      3,
    )
    .option(
      "--min-proofs-per-hour <n>",
      "threshold: exit 2 when below it",
      positiveNumberOption("--min-proofs-per-hour", "40"),
    )
    .option(
      "--early-verdict",
      "stop the batch once a 99% confidence bound on the report's proofs/hour clears the threshold (from 5 proofs)",
    )
    .option("--json", "print the full report as JSON on stdout")
    .option("--out <file>", "append the report (with per-proof records) to FILE as one JSON line")
    .option(
      "--status-file <file>",
      "keep the current phase, its deadline and the results so far in FILE (JSON)",
    )
    .option(
      "--heartbeat <duration>",
      "print a heartbeat line this often when not on a terminal",
      durationOption("--heartbeat", "30s"),
      30_000,
    )
    .option(
      "--spawn <command>",
      'start and supervise the daemon: e.g. "cuzk-daemon --config {config} --listen {addr}"',
    )
    .option("--config <file>", "with --spawn: use this cuzk.toml instead of tuning one")
    .option(
      "--param-cache <dir>",
      `with --spawn: the daemon's srs.param_cache, where the warmup waits for the PCE file (default: from the config, else ${daemonDefaultParamCache})`,
    )
    .option("--daemon-log <file>", "with --spawn: append everything the daemon prints to FILE");
}

/** With --spawn: the daemon's command, config, machine and crash policy; and the watchdog's timing. */
function addSpawnOptions(command: Command): Command {
  return addHardwareOptions(command)
    .addOption(
      new Option("--dialect <dialect>", "with --spawn and tuning: which daemon reads the config")
        .choices(daemonDialects)
        .default("budget"),
    )
    .addOption(
      new Option(
        "--on-crash <policy>",
        "with --spawn: restart a daemon that died or froze and continue, or stop with a verdict (default: stop)",
      ).choices(["restart", "stop"]),
    )
    .option(
      "--max-restarts <n>",
      `with --spawn --on-crash restart: restarts allowed (default ${benchHelpDefaults.maxRestarts})`,
      wholeNumberOption("--max-restarts", 0, "2"),
    )
    .option(
      "--probe-interval <duration>",
      "watchdog: probe the daemon (GetStatus) this often",
      durationOption("--probe-interval", "10s"),
      10_000,
    )
    .option(
      "--probe-timeout <duration>",
      "watchdog: deadline of one probe",
      durationOption("--probe-timeout", "10s"),
      10_000,
    )
    .option(
      "--unresponsive-after <duration>",
      "watchdog: the daemon died or froze after this long without an answer",
      durationOption("--unresponsive-after", "30s"),
      30_000,
    );
}

/** `cuzkit bench`: warmup plus a timed batch, optionally with the daemon started and watched by us. */
export function createBenchCommand(io: CliIO): Command {
  const command = new Command("bench")
    .description(
      "benchmark a cuzk daemon: warmup, timed batch, proofs/hour and a verdict (MET, BELOW, UNSTABLE, FAILED)",
    )
    .option("--addr <address>", addrHelp);
  addBatchOptions(command);
  addSpawnOptions(command)
    .addHelpText(
      "after",
      `
Verdicts and exit codes:
  0 MET       at or above --min-proofs-per-hour (or no threshold), daemon stable
  2 BELOW     stable, but under the threshold
  3 UNSTABLE  the daemon died, froze or failed proofs during the timed batch (whatever the rate)
  1 FAILED    could not benchmark (bad input, daemon never ready, warmup failed, interrupted)
SIGTERM, SIGHUP and SIGINT print the report of what was done and stop the spawned daemon.

Examples:
  cuzkit bench --addr 127.0.0.1:9820 --c1 /data/32gbench/c1.json --count 12 --concurrency 2
  cuzkit bench --spawn "cuzk-daemon --config {config} --listen {addr}" --addr 127.0.0.1:9820 \\
      --detect --concurrency auto --c1 c1.json --min-proofs-per-hour 40 --early-verdict \\
      --out runs.jsonl --status-file bench-status.json --daemon-log daemon.log
  cuzkit bench --addr 127.0.0.1:9820 --synthetic --json        # against \`cuzkit sim\``,
    )
    // The harness, the client and the tuner load only when a benchmark runs.
    .action(async (flags: BenchFlags) => (await import("./bench-run.js")).runBenchCommand(io, flags));
  return command;
}
