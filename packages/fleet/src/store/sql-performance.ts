import { transitionRefused } from "../errors.js";
import type { DecisionExtras } from "./fleet-store.js";
import {
  type HostPerformanceInput,
  type HostPerformanceRecord,
  type HostPerformanceRow,
  type HostPerformanceStore,
  toHostPerformanceRecord,
} from "./host-performance.js";
import type { BenchmarkResultRecord, InstanceRecord } from "./records.js";
import { insertRow, type SqlExecutor } from "./sql-executor.js";
import { transitionIn } from "./sql-instance-transitions.js";
import { type SqlStoreContext, writeEvent } from "./sql-store-context.js";

// The store's measurements: benchmark results (one per instance, with the decision they led to)
// and host performance rows (benchmarks and production rates, which outlive the instance).

/** A benchmark_results row without its report (what the summaries read). */
interface BenchmarkSummaryRow {
  instance_id: string;
  at: number;
  verdict: string;
  proofs_per_hour: number;
  min_proofs_per_hour: number;
  machine_id: number | null;
  gpu_name: string | null;
  num_gpus: number | null;
}

interface BenchmarkRow extends BenchmarkSummaryRow {
  report_json: string;
}

const sql = {
  selectBenchmark: "SELECT * FROM benchmark_results WHERE instance_id = ?",
  selectBenchmarkSummaries: `SELECT instance_id, at, verdict, proofs_per_hour, min_proofs_per_hour, machine_id, gpu_name,
      num_gpus FROM benchmark_results ORDER BY at ASC LIMIT ?`,
  selectPerformance: "SELECT * FROM host_performance ORDER BY seq",
  selectPerformanceOfMachine: "SELECT * FROM host_performance WHERE machine_id = ? ORDER BY seq",
  selectPerformanceOfClass: "SELECT * FROM host_performance WHERE class_key = ? ORDER BY seq",
  selectPerformanceOfInstance: "SELECT * FROM host_performance WHERE instance_id = ? ORDER BY seq",
  selectFailedInstances: "SELECT DISTINCT instance_id FROM events WHERE to_state = 'failed'",
} as const;

function benchmarkSummaryFromRow(row: BenchmarkSummaryRow): Omit<BenchmarkResultRecord, "report"> {
  return {
    instanceId: row.instance_id,
    at: row.at,
    verdict: row.verdict,
    proofsPerHour: row.proofs_per_hour,
    minProofsPerHour: row.min_proofs_per_hour,
    machineId: row.machine_id ?? undefined,
    gpuName: row.gpu_name ?? undefined,
    numGpus: row.num_gpus ?? undefined,
  };
}

/** Appends one host_performance row on `q`; the stored record. */
export async function recordPerformance(
  ctx: SqlStoreContext,
  q: SqlExecutor,
  input: HostPerformanceInput,
): Promise<HostPerformanceRecord> {
  const insert = insertRow(
    "host_performance",
    {
      kind: input.kind,
      instance_id: input.instanceId,
      at: input.at ?? ctx.clock.now(),
      verdict: input.verdict ?? null,
      proofs_per_hour: input.proofsPerHour,
      predicted_proofs_per_hour: input.predictedProofsPerHour ?? null,
      dph: input.dphPerHour,
      offer_id: input.offerId,
      machine_id: input.machineId ?? null,
      host_id: input.hostId ?? null,
      gpu_name: input.gpuName,
      num_gpus: input.numGpus,
      cpu_ram_bytes: input.cpuRamBytes,
      cpu_cores: input.cpuCores ?? null,
      cpu_name: input.cpuName ?? null,
      class_key: input.classKey,
      window_ms: input.windowMs ?? null,
      config: input.config ?? null,
      records_json: input.records === undefined ? null : JSON.stringify(input.records),
      source: input.source ?? "agent",
      task_type: input.taskType ?? null,
      failures: input.failures ?? null,
    },
    "RETURNING *",
  );
  const row = await q.get<HostPerformanceRow>(insert.sql, insert.params);
  return toHostPerformanceRecord(row as HostPerformanceRow);
}

/** FleetStore.performance: host performance rows over the store's executor. */
export function performanceStore(ctx: SqlStoreContext): HostPerformanceStore {
  const { db } = ctx;
  return {
    record: (input) => recordPerformance(ctx, db, input),
    async list(query = {}): Promise<HostPerformanceRecord[]> {
      const rows =
        query.instanceId !== undefined
          ? await db.all<HostPerformanceRow>(sql.selectPerformanceOfInstance, [query.instanceId])
          : query.machineId !== undefined
            ? await db.all<HostPerformanceRow>(sql.selectPerformanceOfMachine, [query.machineId])
            : query.classKey !== undefined
              ? await db.all<HostPerformanceRow>(sql.selectPerformanceOfClass, [query.classKey])
              : await db.all<HostPerformanceRow>(sql.selectPerformance);
      return rows.map(toHostPerformanceRecord);
    },
    failedInstanceIds: async () =>
      new Set((await db.all<{ instance_id: string }>(sql.selectFailedInstances)).map((r) => r.instance_id)),
  };
}

/** FleetStore.decideBenchmark: the decision's transition, extra events, the result and the measurement, in one transaction. */
export function decideBenchmark(
  ctx: SqlStoreContext,
  id: string,
  result: Omit<BenchmarkResultRecord, "instanceId" | "at">,
  to: "active" | "rejected" | "failed",
  reason: string,
  measured: HostPerformanceInput | undefined,
  extras: DecisionExtras = {},
): Promise<InstanceRecord> {
  return ctx.db.transaction(async (tx) => {
    const { record, actual } = await transitionIn(ctx, tx, id, "benchmarking", to, {
      changes: { proofsPerHour: result.proofsPerHour, reason, ...extras.changes },
      eventType: "decision",
      detail: { verdict: result.verdict, proofsPerHour: result.proofsPerHour, reason },
    });
    if (record === undefined) throw transitionRefused(id, "benchmarking", to, actual);
    for (const extra of extras.events ?? [])
      await writeEvent(ctx, tx, id, extra.type, undefined, undefined, extra.detail);
    const insert = insertRow("benchmark_results", {
      instance_id: id,
      at: ctx.clock.now(),
      verdict: result.verdict,
      proofs_per_hour: result.proofsPerHour,
      min_proofs_per_hour: result.minProofsPerHour,
      machine_id: result.machineId ?? null,
      gpu_name: result.gpuName ?? null,
      num_gpus: result.numGpus ?? null,
      report_json: JSON.stringify(result.report),
    });
    await tx.run(insert.sql, insert.params);
    if (measured !== undefined) await recordPerformance(ctx, tx, measured);
    return record;
  });
}

/** FleetStore.benchmarkResult: with its report. */
export async function benchmarkResult(
  ctx: SqlStoreContext,
  id: string,
): Promise<BenchmarkResultRecord | undefined> {
  const row = await ctx.db.get<BenchmarkRow>(sql.selectBenchmark, [id]);
  if (row === undefined) return undefined;
  return { ...benchmarkSummaryFromRow(row), report: JSON.parse(row.report_json) as Record<string, unknown> };
}

/** FleetStore.benchmarkSummaries: oldest first, without reports. Default limit 1000. */
export async function benchmarkSummaries(
  ctx: SqlStoreContext,
  limit = 1000,
): Promise<Omit<BenchmarkResultRecord, "report">[]> {
  return (await ctx.db.all<BenchmarkSummaryRow>(sql.selectBenchmarkSummaries, [limit])).map(
    benchmarkSummaryFromRow,
  );
}
