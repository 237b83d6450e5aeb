import type { FleetStore } from "../store/fleet-store.js";
import type { HostPerformanceRecord } from "../store/host-performance.js";
import type { InstanceRecord } from "../store/records.js";
import { type ClassCalibration, learnCalibration, type RateSample } from "./calibration.js";
import type { MachineMeasurements, RankingKnowledge } from "./ranking.js";

/** Verdicts whose rate is a measurement of the machine (FAILED and UNSTABLE measure nothing reliable). */
const measuringVerdicts = new Set(["MET", "BELOW"]);

/** The rate samples calibration learns from: MET and BELOW benchmarks and production reports with a prediction. */
export function rateSamples(records: readonly HostPerformanceRecord[]): RateSample[] {
  const out: RateSample[] = [];
  for (const r of records) {
    if (r.kind === "benchmark" && !measuringVerdicts.has(r.verdict ?? "")) continue;
    if (r.predictedProofsPerHour === undefined) continue;
    out.push({
      classKey: r.classKey,
      machineId: r.machineId,
      measuredProofsPerHour: r.proofsPerHour,
      predictedProofsPerHour: r.predictedProofsPerHour,
    });
  }
  return out;
}

/** What the fleet's history says, as the ranking's input. */
export interface KnowledgeSources {
  performance: readonly HostPerformanceRecord[];
  instances: readonly InstanceRecord[];
  /** Machine ids the store excludes, with why. */
  excluded: ReadonlyMap<number, string>;
  /** Instances that ever failed (a failed step, a lost agent, an exited instance). */
  failedInstanceIds: ReadonlySet<string>;
}

/**
 * Builds the ranking's knowledge from the store's history: the class calibrations, each
 * machine's measured runs, the machines never to rent again (FAILED or UNSTABLE benchmarks,
 * instances that failed, the store's exclusions) and each host's rentals and failures.
 */
export function buildKnowledge(sources: KnowledgeSources): RankingKnowledge & {
  calibration: Map<string, ClassCalibration>;
} {
  const machines = new Map<number, MachineMeasurements>();
  const machine = (id: number) => {
    let m = machines.get(id);
    if (m === undefined) {
      m = { runsProofsPerHour: [], excludedReason: undefined };
      machines.set(id, m);
    }
    return m;
  };
  for (const r of sources.performance) {
    // Curio's rates are per proof type (a PoRep an hour is not an UpdateProve an hour): shown
    // beside the fleet's own measurements, not mixed into them.
    if (r.machineId === undefined || r.source === "curio") continue;
    const m = machine(r.machineId);
    if (r.kind === "production" || measuringVerdicts.has(r.verdict ?? ""))
      m.runsProofsPerHour.push(r.proofsPerHour);
    else m.excludedReason ??= `its benchmark was ${r.verdict ?? "unknown"}`;
  }
  const hosts = new Map<number, { attempts: number; failures: number }>();
  for (const i of sources.instances) {
    const failed = sources.failedInstanceIds.has(i.id);
    if (failed && i.machineId !== undefined)
      machine(i.machineId).excludedReason ??= `it failed: ${i.reason ?? "unknown"}`;
    const hostId = i.offer.hostId;
    if (hostId === undefined) continue;
    const h = hosts.get(hostId) ?? { attempts: 0, failures: 0 };
    h.attempts += 1;
    if (failed) h.failures += 1;
    hosts.set(hostId, h);
  }
  for (const [id, reason] of sources.excluded) machine(id).excludedReason ??= reason;
  return { calibration: learnCalibration(rateSamples(sources.performance)), machines, hosts };
}

/** The knowledge of a fleet store. */
export async function knowledgeFromStore(store: FleetStore): Promise<ReturnType<typeof buildKnowledge>> {
  return buildKnowledge({
    performance: await store.performance.list(),
    instances: await store.list(),
    excluded: await store.performance.excludedMachines(),
    failedInstanceIds: await store.performance.failedInstanceIds(),
  });
}
