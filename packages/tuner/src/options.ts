import {
  type DaemonDialect,
  daemonDialects,
  GiB,
  InvalidInputError,
  type ProofKind,
  proofKinds,
  type Resolved,
  type WorkloadPreset,
  workloadPresets,
} from "@cuzkit/core";

// Every option of the tuner, with its default, resolved in one place.

/** The kinds a workload runs: the kind that is modelled, and others whose parameters stay resident. */
export interface WorkloadKinds {
  /** The kind whose throughput is modelled. */
  kind: ProofKind;
  /** Other kinds that run now and then on the same daemon (their parameters count). Default none. */
  alsoResident?: readonly ProofKind[] | undefined;
}

/** Options of `recommend()` and `checkConfig()`. */
export interface TuneOptions {
  /** The daemon that reads the config. Default `"budget"` (the current daemon). */
  dialect?: DaemonDialect | undefined;
  /** A preset (`porep`, `snap`, `wpost`, `mix`) or explicit kinds. Default `"porep"`. */
  workload?: WorkloadPreset | WorkloadKinds | undefined;
  /** Fraction of the usable RAM kept free. Default 0.10. */
  safetyMarginFraction?: number | undefined;
  /** Least bytes kept free for the OS whatever the fraction gives. Default 4 GiB. */
  minSafetyMarginBytes?: number | undefined;
  /** Proofs kept in flight (bench concurrency), fixed instead of searched. Default: searched. */
  concurrency?: number | undefined;
  /** Highest concurrency the search tries. Default 64. */
  maxConcurrency?: number | undefined;
  /** Highest partition_workers / max_parallel_synthesis the search tries. Default 128. */
  maxSynthesisParallelism?: number | undefined;
  /** Highest gpus.gpu_workers_per_device the search tries. Default 4. */
  maxGpuWorkersPerDevice?: number | undefined;
  /** Most threads given to gpus.gpu_threads. Default 32 (the daemon's example; 0 would mean every host CPU). */
  gpuThreadsCap?: number | undefined;
  /** Curio's ProveTimeout is the modelled worst-case proof time times this. Default 1.5. */
  proveTimeoutFactor?: number | undefined;
  /** Curio MaxPending slots beyond the PoRep concurrency, left for WindowPoSt and WinningPoSt; memory is sized for them too. Default 2. */
  postSlots?: number | undefined;
  /** Least Curio ProveTimeout, in seconds. Default 1800 (Curio's 30 min): on a timeout Curio retries with the same request id, which the daemon runs again as a duplicate. */
  minProveTimeoutSec?: number | undefined;
}

/** TuneOptions with every default filled in. */
export interface ResolvedTuneOptions {
  dialect: DaemonDialect;
  workloadName: string;
  workload: Resolved<WorkloadKinds>;
  safetyMarginFraction: number;
  minSafetyMarginBytes: number;
  concurrency: number | undefined;
  maxConcurrency: number;
  maxSynthesisParallelism: number;
  maxGpuWorkersPerDevice: number;
  gpuThreadsCap: number;
  proveTimeoutFactor: number;
  postSlots: number;
  minProveTimeoutSec: number;
}

/** Default options, documented in the README. */
export const tuneDefaults = {
  dialect: "budget",
  workload: "porep",
  safetyMarginFraction: 0.1,
  minSafetyMarginBytes: 4 * GiB,
  maxConcurrency: 64,
  maxSynthesisParallelism: 128,
  maxGpuWorkersPerDevice: 4,
  gpuThreadsCap: 32,
  proveTimeoutFactor: 1.5,
  postSlots: 2,
  minProveTimeoutSec: 1800,
} as const;

function positiveInt(name: string, value: number | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1) {
    throw new InvalidInputError(`${name} must be a whole number of at least 1, got ${value}`, {
      hint: `set ${name} to 1 or more`,
    });
  }
  return value;
}

function resolveWorkload(workload: TuneOptions["workload"]): {
  name: string;
  kinds: Resolved<WorkloadKinds>;
} {
  const given = workload ?? tuneDefaults.workload;
  if (typeof given === "string") {
    const preset = (workloadPresets as Record<string, WorkloadKinds>)[given];
    if (!preset) {
      throw new InvalidInputError(`unknown workload "${given}"`, {
        hint: `use one of: ${Object.keys(workloadPresets).join(", ")}`,
      });
    }
    return { name: given, kinds: { kind: preset.kind, alsoResident: preset.alsoResident ?? [] } };
  }
  for (const kind of [given.kind, ...(given.alsoResident ?? [])]) {
    if (!(proofKinds as readonly string[]).includes(kind)) {
      throw new InvalidInputError(`unknown proof kind "${kind}"`, {
        hint: `use one of: ${proofKinds.join(", ")}`,
      });
    }
  }
  const alsoResident = given.alsoResident ?? [];
  return {
    name: [given.kind, ...alsoResident].join("+"),
    kinds: { kind: given.kind, alsoResident },
  };
}

/** Fills in the defaults and rejects impossible values with InvalidInputError. */
export function resolveTuneOptions(options: TuneOptions = {}): ResolvedTuneOptions {
  const dialect = options.dialect ?? tuneDefaults.dialect;
  if (!daemonDialects.includes(dialect)) {
    throw new InvalidInputError(`unknown daemon dialect "${dialect}"`, {
      hint: `use one of: ${daemonDialects.join(", ")}`,
    });
  }
  const fraction = options.safetyMarginFraction ?? tuneDefaults.safetyMarginFraction;
  if (!Number.isFinite(fraction) || fraction < 0 || fraction >= 1) {
    throw new InvalidInputError(`the safety margin must be a fraction from 0 to below 1, got ${fraction}`, {
      hint: 'give a percentage such as "10%"',
    });
  }
  const floor = options.minSafetyMarginBytes ?? tuneDefaults.minSafetyMarginBytes;
  if (!Number.isFinite(floor) || floor < 0) {
    throw new InvalidInputError(`the minimum safety margin must be 0 bytes or more, got ${floor}`, {
      hint: 'give a size such as "4GiB"',
    });
  }
  const factor = options.proveTimeoutFactor ?? tuneDefaults.proveTimeoutFactor;
  if (!Number.isFinite(factor) || factor < 1) {
    throw new InvalidInputError(`proveTimeoutFactor must be at least 1, got ${factor}`, {
      hint: "use 1.5 or more",
    });
  }
  const postSlots = options.postSlots ?? tuneDefaults.postSlots;
  if (!Number.isInteger(postSlots) || postSlots < 0) {
    throw new InvalidInputError(`postSlots must be a whole number of 0 or more, got ${postSlots}`, {
      hint: "use 2 (room for a WindowPoSt and a WinningPoSt) or 0 to give every slot to PoRep",
    });
  }
  const minProveTimeoutSec = options.minProveTimeoutSec ?? tuneDefaults.minProveTimeoutSec;
  if (!Number.isFinite(minProveTimeoutSec) || minProveTimeoutSec < 60) {
    throw new InvalidInputError(`minProveTimeoutSec must be at least 60 seconds, got ${minProveTimeoutSec}`, {
      hint: "use 1800 (Curio's 30 min default) unless you know every proof finishes sooner",
    });
  }
  const { name, kinds } = resolveWorkload(options.workload);
  const maxConcurrency = positiveInt("maxConcurrency", options.maxConcurrency, tuneDefaults.maxConcurrency);
  const concurrency =
    options.concurrency === undefined ? undefined : positiveInt("concurrency", options.concurrency, 1);
  return {
    dialect,
    workloadName: name,
    workload: kinds,
    safetyMarginFraction: fraction,
    minSafetyMarginBytes: floor,
    concurrency,
    maxConcurrency: Math.max(maxConcurrency, concurrency ?? 1),
    maxSynthesisParallelism: positiveInt(
      "maxSynthesisParallelism",
      options.maxSynthesisParallelism,
      tuneDefaults.maxSynthesisParallelism,
    ),
    maxGpuWorkersPerDevice: positiveInt(
      "maxGpuWorkersPerDevice",
      options.maxGpuWorkersPerDevice,
      tuneDefaults.maxGpuWorkersPerDevice,
    ),
    gpuThreadsCap: positiveInt("gpuThreadsCap", options.gpuThreadsCap, tuneDefaults.gpuThreadsCap),
    proveTimeoutFactor: factor,
    postSlots,
    minProveTimeoutSec,
  };
}

/** Bytes kept free: the larger of the fraction of the usable RAM and the floor for the OS, rounded up. */
export function safetyMarginBytes(usableRamBytes: number, options: ResolvedTuneOptions): number {
  return Math.ceil(Math.max(usableRamBytes * options.safetyMarginFraction, options.minSafetyMarginBytes));
}
