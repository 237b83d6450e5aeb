import { orUndefined } from "./records.js";

/** One measured rate of a machine: a benchmark's result or a production report. */
export interface HostPerformanceRecord {
  seq: number;
  kind: "benchmark" | "production";
  instanceId: string;
  /** Epoch ms. */
  at: number;
  /** The bench verdict (benchmarks only). */
  verdict: string | undefined;
  proofsPerHour: number;
  /** The tuner's uncalibrated proofs/hour for the offer, when it had one. */
  predictedProofsPerHour: number | undefined;
  /** Price, $/hour. */
  dphPerHour: number;
  offerId: number;
  machineId: number | undefined;
  hostId: number | undefined;
  gpuName: string;
  numGpus: number;
  cpuRamBytes: number;
  cpuCores: number | undefined;
  cpuName: string | undefined;
  /** The hardware class (see `hardwareClassKey`). */
  classKey: string;
  /** The production window the rate covers, ms (production only). */
  windowMs: number | undefined;
  /** The tuned cuzk.toml the rate was measured with. */
  config: string | undefined;
  /** The benchmark's per-proof records. */
  records: unknown[] | undefined;
  /** Where a production rate came from: the agent's report, or Curio's task history. Default "agent". */
  source?: "agent" | "curio" | undefined;
  /** The Curio task type of a Curio rate (PoRep, UpdateProve, PSProve). */
  taskType?: string | undefined;
  /** Failed tasks in the window (Curio rates). */
  failures?: number | undefined;
}

/** What a new host-performance row carries. */
export type HostPerformanceInput = Omit<HostPerformanceRecord, "seq" | "at"> & { at?: number | undefined };

/** The host-performance table's reads and writes. */
export interface HostPerformanceStore {
  /** Appends one measured rate. */
  record(input: HostPerformanceInput): Promise<HostPerformanceRecord>;
  /** Every row, oldest first; of one instance, one machine or one class when asked. */
  list(query?: {
    instanceId?: string | undefined;
    machineId?: number | undefined;
    classKey?: string | undefined;
  }): Promise<HostPerformanceRecord[]>;
  /** Ids of instances that ever moved to `failed` (from the events). */
  failedInstanceIds(): Promise<Set<string>>;
  /** The excluded machines and why. */
  excludedMachines(): Promise<Map<number, string>>;
}

/** SQL row shape of `host_performance`. */
export interface HostPerformanceRow {
  seq: number;
  kind: "benchmark" | "production";
  instance_id: string;
  at: number;
  verdict: string | null;
  proofs_per_hour: number;
  predicted_proofs_per_hour: number | null;
  dph: number;
  offer_id: number;
  machine_id: number | null;
  host_id: number | null;
  gpu_name: string;
  num_gpus: number;
  cpu_ram_bytes: number;
  cpu_cores: number | null;
  cpu_name: string | null;
  class_key: string;
  window_ms: number | null;
  config: string | null;
  records_json: string | null;
  source: string | null;
  task_type: string | null;
  failures: number | null;
}

/** Converts a host_performance row to a record. */
export function toHostPerformanceRecord(row: HostPerformanceRow): HostPerformanceRecord {
  return {
    seq: row.seq,
    kind: row.kind,
    instanceId: row.instance_id,
    at: row.at,
    verdict: orUndefined(row.verdict),
    proofsPerHour: row.proofs_per_hour,
    predictedProofsPerHour: orUndefined(row.predicted_proofs_per_hour),
    dphPerHour: row.dph,
    offerId: row.offer_id,
    machineId: orUndefined(row.machine_id),
    hostId: orUndefined(row.host_id),
    gpuName: row.gpu_name,
    numGpus: row.num_gpus,
    cpuRamBytes: row.cpu_ram_bytes,
    cpuCores: orUndefined(row.cpu_cores),
    cpuName: orUndefined(row.cpu_name),
    classKey: row.class_key,
    windowMs: orUndefined(row.window_ms),
    config: orUndefined(row.config),
    records: row.records_json === null ? undefined : (JSON.parse(row.records_json) as unknown[]),
    source: row.source === "curio" ? "curio" : "agent",
    taskType: orUndefined(row.task_type),
    failures: orUndefined(row.failures),
  };
}
