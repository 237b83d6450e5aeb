import { formatBytes, parseByteSize } from "./bytes.js";
import { InvalidInputError } from "./errors.js";
import { findGpuModel } from "./model/gpu-catalog.js";

/** One GPU of a machine. */
export interface GpuSpec {
  /** Model name as reported ("RTX 3090", "NVIDIA A40"). */
  model: string;
  /** Total VRAM in bytes. */
  vramBytes: number;
}

/**
 * What a machine offers the daemon. `ramBytes` is what the host reports; `usableRamBytes`
 * is what this container may really use (the cgroup limit or Vast.ai's soft limit), which
 * is what sizing must respect. `cpuThreads` is the CPU threads this process may really use.
 */
export interface HardwareSpec {
  /** Host RAM in bytes (MemTotal). */
  ramBytes: number;
  /** RAM this container may use, in bytes; equals ramBytes when nothing limits it. */
  usableRamBytes: number;
  /** CPU threads this process may use (after the cgroup quota and affinity). */
  cpuThreads: number;
  /** CPU threads of the host as `nproc --all` sees them; equals cpuThreads when unknown. */
  hostCpuThreads?: number | undefined;
  /** GPUs, one entry per device. */
  gpus: GpuSpec[];
}

/** Builds a HardwareSpec from the shorthand people write: `{ ram: "256GiB", cores: 32, gpus: "2xRTX3090" }`. */
export function hardwareFrom(input: {
  ram: string | number;
  cores: number;
  gpus?: string | GpuSpec[] | undefined;
  memoryLimit?: string | number | undefined;
}): HardwareSpec {
  const ramBytes = parseByteSize(input.ram);
  const usableRamBytes =
    input.memoryLimit === undefined ? ramBytes : Math.min(ramBytes, parseByteSize(input.memoryLimit));
  if (!Number.isInteger(input.cores) || input.cores < 1) {
    throw new InvalidInputError(`invalid CPU thread count ${input.cores}`, {
      hint: "give a whole number of CPU threads, such as 32",
    });
  }
  if (ramBytes <= 0)
    throw new InvalidInputError("RAM must be more than 0 bytes", { hint: 'give the RAM, such as "256GiB"' });
  const gpus = typeof input.gpus === "string" ? parseGpuList(input.gpus) : (input.gpus ?? []);
  return { ramBytes, usableRamBytes, cpuThreads: input.cores, hostCpuThreads: input.cores, gpus };
}

/**
 * Parses a GPU list: "2xRTX3090", "RTX 4090", "2xA40:48GiB", "1xRTX3090,1xRTX4090", "none".
 * The VRAM suffix is optional for models the catalog knows.
 */
export function parseGpuList(text: string): GpuSpec[] {
  const trimmed = text.trim();
  if (trimmed === "" || trimmed === "none" || trimmed === "0") return [];
  const gpus: GpuSpec[] = [];
  for (const part of trimmed.split(",")) {
    const match = /^\s*(?:(\d+)\s*[xX*]\s*)?([^:]+?)\s*(?::\s*(.+))?\s*$/.exec(part);
    const count = Number(match?.[1] ?? 1);
    const name = match?.[2] ?? "";
    const known = findGpuModel(name);
    if (!match || count < 1 || count > 64 || name === "") {
      throw new InvalidInputError(`cannot read the GPU list "${text}"`, {
        hint: 'write COUNTxMODEL[:VRAM], such as "2xRTX3090" or "2xA40:48GiB"',
      });
    }
    let vramBytes: number;
    if (match[3] !== undefined) vramBytes = parseByteSize(match[3]);
    else if (known) vramBytes = known.vramBytes;
    else {
      throw new InvalidInputError(`unknown GPU model "${name}" and no VRAM given`, {
        hint: `add the VRAM, such as "${count}x${name.replace(/\s+/g, "")}:24GiB"`,
      });
    }
    const model = known?.name ?? name.replace(/_/g, " ");
    for (let i = 0; i < count; i++) gpus.push({ model, vramBytes });
  }
  return gpus;
}

/** Describes a machine for people: "251.0 GiB RAM (usable 240.0 GiB), 32 threads, 2x RTX 3090". */
export function describeHardware(hw: HardwareSpec): string {
  const counts = new Map<string, number>();
  for (const gpu of hw.gpus) counts.set(gpu.model, (counts.get(gpu.model) ?? 0) + 1);
  const gpus = counts.size === 0 ? "no GPU" : [...counts].map(([model, n]) => `${n}x ${model}`).join(", ");
  const usable = hw.usableRamBytes < hw.ramBytes ? ` (usable ${formatBytes(hw.usableRamBytes)})` : "";
  return `${formatBytes(hw.ramBytes)} RAM${usable}, ${hw.cpuThreads} CPU threads, ${gpus}`;
}
