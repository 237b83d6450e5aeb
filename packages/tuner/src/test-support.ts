import {
  type DaemonConfig,
  type HardwareSpec,
  modelDaemon,
  type Workload,
  type WorkloadPreset,
  workloadPresets,
} from "@cuzkit/core";
import { resolveTuneOptions, safetyMarginBytes, type TuneOptions, tuneDefaults } from "./options.js";

// Shared by the tests: an independent safety check straight on the core model.

/** The workload of a preset at a concurrency. */
export function workloadOf(preset: WorkloadPreset, concurrency: number): Workload {
  return { ...workloadPresets[preset], concurrency };
}

/** Usable RAM minus the tuner's margin for these options. */
export function allowedPeak(hw: HardwareSpec, options: TuneOptions = {}): number {
  return hw.usableRamBytes - safetyMarginBytes(hw.usableRamBytes, resolveTuneOptions(options));
}

/**
 * The highest peak the model gives a config over the phases that must fit (governing and
 * warmup) with Curio's MaxPending in flight (the workload's concurrency + the PoSt slots),
 * whether it stalls, and its proofs/hour at the workload's concurrency.
 */
export function modelledPeak(
  hw: HardwareSpec,
  config: DaemonConfig,
  workload: Workload,
  postSlots: number = tuneDefaults.postSlots,
): { peak: number; stalled: boolean; proofsPerHour: number } {
  const sized = modelDaemon(hw, config, { ...workload, concurrency: workload.concurrency + postSlots });
  const model = modelDaemon(hw, config, workload);
  return {
    peak: Math.max(sized.peakBytes, sized.memory.warmup.peakBytes),
    stalled: sized.memory[sized.governingPhase].slots.stalled || sized.memory.steady.slots.stalled,
    proofsPerHour: model.timing.proofsPerHour,
  };
}
