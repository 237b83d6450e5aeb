import {
  bytesToGigabytes,
  bytesToMebibytes,
  gigabytesToBytes,
  MiB,
  mebibytesToBytes,
  type UnitRounding,
} from "@cuzkit/core";

/**
 * Vast.ai's units and ours, in one place (the conversions themselves are core's, shared with
 * every package).
 *
 * Memory fields (`cpu_ram`, `gpu_ram`, `gpu_total_ram`, `mem_usage`) are MiB, although the docs
 * label them "MB": they are nvidia-smi and /proc/meminfo totals (an RTX 4090 reports 24564, an
 * H100 80GB 81559). vast-cli's own newer code says "The column is MiB (binary)"
 * (vastai/cli/util.py, v1.5.2), and SkyPilot and gpuhunt divide by 1024. Disk fields
 * (`disk_space`, `disk`, `allocated_storage`) are nominal GB (1e9 bytes).
 */

/** Bytes in one unit of an API memory field (MiB). */
export const vastMemoryUnitBytes = MiB;

/** Bytes in one unit of an API disk field (GB). */
export const vastDiskUnitBytes = 1e9;

/** An API memory value (MiB) in bytes. */
export function vastMemoryToBytes(mib: number): number {
  return mebibytesToBytes(mib);
}

/** Bytes as an API memory value (MiB), rounded as `rounding` says. */
export function bytesToVastMemory(bytes: number, rounding: UnitRounding): number {
  return bytesToMebibytes(bytes, rounding);
}

/** An API disk value (GB) in bytes. */
export function vastDiskToBytes(gb: number): number {
  return gigabytesToBytes(gb);
}

/** Bytes as an API disk value (GB), rounded as `rounding` says. */
export function bytesToVastDisk(bytes: number, rounding: UnitRounding): number {
  return bytesToGigabytes(bytes, rounding);
}

/**
 * How far a GPU-memory bound is widened so that a card of the class asked for passes: 7 %.
 * Cards report less than their class: an RTX 4090 ("24 GB") 24564 MiB, an A10 23028 MiB and an
 * A40 46068 MiB (ECC reserves 1/16 of the memory), an H100 80GB 81559 MiB. 7 % admits all of
 * those and still separates neighbouring classes (a 22 GiB card does not pass 24 GiB, 44.6 GiB is
 * above every 40 GB card). gpuhunt filters Vast.ai offers the same way (`gpu_ram >= GiB x 1024 x
 * 0.93`, `<= x 1.07`, dstackai/gpuhunt src/gpuhunt/providers/vastai.py).
 */
export const gpuMemoryClassTolerance = 0.07;
