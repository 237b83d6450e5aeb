import { type HardwareSpec, hardwareFrom, InvalidInputError } from "@cuzkit/core";
import { type DetectedHardware, type DetectOptions, detectHardware } from "@cuzkit/tuner";
import type { Command } from "commander";

/** Flags that describe a machine, shared by bench and demo. */
export interface HardwareFlags {
  detect?: boolean;
  ram?: string;
  cores?: number;
  gpus?: string;
  memoryLimit?: string;
}

/** Adds --detect / --ram / --cores / --gpus / --memory-limit to a command. */
export function addHardwareOptions(command: Command): Command {
  return command
    .option("--detect", "read this machine (RAM, container limits, CPU quota, GPUs via nvidia-smi)")
    .option("--ram <size>", 'host RAM, e.g. "256GiB" or "251GB"')
    .option("--cores <n>", "CPU threads the daemon may use", (text) => Number(text))
    .option("--gpus <list>", 'GPUs, e.g. "2xRTX3090" or "2xA40:48GiB"')
    .option("--memory-limit <size>", "the container's memory allotment when lower than the host RAM");
}

/** The machine the flags describe, or undefined when they describe none. */
export async function resolveHardwareFlags(
  flags: HardwareFlags,
  detect: (options?: DetectOptions) => Promise<DetectedHardware> = detectHardware,
): Promise<HardwareSpec | undefined> {
  const given = flags.ram !== undefined || flags.cores !== undefined || flags.gpus !== undefined;
  if (flags.detect && given) {
    throw new InvalidInputError("--detect cannot be combined with --ram/--cores/--gpus", {
      hint: "use either --detect or describe the machine",
    });
  }
  if (flags.detect) return (await detect()).spec;
  if (!given) return undefined;
  if (flags.ram === undefined || flags.cores === undefined) {
    throw new InvalidInputError("describing a machine needs both --ram and --cores", {
      hint: "for example --ram 256GiB --cores 32 --gpus 2xRTX3090",
    });
  }
  return hardwareFrom({
    ram: flags.ram,
    cores: flags.cores,
    ...(flags.gpus === undefined ? {} : { gpus: flags.gpus }),
    ...(flags.memoryLimit === undefined ? {} : { memoryLimit: flags.memoryLimit }),
  });
}
