import { type BenchmarkSummaryRow, benchmarkSummaryFromRow, type FleetStore } from "./fleet-store.js";
import type { BenchmarkResultRecord } from "./records.js";

// Read-only queries the dashboard needs and the manager does not: every benchmark result at
// once (the host performance table, the proofs/hour chart). Kept apart from fleet-store.ts so the
// manager's store stays the manager's.

/** A benchmark result without its report (the per-proof records stay on the instance page). */
export type BenchmarkSummary = Omit<BenchmarkResultRecord, "report">;

/** Every benchmark result in the store, oldest first, without the reports. */
export function listBenchmarkSummaries(store: FleetStore, limit = 1000): BenchmarkSummary[] {
  const rows = store.db
    .prepare(
      `SELECT instance_id, at, verdict, proofs_per_hour, min_proofs_per_hour, machine_id, gpu_name, num_gpus
       FROM benchmark_results ORDER BY at ASC LIMIT ?`,
    )
    .all(limit) as BenchmarkSummaryRow[];
  return rows.map(benchmarkSummaryFromRow);
}

/** The highest event sequence number, 0 when there is none (the live stream's cursor). */
export function lastEventSeq(store: FleetStore): number {
  const row = store.db.prepare("SELECT MAX(seq) AS seq FROM events").get() as { seq: number | null };
  return row.seq ?? 0;
}
