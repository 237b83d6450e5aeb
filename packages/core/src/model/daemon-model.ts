import type { DaemonConfig } from "../daemon-config.js";
import type { HardwareSpec } from "../hardware.js";
import { proofKindLabel } from "../vocabulary.js";
import { modelConstants as K, measuredBox, porepMeasuredSecPerProof } from "./constants.js";
import { findGpuModel, unknownGpuSpeedFactor } from "./gpu-catalog.js";
import { estimateMemory, type MemoryEstimate, maxMeasuredPartitions } from "./memory.js";
import { estimateTiming, type TimingEstimate } from "./timing.js";
import type { DaemonPhase, Workload } from "./workload.js";

/** One point of the memory-over-time curve. */
export interface MemoryPoint {
  /** Seconds since the daemon started. */
  atSec: number;
  /** Resident bytes from this point on. */
  bytes: number;
  /** What happens from here. */
  label: string;
}

/** Everything the model says about one daemon config on one machine. */
export interface DaemonModel {
  /** Peak memory per phase. */
  memory: Record<DaemonPhase, MemoryEstimate>;
  /** Steady-state timing. */
  timing: TimingEstimate;
  /** Memory over time from a cold start, as the phases follow each other. */
  timeline: MemoryPoint[];
  /**
   * The phase whose peak bounds this config's life: `steady` when the daemon loads the PCE
   * from disk after a warmup (the partition-workers daemon of the incidents), `cold-start`
   * when every start re-extracts it (the current budget daemon never loads it from disk).
   */
  governingPhase: DaemonPhase;
  /** Peak of the governing phase, in bytes. */
  peakBytes: number;
  /** RAM this container may use, in bytes. */
  usableRamBytes: number;
  /** usableRamBytes minus peakBytes; negative means the model expects an OOM kill. */
  headroomBytes: number;
  /** True when the governing peak exceeds usable RAM. */
  oom: boolean;
  /** Each way this prediction goes beyond what was measured, in a sentence; empty on the measured box. */
  extrapolations: string[];
}

const maxTimedPartitions = Math.max(...porepMeasuredSecPerProof.map(([p]) => p));

/**
 * Where a prediction leaves the measured range: more partitions than measured, GPUs other
 * than the one measured (or more of them), another CPU, another proof kind.
 */
export function modelExtrapolations(hw: HardwareSpec, workload: Workload, partitions: number): string[] {
  const out: string[] = [];
  if (partitions > maxMeasuredPartitions) {
    out.push(
      `${partitions} partitions at once: peak memory was measured up to ${maxMeasuredPartitions}; above that it is extrapolated at ${(K.porepEnvelopeSlopeAboveMeasuredBytes.value / 1024 ** 3).toFixed(1)} GiB per partition`,
    );
  } else if (partitions > maxTimedPartitions) {
    out.push(
      `${partitions} partitions at once: seconds per proof were measured up to ${maxTimedPartitions} (14-16 gave nothing more on one RTX 5070 Ti); the model's gain above ${maxTimedPartitions} is its own`,
    );
  }
  const models = [...new Set(hw.gpus.map((gpu) => gpu.model))];
  for (const model of models) {
    const known = findGpuModel(model);
    if (!known) {
      out.push(
        `${model}: not in the catalog; GPU speed assumed ${unknownGpuSpeedFactor.toFixed(2)}x an RTX 3090`,
      );
    } else if (known.name !== measuredBox.gpuModel) {
      out.push(
        `${known.name}: no cuzk measurement; its GPU stage is the RTX 5070 Ti's scaled by the speed factor (${known.speedFactor.toFixed(2)} vs ${K.gpuAnchorSpeedFactor.value.toFixed(2)}, from SMs x clock)`,
      );
    }
  }
  if (hw.gpus.length > measuredBox.gpus) {
    out.push(`${hw.gpus.length} GPUs: measured with one; the GPUs are assumed to add up`);
  }
  if (hw.cpuThreads !== measuredBox.cpuThreads) {
    out.push(
      `${hw.cpuThreads} CPU threads: the curve was measured on ${measuredBox.cpuThreads} Zen4 threads with 8-channel DDR5; per-partition synthesis speed and bandwidth contention are assumed the same`,
    );
  }
  if (workload.kind !== "porep") {
    out.push(
      `${proofKindLabel[workload.kind]}: no measured time or memory per partition; scaled from PoRep by circuit size`,
    );
  }
  return out;
}

/** Whether the daemon reuses a PCE cache written by an earlier run. */
export function loadsPceFromDisk(config: DaemonConfig): boolean {
  return config.dialect === "partition-workers";
}

/** Models memory (per phase and over time) and timing of `config` on `hw` for `workload`. */
export function modelDaemon(hw: HardwareSpec, config: DaemonConfig, workload: Workload): DaemonModel {
  const memory = {
    warmup: estimateMemory(hw, config, workload, "warmup"),
    "cold-start": estimateMemory(hw, config, workload, "cold-start"),
    steady: estimateMemory(hw, config, workload, "steady"),
  };
  const timing = estimateTiming(hw, config, workload, memory.steady.synthesizingPartitions);
  const governingPhase: DaemonPhase = loadsPceFromDisk(config) ? "steady" : "cold-start";
  const peakBytes = memory[governingPhase].peakBytes;
  const srsLoaded = K.srsLoadSec.value;
  const coldEnd = Number.isFinite(timing.firstProofSec) ? timing.firstProofSec : srsLoaded;
  const timeline: MemoryPoint[] = [
    { atSec: 0, bytes: 0, label: "daemon starts, loads parameters on the first proof" },
    { atSec: srsLoaded, bytes: memory["cold-start"].srsBytes, label: "parameters resident" },
    {
      atSec: srsLoaded,
      bytes:
        memory["cold-start"].peakBytes - memory["cold-start"].pceBytes - memory["cold-start"].transientBytes,
      label: "first proofs synthesize without a PCE cache",
    },
    {
      atSec: coldEnd,
      bytes: memory["cold-start"].peakBytes,
      label: "PCE extraction overlaps the next proofs (transient)",
    },
    {
      atSec: coldEnd + K.pceExtractionSec.value,
      bytes: memory.steady.peakBytes,
      label: "steady state, PCE resident",
    },
  ];
  return {
    memory,
    timing,
    timeline,
    governingPhase,
    peakBytes,
    usableRamBytes: hw.usableRamBytes,
    headroomBytes: hw.usableRamBytes - peakBytes,
    oom: peakBytes > hw.usableRamBytes,
    extrapolations: modelExtrapolations(hw, workload, memory[governingPhase].synthesizingPartitions),
  };
}
