import {
  type DaemonConfig,
  type HardwareSpec,
  modelDaemon,
  type Workload,
  type WorkloadPreset,
  workloadPresets,
} from "@cuzkit/core";
import { resolveTuneOptions, safetyMarginBytes, type TuneOptions } from "./options.js";

// Shared by the tests: an independent safety check straight on the core model.

/** The workload of a preset at a concurrency. */
export function workloadOf(preset: WorkloadPreset, concurrency: number): Workload {
  return { ...workloadPresets[preset], concurrency };
}

/** Usable RAM minus the tuner's margin for these options. */
export function allowedPeak(hw: HardwareSpec, options: TuneOptions = {}): number {
  return hw.usableRamBytes - safetyMarginBytes(hw.usableRamBytes, resolveTuneOptions(options));
}

/** The highest peak the model gives a config over the phases that must fit (governing and warmup), and whether it stalls. */
export function modelledPeak(
  hw: HardwareSpec,
  config: DaemonConfig,
  workload: Workload,
): { peak: number; stalled: boolean; proofsPerHour: number } {
  const model = modelDaemon(hw, config, workload);
  return {
    peak: Math.max(model.peakBytes, model.memory.warmup.peakBytes),
    stalled: model.memory[model.governingPhase].slots.stalled || model.memory.steady.slots.stalled,
    proofsPerHour: model.timing.proofsPerHour,
  };
}
