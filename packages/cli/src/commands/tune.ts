import { formatBytes, InvalidInputError, parseSizeWithUnit, workloadPresets } from "@cuzkit/core";
import type { DetectedHardware, DetectOptions, TuneOptions } from "@cuzkit/tuner";
import { Command } from "commander";
import { addHardwareOptions, type HardwareFlags } from "../hardware-flags.js";
import { tunerHelpDefaults } from "../help-defaults.js";
import type { CliIO } from "../io.js";
import { durationOption, durationText, wholeNumberOption } from "../parse.js";

/** What `createTuneCommand` can be given besides the IO, for tests and embedding. */
export interface TuneCommandDeps {
  /** Reads the machine for `--detect`. Default: @cuzkit/tuner detectHardware(). */
  detect?: (options?: DetectOptions) => Promise<DetectedHardware>;
}

/** The --format values. */
export const formats = ["text", "json", "toml", "env", "curio"] as const;
/** One --format value. */
export type Format = (typeof formats)[number];

/** The flags of `cuzkit tune`, as commander parses them. */
export interface TuneFlags extends HardwareFlags {
  dialect?: string;
  workload?: string;
  safetyMargin?: string;
  concurrency?: number;
  format: string;
  out?: string;
  force?: boolean;
  check?: string;
  addr?: string;
  minProveTimeout?: number;
  postSlots?: number;
}

/** "10%" and "0.1" are fractions of the usable RAM; "16GiB" is a fixed margin. */
export function parseSafetyMargin(
  text: string | undefined,
): Pick<TuneOptions, "safetyMarginFraction" | "minSafetyMarginBytes"> {
  if (text === undefined) return {}; // no --safety-margin: the tuner's defaults
  const trimmed = text.trim();
  const percent = /^(\d+(?:\.\d+)?)\s*%$/.exec(trimmed);
  if (percent) return { safetyMarginFraction: Number(percent[1]) / 100 };
  if (/^(0(\.\d+)?|\.\d+)$/.test(trimmed)) return { safetyMarginFraction: Number(trimmed) };
  if (/^\d+(\.\d+)?\s*[a-zA-Z]+$/.test(trimmed)) {
    return { safetyMarginFraction: 0, minSafetyMarginBytes: parseSizeWithUnit(trimmed, "safety margin") };
  }
  throw new InvalidInputError(`cannot read the safety margin "${text}"`, {
    hint: 'give a percentage of the usable RAM ("10%"), a fraction ("0.1") or a size ("16GiB")',
  });
}

/**
 * `cuzkit tune`: reads the machine (--detect) or takes it from flags, and writes a daemon
 * config that the model expects to stay under the usable RAM, with the benchmark concurrency,
 * the warmup plan, the predicted peak and proofs/hour, and the reasons. `--check FILE` reviews
 * an existing cuzk.toml instead (exit 2 when it would OOM or has misread keys).
 */
export function createTuneCommand(io: CliIO, deps: TuneCommandDeps = {}): Command {
  const command = new Command("tune").description(
    "size the cuzk daemon to this machine (or check a cuzk.toml against it)",
  );
  return (
    addHardwareOptions(command)
      .option(
        "--dialect <dialect>",
        `daemon version that reads the config: budget (the current daemon) | partition-workers (the older one the incidents ran); default ${tunerHelpDefaults.dialect}, also with --check`,
      )
      .option(
        "--workload <name>",
        `${Object.keys(workloadPresets).join(" | ")} (default: ${tunerHelpDefaults.workload})`,
      )
      .option(
        "--safety-margin <margin>",
        `RAM kept free: "${tunerHelpDefaults.safetyMarginFraction * 100}%" (default), "0.15" or "16GiB"; never below ${formatBytes(tunerHelpDefaults.minSafetyMarginBytes)} for a percentage`,
      )
      .option(
        "--concurrency <n>",
        "proofs in flight, fixed instead of tuned (with --check: the concurrency to check)",
        wholeNumberOption("--concurrency", 1, "2"),
      )
      .option("--format <format>", `${formats.join(" | ")}`, "text")
      .option("--out <file>", "write the output to FILE atomically instead of stdout")
      .option(
        "--force",
        "when nothing fits with the safety margin, emit one that fits the usable RAM with the margin waived (refused when none does)",
      )
      .option(
        "--min-prove-timeout <duration>",
        `least Curio ProveTimeout (default ${durationText(tunerHelpDefaults.minProveTimeoutSec * 1000)}; a timeout re-runs the same request id as a duplicate)`,
        durationOption("--min-prove-timeout", "45m"),
      )
      .option(
        "--post-slots <n>",
        `Curio MaxPending slots left for WindowPoSt/WinningPoSt beyond the concurrency (default ${tunerHelpDefaults.postSlots})`,
        wholeNumberOption("--post-slots", 0, "2"),
      )
      .option("--check <file>", "check an existing cuzk.toml against the machine instead of tuning")
      .option(
        "--addr <address>",
        `the daemon's address for Curio's [Cuzk] Address (default ${tunerHelpDefaults.curioCuzkAddress}); also written as daemon.listen, so a literal IP:port or unix:// path`,
      )
      .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
      // The tuner loads only when the command runs.
      .action(async (flags: TuneFlags) => (await import("./tune-run.js")).runTune(io, deps, flags))
  );
}
