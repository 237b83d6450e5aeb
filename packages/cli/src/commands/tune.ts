import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import {
  assertDaemonListen,
  type DaemonDialect,
  daemonDialects,
  formatBytes,
  type HardwareSpec,
  InvalidInputError,
  parseSizeWithUnit,
  type WorkloadPreset,
  workloadPresets,
} from "@cuzkit/core";
import {
  checkConfig,
  type DetectedHardware,
  type DetectOptions,
  defaultCurioCuzkAddress,
  emitCurio,
  emitCuzkToml,
  emitEnv,
  emitJson,
  emitText,
  formatCheckText,
  recommend,
  type TuneOptions,
  toTuneReport,
  tuneDefaults,
} from "@cuzkit/tuner";
import { Command } from "commander";
import { writeFileAtomic } from "../common.js";
import {
  addHardwareOptions,
  exampleMachineFlags,
  type HardwareFlags,
  resolveHardwareFlags,
} from "../hardware-flags.js";
import { type CliIO, CommandExit } from "../io.js";
import { durationOption, durationText, wholeNumberOption } from "../parse.js";
import { checkWritablePath } from "../writable-path.js";

/** What `createTuneCommand` can be given besides the IO, for tests and embedding. */
export interface TuneCommandDeps {
  /** Reads the machine for `--detect`. Default: @cuzkit/tuner detectHardware(). */
  detect?: (options?: DetectOptions) => Promise<DetectedHardware>;
}

const formats = ["text", "json", "toml", "env", "curio"] as const;
type Format = (typeof formats)[number];

interface TuneFlags extends HardwareFlags {
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

function parseChoice<T extends string>(flag: string, value: string, choices: readonly T[]): T {
  if ((choices as readonly string[]).includes(value)) return value as T;
  throw new InvalidInputError(`unknown ${flag} "${value}"`, { hint: `use one of: ${choices.join(", ")}` });
}

async function hardwareFor(
  flags: TuneFlags,
  deps: TuneCommandDeps,
): Promise<HardwareSpec | DetectedHardware> {
  const hardware = await resolveHardwareFlags(flags, deps.detect);
  if (hardware === undefined) {
    throw new InvalidInputError("no hardware given: --ram, --cores, --gpus missing", {
      hint: `pass --detect to read this machine, or describe it: ${exampleMachineFlags} [--memory-limit 240GiB] (--gpus none sizes for memory only)`,
    });
  }
  return hardware;
}

/** The output format and the tuner's options, from the flags. */
function tuneOptionsOf(flags: TuneFlags): { format: Format; options: TuneOptions } {
  const format = parseChoice<Format>("--format", flags.format, formats);
  const dialect =
    flags.dialect === undefined
      ? undefined
      : parseChoice<DaemonDialect>("--dialect", flags.dialect, daemonDialects);
  const workload =
    flags.workload === undefined
      ? undefined
      : parseChoice<WorkloadPreset>(
          "--workload",
          flags.workload,
          Object.keys(workloadPresets) as WorkloadPreset[],
        );
  const options: TuneOptions = {
    dialect,
    workload,
    ...parseSafetyMargin(flags.safetyMargin),
    concurrency: flags.concurrency,
    minProveTimeoutSec:
      flags.minProveTimeout === undefined ? undefined : Math.ceil(flags.minProveTimeout / 1000),
    postSlots: flags.postSlots,
  };
  return { format, options };
}

type Emit = (text: string) => Promise<void>;

/** `--check FILE`: the file checked against the machine, as text or JSON; exit 2 when it would fail. */
async function runCheck(
  io: CliIO,
  file: string,
  hardware: HardwareSpec | DetectedHardware,
  options: TuneOptions,
  format: Format,
  emit: Emit,
): Promise<void> {
  if (format !== "text" && format !== "json") {
    throw new InvalidInputError(`--check prints text or json, not ${format}`, {
      hint: "use --format text or --format json",
    });
  }
  const path = resolve(io.cwd, file);
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    throw new InvalidInputError(`cannot read ${path}`, {
      hint: "give the path of an existing cuzk.toml",
      cause: error,
    });
  }
  const result = checkConfig(hardware, text, options);
  await emit(
    format === "json"
      ? `${JSON.stringify({ ...result, recommendation: toTuneReport(result.recommendation) }, null, 2)}\n`
      : formatCheckText(result),
  );
  if (result.exitCode !== 0) throw new CommandExit(result.exitCode);
}

/** `cuzkit tune`'s action: check a file, or tune and print in the format asked for (exit 2 when nothing fits, unless forced). */
async function runTune(io: CliIO, deps: TuneCommandDeps, flags: TuneFlags): Promise<void> {
  const { format, options } = tuneOptionsOf(flags);
  // The address is written as daemon.listen: refuse what the daemon would refuse at start.
  if (flags.addr !== undefined) assertDaemonListen(flags.addr, "--addr");
  if (flags.out !== undefined) await checkWritablePath("--out", flags.out, io, "cuzk.toml");
  const hardware = await hardwareFor(flags, deps);
  const force = flags.force === true;
  const emit: Emit = async (text) => {
    if (flags.out === undefined) {
      io.stdout.write(text);
      return;
    }
    const path = await writeFileAtomic(flags.out, text, io, "--out");
    io.stderr.write(`wrote ${path} (${formatBytes(Buffer.byteLength(text))})\n`);
  };
  if (flags.check !== undefined) return runCheck(io, flags.check, hardware, options, format, emit);
  const recommendation = recommend(hardware, { ...options, listen: flags.addr });
  const address = flags.addr ?? defaultCurioCuzkAddress;
  switch (format) {
    case "toml":
      await emit(emitCuzkToml(recommendation, { force }));
      return;
    case "env":
      await emit(emitEnv(recommendation, { force }));
      return;
    case "curio":
      await emit(emitCurio(recommendation, { force, address }));
      return;
    case "json":
      await emit(emitJson(recommendation, { force, address }));
      break;
    default:
      await emit(emitText(recommendation, { force }));
  }
  if (!recommendation.feasible && !force) throw new CommandExit(2);
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
  return addHardwareOptions(command)
    .option(
      "--dialect <dialect>",
      `daemon version that reads the config: budget (the current daemon) | partition-workers (the older one the incidents ran); default ${tuneDefaults.dialect}, also with --check`,
    )
    .option(
      "--workload <name>",
      `${Object.keys(workloadPresets).join(" | ")} (default: ${tuneDefaults.workload})`,
    )
    .option(
      "--safety-margin <margin>",
      `RAM kept free: "${tuneDefaults.safetyMarginFraction * 100}%" (default), "0.15" or "16GiB"; never below ${formatBytes(tuneDefaults.minSafetyMarginBytes)} for a percentage`,
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
      `least Curio ProveTimeout (default ${durationText(tuneDefaults.minProveTimeoutSec * 1000)}; a timeout re-runs the same request id as a duplicate)`,
      durationOption("--min-prove-timeout", "45m"),
    )
    .option(
      "--post-slots <n>",
      `Curio MaxPending slots left for WindowPoSt/WinningPoSt beyond the concurrency (default ${tuneDefaults.postSlots})`,
      wholeNumberOption("--post-slots", 0, "2"),
    )
    .option("--check <file>", "check an existing cuzk.toml against the machine instead of tuning")
    .option(
      "--addr <address>",
      `the daemon's address for Curio's [Cuzk] Address (default ${defaultCurioCuzkAddress}); also written as daemon.listen, so a literal IP:port or unix:// path`,
    )
    .configureOutput({ writeOut: (s) => io.stdout.write(s), writeErr: (s) => io.stderr.write(s) })
    .action((flags: TuneFlags) => runTune(io, deps, flags));
}
