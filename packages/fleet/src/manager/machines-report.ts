import { InvalidInputError } from "@cuzkit/core";
import {
  assessFleet,
  type EvidenceKind,
  type ExclusionPolicy,
  type MachineEvidenceRecord,
  type Rental,
} from "../economics/machine-evidence.js";
import type { FleetStore } from "../store/fleet-store.js";
import type { CurioDrainRecord } from "../store/records.js";

/** One machine as `cuzkit fleet hosts` and the dashboard show it. */
export interface MachineReport {
  machineId: number;
  hostId: number | undefined;
  /** Instances Vast created on it. */
  rentals: number;
  /** Machine-attributable failures and deaths, all time. */
  failures: number;
  /** The machine's shrunk failure-rate estimate, 0..1. */
  failureRate: number;
  /** Its host's shrunk failure-rate estimate, 0..1 (the fleet's when the host is unknown). */
  hostFailureRate: number;
  /** True when the machine is excluded now. */
  excluded: boolean;
  /** Why it is excluded. */
  exclusionReason: string | undefined;
  /** When the exclusion ends, epoch ms; undefined while not excluded, or until lifted (a cordon). */
  excludedUntil: number | undefined;
  /** Every evidence row, oldest first, with whether it counts against the machine. */
  evidence: (MachineEvidenceRecord & { counts: boolean })[];
  /** The Curio drain held on the node of its live instance (see InstanceRecord.curioDrain); undefined when none. */
  curioDrain?: (CurioDrainRecord & { instanceId: string }) | undefined;
}

/** Every machine the fleet has evidence or rentals of. */
export interface MachinesReport {
  /** When it was computed, epoch ms. */
  now: number;
  /** The fleet's failure rate (the prior of every host's). */
  fleetFailureRate: number;
  /** How long an exclusion lasts, ms. */
  exclusionPeriodMs: number;
  /** Excluded machines first, then by failure rate, highest first. */
  machines: MachineReport[];
}

const counting: ReadonlySet<EvidenceKind> = new Set(["death", "failure", "unstable"]);

/** The machines report of a store at `now` under `policy`. */
export async function machinesReport(
  store: FleetStore,
  now: number,
  policy: ExclusionPolicy,
): Promise<MachinesReport> {
  const instances = await store.list();
  const drains = new Map<number, CurioDrainRecord & { instanceId: string }>();
  for (const i of instances)
    if (i.machineId !== undefined && i.curioDrain !== undefined)
      drains.set(i.machineId, { ...i.curioDrain, instanceId: i.id });
  const rentals: Rental[] = instances
    .filter((i) => i.machineId !== undefined && i.vastId !== undefined)
    .map((i) => ({ machineId: i.machineId as number, hostId: i.offer.hostId }));
  const assessment = assessFleet(await store.machineEvidence(), rentals, now, policy);
  const machines = [...assessment.machines.values()].map(
    (m): MachineReport => ({
      machineId: m.machineId,
      hostId: m.hostId,
      rentals: m.rentals,
      failures: m.failures,
      failureRate: m.failureRate,
      hostFailureRate:
        (m.hostId === undefined ? undefined : assessment.hosts.get(m.hostId)?.failureRate) ??
        assessment.fleetFailureRate,
      excluded: m.exclusion !== undefined,
      exclusionReason: m.exclusion?.reason,
      excludedUntil: m.exclusion?.until,
      evidence: m.evidence.map((e) => ({ ...e, counts: counting.has(e.kind) })),
      curioDrain: drains.get(m.machineId),
    }),
  );
  machines.sort(
    (a, b) =>
      Number(b.excluded) - Number(a.excluded) || b.failureRate - a.failureRate || a.machineId - b.machineId,
  );
  return {
    now,
    fleetFailureRate: assessment.fleetFailureRate,
    exclusionPeriodMs: policy.periodMs,
    machines,
  };
}

/**
 * Lifts a machine's exclusion (a `lift` evidence row and a `machine-lifted` event). Throws
 * InvalidInputError when the machine is not excluded now: there is nothing to lift.
 */
export async function liftMachineExclusion(
  store: FleetStore,
  machineId: number,
  policy: ExclusionPolicy,
  reason = "lifted by the operator",
): Promise<MachineEvidenceRecord> {
  if (!(await store.isMachineExcluded(machineId, policy))) {
    throw new InvalidInputError(`machine ${machineId} is not excluded; there is nothing to lift`, {
      hint: "cuzkit fleet hosts lists each machine with its exclusion",
    });
  }
  return store.liftExclusion(machineId, reason);
}
