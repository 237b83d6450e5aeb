import type { GpuSpec, HardwareSpec } from "@cuzkit/core";

/** One value read from the machine, with where it came from (`"cgroup v2 memory.low"`). */
export interface Reading<T> {
  value: T;
  /** The file, command or fallback that gave the value. */
  source: string;
}

/** Every reading behind a detected HardwareSpec. */
export interface HardwareReadings {
  /** Host RAM (MemTotal), in bytes. */
  ramBytes: Reading<number>;
  /** RAM this container may use, in bytes: the smallest of MemTotal and the cgroup limits. */
  usableRamBytes: Reading<number>;
  /** CPU threads this process may use (affinity and cgroup quota). */
  cpuThreads: Reading<number>;
  /** CPU threads of the host. */
  hostCpuThreads: Reading<number>;
  /** GPUs, from nvidia-smi. */
  gpus: Reading<GpuSpec[]>;
}

/** What detectHardware() found. */
export interface DetectedHardware {
  /** The machine as the model sees it. */
  spec: HardwareSpec;
  /** Each value with its source. */
  readings: HardwareReadings;
  /** Every limit and count read along the way, also the ones that did not bind (for the record). */
  observations: Reading<number | string>[];
  /** What could not be read and what was assumed instead. */
  notes: string[];
}

/** True when `value` is a DetectedHardware rather than a bare HardwareSpec. */
export function isDetectedHardware(value: HardwareSpec | DetectedHardware): value is DetectedHardware {
  return "spec" in value && "readings" in value;
}
