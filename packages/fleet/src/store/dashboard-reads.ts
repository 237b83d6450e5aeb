import type { FleetStore } from "./fleet-store.js";
import type { BenchmarkResultRecord } from "./records.js";

// Read-only queries the dashboard needs and the manager does not (their SQL is the store's).

/** A benchmark result without its report (the per-proof records stay on the instance page). */
export type BenchmarkSummary = Omit<BenchmarkResultRecord, "report">;

/** Every benchmark result in the store, oldest first, without the reports. Default limit 1000. */
export function listBenchmarkSummaries(store: FleetStore, limit = 1000): Promise<BenchmarkSummary[]> {
  return store.benchmarkSummaries(limit);
}

/** The highest event sequence number, 0 when there is none (the live stream's cursor). */
export function lastEventSeq(store: FleetStore): Promise<number> {
  return store.lastEventSeq();
}
