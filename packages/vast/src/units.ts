/**
 * Vast.ai's units and ours. The API reports memory (`cpu_ram`, `gpu_ram`, `gpu_total_ram`,
 * `mem_usage`) in "MB" and disk (`disk_space`, `disk`, `allocated_storage`) in GB. The official
 * CLI converts the GB people type into API MB by multiplying by 1000, so we read one API MB as
 * 1e6 bytes and one API GB as 1e9 bytes.
 *
 * Why not MiB: sample values such as `gpu_ram: 24576` for a 24 GiB card look like MiB. If
 * they are, reading them as 1e6 bytes under-states memory by 4.6 %, which errs on the safe
 * side when sizing a daemon; reading MB as MiB would over-state it. Filters convert the other
 * way and round so that a minimum is never relaxed.
 */

/** Bytes in one API "MB" (memory fields). */
export const vastMegabyteBytes = 1e6;

/** Bytes in one API "GB" (disk fields). */
export const vastGigabyteBytes = 1e9;

/** Converts an API memory value (MB) to bytes. */
export function vastMbToBytes(mb: number): number {
  return Math.round(mb * vastMegabyteBytes);
}

/** Converts an API disk value (GB) to bytes. */
export function vastGbToBytes(gb: number): number {
  return Math.round(gb * vastGigabyteBytes);
}

/** How to round a unit conversion in a filter so it never admits what the caller excluded. */
export type FilterRounding = "up" | "down" | "nearest";

/** Converts bytes to API units of `unitBytes`, rounded as `rounding` says. */
export function bytesToVastUnits(bytes: number, unitBytes: number, rounding: FilterRounding): number {
  const value = bytes / unitBytes;
  if (rounding === "up") return Math.ceil(value - 1e-9);
  if (rounding === "down") return Math.floor(value + 1e-9);
  return Math.round(value);
}
