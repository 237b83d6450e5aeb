import type { DaemonConfig } from "../daemon-config.js";
import type { HardwareSpec } from "../hardware.js";
import { modelConstants as K } from "./constants.js";
import { estimateMemory, type MemoryEstimate } from "./memory.js";
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
  };
}
