import { performanceOf } from "../evidence/performance-row.js";
import type { HostPerformanceRecord } from "../store/host-performance.js";
import type { CurioContext } from "./curio-context.js";
import type { CurioRate } from "./curio-rate.js";
import { noteCurioMapping } from "./identity-events.js";
import { mapCurioInstances } from "./machine-map.js";

/**
 * Records Curio's production of each fleet instance that is a Curio node, per proof type, over
 * the link's window ending now: host-performance rows of kind `production`, source `curio`
 * (apart from benchmarks and from the agent's own reports), with the failures. Instances whose
 * node cannot be told apart get no rate, and an event (mapCurioInstances, noteCurioMapping).
 */
export async function recordCurioProduction(ctx: CurioContext): Promise<HostPerformanceRecord[]> {
  const link = ctx.curio;
  if (link === undefined) return [];
  const mapping = await mapCurioInstances(ctx);
  await noteCurioMapping(ctx, mapping);
  const mapped = mapping.matched;
  if (mapped.length === 0) return [];
  const untilMs = ctx.clock.now();
  const rates = await link.harmony.production({ sinceMs: untilMs - link.windowMs, untilMs });
  const recorded: HostPerformanceRecord[] = [];
  for (const { instance, machine } of mapped) {
    for (const rate of rates.filter((r) => r.hostAndPort === machine.hostAndPort)) {
      recorded.push(
        await ctx.store.performance.record({
          ...performanceOf(instance, ctx.config.dialect, {
            kind: "production",
            proofsPerHour: rate.proofsPerHour,
            windowMs: link.windowMs,
            config: instance.tunedConfig,
          }),
          // Not a prediction of this type: calibration learns from the fleet's own runs.
          predictedProofsPerHour: undefined,
          source: "curio",
          taskType: rate.taskType,
          failures: rate.failed,
          at: untilMs,
        }),
      );
    }
  }
  return recorded;
}

/** The latest Curio rate of each instance and proof type, from host-performance rows. */
export function latestCurioRates(records: readonly HostPerformanceRecord[]): Map<string, CurioRate[]> {
  const latest = new Map<string, Map<string, HostPerformanceRecord>>();
  for (const r of records) {
    if (r.source !== "curio" || r.taskType === undefined) continue;
    const types = latest.get(r.instanceId) ?? new Map<string, HostPerformanceRecord>();
    const seen = types.get(r.taskType);
    if (seen === undefined || seen.seq < r.seq) types.set(r.taskType, r);
    latest.set(r.instanceId, types);
  }
  return new Map(
    [...latest].map(([id, types]) => [
      id,
      [...types.values()]
        .sort((a, b) => (a.taskType ?? "").localeCompare(b.taskType ?? ""))
        .map((r) => ({
          taskType: r.taskType as string,
          proofsPerHour: r.proofsPerHour,
          failures: r.failures ?? 0,
          at: r.at,
        })),
    ]),
  );
}
