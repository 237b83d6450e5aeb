import { findGpuModel, formatBytes, type HardwareSpec, unknownGpuSpeedFactor } from "@cuzkit/core";
import type { HardwareReadings } from "./detect/types.js";

/** Something the operator should know before trusting the result. */
export interface TunerWarning {
  /** Stable identifier: NO_GPU, UNKNOWN_GPU, LOW_VRAM, MIXED_GPUS, CONTAINER_LIMIT, CPU_QUOTA, INFEASIBLE, BELOW_MINIMUM, FORCED. */
  code: string;
  /** What it means and what to do, with numbers. */
  message: string;
}

/** VRAM below which a GPU is at risk: cuzk holds ~4 GiB d_a plus ~8 GiB pooled d_b per GPU (12 GB, as the Snark Market recommends). */
export const minSafeVramBytes = 12e9;

const gb = (bytes: number) => `${(bytes / 1e9).toFixed(1)} GB`;

/** Warnings that follow from the hardware alone: GPUs, VRAM, container limits. */
export function hardwareWarnings(hw: HardwareSpec, readings?: HardwareReadings): TunerWarning[] {
  const warnings: TunerWarning[] = [];
  if (hw.gpus.length === 0) {
    warnings.push({
      code: "NO_GPU",
      message:
        "no GPU detected: cuzk proves on NVIDIA GPUs only, so the modelled throughput is 0; the settings are sized for memory and the CPU side" +
        (readings ? ` (${readings.gpus.source})` : ""),
    });
  }
  const unknown = new Set<string>();
  hw.gpus.forEach((gpu, index) => {
    if (!findGpuModel(gpu.model)) unknown.add(gpu.model);
    if (gpu.vramBytes <= 0) {
      warnings.push({
        code: "LOW_VRAM",
        message: `GPU ${index} (${gpu.model}) reported no VRAM size: cuzk needs ~12 GB per GPU; check nvidia-smi`,
      });
    } else if (gpu.vramBytes < minSafeVramBytes) {
      warnings.push({
        code: "LOW_VRAM",
        message: `GPU ${index} (${gpu.model}) has ${gb(gpu.vramBytes)} of VRAM, below 12 GB: cuzk keeps ~4 GiB plus ~8 GiB of buffers per GPU, so proofs are at risk of CUDA out-of-memory errors`,
      });
    }
  });
  for (const model of unknown) {
    warnings.push({
      code: "UNKNOWN_GPU",
      message: `unknown GPU model "${model}": speed assumed ${unknownGpuSpeedFactor.toFixed(2)}x an RTX 3090; only a benchmark will tell`,
    });
  }
  if (new Set(hw.gpus.map((gpu) => findGpuModel(gpu.model)?.name ?? gpu.model)).size > 1) {
    warnings.push({
      code: "MIXED_GPUS",
      message: "GPUs of different models: the model assumes every GPU runs at the speed of the slowest one",
    });
  }
  if (hw.usableRamBytes < hw.ramBytes) {
    const source = readings ? ` (${readings.usableRamBytes.source})` : "";
    warnings.push({
      code: "CONTAINER_LIMIT",
      message:
        `the container limit of ${formatBytes(hw.usableRamBytes)}${source} is lower than the host RAM of ${formatBytes(hw.ramBytes)}: ` +
        "the daemon's automatic budget would read the host's MemTotal, so the config sets the memory explicitly",
    });
  }
  const hostThreads = hw.hostCpuThreads ?? hw.cpuThreads;
  if (hw.cpuThreads < hostThreads) {
    const source = readings ? ` (${readings.cpuThreads.source})` : "";
    warnings.push({
      code: "CPU_QUOTA",
      message:
        `this container may use ${hw.cpuThreads} CPU threads${source} of the host's ${hostThreads}: ` +
        "the daemon's defaults (0 = all CPUs) would size its thread pools for the host, so the config sets them explicitly",
    });
  }
  return warnings;
}
