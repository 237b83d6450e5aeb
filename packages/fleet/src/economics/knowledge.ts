import type { FleetStore } from "../store/fleet-store.js";
import type { HostPerformanceRecord } from "../store/host-performance.js";
import type { InstanceRecord } from "../store/records.js";
import { type ClassCalibration, learnCalibration, type RateSample } from "./calibration.js";
import { learnPreemptionRate } from "./interruptible.js";
import {
  assessFleet,
  type ExclusionPolicy,
  type FleetAssessment,
  type MachineEvidenceRecord,
  type Rental,
} from "./machine-evidence.js";
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
  /** Every machine evidence row (failures, deaths, operator actions, lifts). */
  evidence: readonly MachineEvidenceRecord[];
  /** Now, epoch ms: exclusions expire. */
  now: number;
  /** How evidence excludes and shrinks. Default: fleetDefaults. */
  policy?: ExclusionPolicy | undefined;
}

/**
 * Builds the ranking's knowledge from the store's history: the class calibrations, each
 * machine's measured runs, its shrunk failure rate and its exclusion (from the evidence, with
 * expiry: see assessFleet), and each host's rentals, failures and rate. A machine's rentals
 * are its instances Vast created (those with a Vast id).
 */
export function buildKnowledge(sources: KnowledgeSources): RankingKnowledge & {
  calibration: Map<string, ClassCalibration>;
  assessment: FleetAssessment;
} {
  const rentals: Rental[] = [];
  for (const i of sources.instances) {
    if (i.machineId !== undefined && i.vastId !== undefined) {
      rentals.push({ machineId: i.machineId, hostId: i.offer.hostId });
    }
  }
  const assessment = assessFleet(sources.evidence, rentals, sources.now, sources.policy);
  const machines = new Map<number, MachineMeasurements>();
  const machine = (id: number) => {
    let m = machines.get(id);
    if (m === undefined) {
      const assessed = assessment.machines.get(id);
      m = {
        runsProofsPerHour: [],
        excludedReason: assessed?.exclusion?.reason,
        failureRate: assessed?.failureRate,
      };
      machines.set(id, m);
    }
    return m;
  };
  for (const id of assessment.machines.keys()) machine(id);
  for (const r of sources.performance) {
    // Curio's rates are per proof type (a PoRep an hour is not an UpdateProve an hour): shown
    // beside the fleet's own measurements, not mixed into them.
    if (r.machineId === undefined || r.source === "curio") continue;
    // FAILED and UNSTABLE benchmarks measure nothing; their evidence is in machine_evidence.
    if (r.kind === "production" || measuringVerdicts.has(r.verdict ?? ""))
      machine(r.machineId).runsProofsPerHour.push(r.proofsPerHour);
  }
  const hosts = new Map<number, { attempts: number; failures: number; failureRate: number }>();
  for (const [id, h] of assessment.hosts) {
    hosts.set(id, { attempts: h.rentals, failures: h.failures, failureRate: h.failureRate });
  }
  return {
    calibration: learnCalibration(rateSamples(sources.performance)),
    machines,
    hosts,
    fleetFailureRate: assessment.fleetFailureRate,
    // Rented hours: from the row's creation to its last change once it ended, else to now.
    preemptionsPerHour: learnPreemptionRate(
      sources.instances,
      (i) => ((i.state === "destroyed" ? i.updatedAt : sources.now) - i.createdAt) / 3_600_000,
    ),
    assessment,
  };
}

/** The knowledge of a fleet store, now (its clock is the caller's). */
export async function knowledgeFromStore(
  store: FleetStore,
  now: number = Date.now(),
  policy?: ExclusionPolicy,
): Promise<ReturnType<typeof buildKnowledge>> {
  return buildKnowledge({
    performance: await store.performance.list(),
    instances: await store.list(),
    evidence: await store.machineEvidence(),
    now,
    policy,
  });
}
