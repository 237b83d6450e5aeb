// The flags that describe a machine, defined once for tune, bench, demo and sim: --detect, --ram,
// --cores, --gpus, --memory-limit. Sizes always need a unit (core's parser refuses "256" and "256G").
import { type GpuSpec, type HardwareSpec, hardwareFrom, InvalidInputError, parseGpuList } from "@cuzkit/core";
import type { DetectedHardware, DetectOptions } from "@cuzkit/tuner";
import { type Command, Option } from "commander";
import { sizeOption, wholeNumberOption } from "./parse.js";

/** The parsed machine flags. */
export interface HardwareFlags {
  detect?: boolean | undefined;
  /** --ram in bytes. */
  ram?: number | undefined;
  cores?: number | undefined;
  gpus?: string | undefined;
  /** --memory-limit in bytes. */
  memoryLimit?: number | undefined;
}

/** The example machine every hint gives. */
export const exampleMachineFlags = "--ram 256GiB --cores 32 --gpus 2xRTX3090";

/** The option objects, so a command can add a default (the simulator) before adding them. */
export function hardwareOptions(): { ram: Option; cores: Option; gpus: Option; memoryLimit: Option } {
  return {
    ram: new Option(
      "--ram <size>",
      'host RAM with a unit: "256GiB" (binary) or "251GB" (decimal); a bare number or "256G" is refused',
    ).argParser(sizeOption("--ram", "256GiB")),
    cores: new Option("--cores <n>", "CPU threads the daemon may use").argParser(
      wholeNumberOption("--cores", 1, "32"),
    ),
    gpus: new Option(
      "--gpus <list>",
      'GPUs: COUNTxMODEL[:VRAM],... such as "2xRTX3090", "2xA40:48GiB" or "none"',
    ),
    memoryLimit: new Option(
      "--memory-limit <size>",
      "the container's RAM share when lower than the host's (Vast.ai: memory.low), with a unit",
    ).argParser(sizeOption("--memory-limit", "240GiB")),
  };
}

/** Adds --detect, --ram, --cores, --gpus and --memory-limit to a command. */
export function addHardwareOptions(command: Command): Command {
  const options = hardwareOptions();
  return command
    .option(
      "--detect",
      "read this machine: RAM, container limits (cgroups), CPU quota, GPUs (nvidia-smi); --ram/--cores/--gpus/--memory-limit then override what was read",
    )
    .addOption(options.ram)
    .addOption(options.cores)
    .addOption(options.gpus)
    .addOption(options.memoryLimit);
}

/** Whether any of --ram/--cores/--gpus/--memory-limit was given. */
export function describesMachine(flags: HardwareFlags): boolean {
  return (
    flags.ram !== undefined ||
    flags.cores !== undefined ||
    flags.gpus !== undefined ||
    flags.memoryLimit !== undefined
  );
}

/** Applies --ram/--cores/--gpus/--memory-limit on top of detected values, marking their source. */
function overrideDetected(detected: DetectedHardware, flags: HardwareFlags): DetectedHardware {
  const spec: HardwareSpec = { ...detected.spec };
  const readings = { ...detected.readings };
  if (flags.ram !== undefined) {
    spec.ramBytes = flags.ram;
    readings.ramBytes = { value: spec.ramBytes, source: "--ram" };
    if (spec.usableRamBytes > spec.ramBytes) {
      spec.usableRamBytes = spec.ramBytes;
      readings.usableRamBytes = { value: spec.ramBytes, source: "--ram" };
    }
  }
  if (flags.memoryLimit !== undefined) {
    spec.usableRamBytes = Math.min(spec.ramBytes, flags.memoryLimit);
    readings.usableRamBytes = { value: spec.usableRamBytes, source: "--memory-limit" };
  }
  if (flags.cores !== undefined) {
    spec.cpuThreads = flags.cores;
    spec.hostCpuThreads = Math.max(spec.hostCpuThreads ?? spec.cpuThreads, spec.cpuThreads);
    readings.cpuThreads = { value: spec.cpuThreads, source: "--cores" };
  }
  if (flags.gpus !== undefined) {
    const gpus: GpuSpec[] = parseGpuList(flags.gpus);
    spec.gpus = gpus;
    readings.gpus = { value: gpus, source: "--gpus" };
  }
  return { ...detected, spec, readings };
}

/**
 * The machine the flags describe: detected (with the given flags overriding what was read), or
 * described by --ram, --cores and --gpus together; undefined when they describe none. `detect`
 * reads the machine; default @cuzkit/tuner's detectHardware.
 */
export async function resolveHardwareFlags(
  flags: HardwareFlags,
  detect?: (options?: DetectOptions) => Promise<DetectedHardware>,
): Promise<DetectedHardware | HardwareSpec | undefined> {
  if (flags.detect) {
    // The tuner loads only when the machine is read, not when the flags are defined.
    const read = detect ?? (await import("@cuzkit/tuner")).detectHardware;
    return overrideDetected(await read(), flags);
  }
  if (!describesMachine(flags)) return undefined;
  const missing = (["ram", "cores", "gpus"] as const)
    .filter((key) => flags[key] === undefined)
    .map((key) => `--${key}`);
  if (missing.length > 0) {
    throw new InvalidInputError(
      `describing a machine needs --ram, --cores and --gpus: ${missing.join(", ")} missing`,
      {
        hint: `pass --detect to read this machine, or describe it: ${exampleMachineFlags} [--memory-limit 240GiB] (--gpus none sizes for memory only)`,
      },
    );
  }
  return hardwareFrom({
    ram: flags.ram ?? 0,
    cores: flags.cores ?? 0,
    gpus: flags.gpus ?? "",
    memoryLimit: flags.memoryLimit,
  });
}

/** The HardwareSpec of what resolveHardwareFlags returned. */
export function specOf(hardware: DetectedHardware | HardwareSpec): HardwareSpec {
  return "spec" in hardware && "readings" in hardware ? hardware.spec : hardware;
}
