// What `cuzkit tune` does once its flags are parsed: read or take the machine, then tune it and
// print the config in the format asked for, or check an existing cuzk.toml against it.
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import {
  assertDaemonListen,
  type DaemonDialect,
  daemonDialects,
  formatBytes,
  type HardwareSpec,
  InvalidInputError,
  type WorkloadPreset,
  workloadPresets,
} from "@cuzkit/core";
import {
  checkConfig,
  type DetectedHardware,
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
} from "@cuzkit/tuner";
import { writeFileAtomic } from "../common.js";
import { exampleMachineFlags, resolveHardwareFlags } from "../hardware-flags.js";
import { type CliIO, CommandExit } from "../io.js";
import { checkWritablePath } from "../writable-path.js";
import { type Format, formats, parseSafetyMargin, type TuneCommandDeps, type TuneFlags } from "./tune.js";

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
export async function runTune(io: CliIO, deps: TuneCommandDeps, flags: TuneFlags): Promise<void> {
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
