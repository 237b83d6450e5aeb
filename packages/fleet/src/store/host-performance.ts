import type { Clock } from "@cuzkit/core";
import type { SqliteDatabase } from "./open-database.js";

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
}

/** What a new host-performance row carries. */
export type HostPerformanceInput = Omit<HostPerformanceRecord, "seq" | "at"> & { at?: number | undefined };

/** The host-performance table's reads and writes. */
export interface HostPerformanceStore {
  /** Appends one measured rate. */
  record(input: HostPerformanceInput): HostPerformanceRecord;
  /** Every row, oldest first; of one machine or one class when asked. */
  list(query?: { machineId?: number | undefined; classKey?: string | undefined }): HostPerformanceRecord[];
  /** Ids of instances that ever moved to `failed` (from the events). */
  failedInstanceIds(): Set<string>;
  /** The excluded machines and why. */
  excludedMachines(): Map<number, string>;
}

interface Row {
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
}

const u = <T>(v: T | null): T | undefined => (v === null ? undefined : v);

function toRecord(row: Row): HostPerformanceRecord {
  return {
    seq: row.seq,
    kind: row.kind,
    instanceId: row.instance_id,
    at: row.at,
    verdict: u(row.verdict),
    proofsPerHour: row.proofs_per_hour,
    predictedProofsPerHour: u(row.predicted_proofs_per_hour),
    dphPerHour: row.dph,
    offerId: row.offer_id,
    machineId: u(row.machine_id),
    hostId: u(row.host_id),
    gpuName: row.gpu_name,
    numGpus: row.num_gpus,
    cpuRamBytes: row.cpu_ram_bytes,
    cpuCores: u(row.cpu_cores),
    cpuName: u(row.cpu_name),
    classKey: row.class_key,
    windowMs: u(row.window_ms),
    config: u(row.config),
    records: row.records_json === null ? undefined : (JSON.parse(row.records_json) as unknown[]),
  };
}

/** The host-performance methods over an open fleet database (schema 3 or later). */
export function hostPerformanceStore(db: SqliteDatabase, clock: Clock): HostPerformanceStore {
  const insert = db.prepare(`
    INSERT INTO host_performance (kind, instance_id, at, verdict, proofs_per_hour, predicted_proofs_per_hour, dph,
      offer_id, machine_id, host_id, gpu_name, num_gpus, cpu_ram_bytes, cpu_cores, cpu_name, class_key, window_ms,
      config, records_json)
    VALUES (@kind, @instanceId, @at, @verdict, @proofsPerHour, @predicted, @dph, @offerId, @machineId, @hostId,
      @gpuName, @numGpus, @cpuRamBytes, @cpuCores, @cpuName, @classKey, @windowMs, @config, @records)`);
  const selectOne = db.prepare("SELECT * FROM host_performance WHERE seq = ?");
  const selectAll = db.prepare("SELECT * FROM host_performance ORDER BY seq");
  const selectMachine = db.prepare("SELECT * FROM host_performance WHERE machine_id = ? ORDER BY seq");
  const selectClass = db.prepare("SELECT * FROM host_performance WHERE class_key = ? ORDER BY seq");
  const selectFailed = db
    .prepare("SELECT DISTINCT instance_id FROM events WHERE to_state = 'failed'")
    .pluck();
  const selectExcluded = db.prepare("SELECT machine_id, reason FROM excluded_machines");
  return {
    failedInstanceIds: () => new Set(selectFailed.all() as string[]),
    excludedMachines: () =>
      new Map(
        (selectExcluded.all() as Array<{ machine_id: number; reason: string }>).map((r) => [
          r.machine_id,
          r.reason,
        ]),
      ),
    record(input) {
      const info = insert.run({
        kind: input.kind,
        instanceId: input.instanceId,
        at: input.at ?? clock.now(),
        verdict: input.verdict ?? null,
        proofsPerHour: input.proofsPerHour,
        predicted: input.predictedProofsPerHour ?? null,
        dph: input.dphPerHour,
        offerId: input.offerId,
        machineId: input.machineId ?? null,
        hostId: input.hostId ?? null,
        gpuName: input.gpuName,
        numGpus: input.numGpus,
        cpuRamBytes: input.cpuRamBytes,
        cpuCores: input.cpuCores ?? null,
        cpuName: input.cpuName ?? null,
        classKey: input.classKey,
        windowMs: input.windowMs ?? null,
        config: input.config ?? null,
        records: input.records === undefined ? null : JSON.stringify(input.records),
      });
      return toRecord(selectOne.get(info.lastInsertRowid) as Row);
    },
    list(query = {}) {
      const rows =
        query.machineId !== undefined
          ? selectMachine.all(query.machineId)
          : query.classKey !== undefined
            ? selectClass.all(query.classKey)
            : selectAll.all();
      return (rows as Row[]).map(toRecord);
    },
  };
}
