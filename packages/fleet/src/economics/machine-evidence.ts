import { fleetDefaults } from "../defaults.js";

// Exclusion as evidence: every failure or death of a rental is a row with its kind, and what a
// machine is (excluded or not, how likely to fail) is computed from those rows and the clock,
// never stored as a verdict. Only failures that are the machine's own count against it.

/** Kinds of machine evidence. */
export const evidenceKinds = [
  /** The machine died: its agent went silent, Vast reports it exited, or it vanished. */
  "death",
  /** A step failed on the machine: a phase ran past its deadline, the agent reported a failure, FAILED benchmark. */
  "failure",
  /** The benchmark said UNSTABLE (proofs failed or the daemon restarted). */
  "unstable",
  /** The operator destroyed the instance (not the machine's fault). */
  "operator-destroy",
  /** The manager crashed or was down (a crash-left renting row, a deadline that passed while it was down). */
  "manager-outage",
  /** Vast's API refused or never answered a create (not the machine's fault). */
  "vast-error",
  /** An interruptible rental was outbid and stopped by Vast (the market's doing, not the machine's). */
  "preempted",
  /** The operator cordoned the machine: excluded until lifted. */
  "cordon",
  /** The operator lifted the machine's exclusion: evidence before it no longer excludes. */
  "lift",
] as const;

/** One kind of machine evidence. */
export type EvidenceKind = (typeof evidenceKinds)[number];

/** Kinds that are the machine's fault: they count as failures and can exclude it. */
export const attributableKinds: ReadonlySet<EvidenceKind> = new Set(["death", "failure", "unstable"]);

/** One row of machine evidence. */
export interface MachineEvidenceRecord {
  seq: number;
  machineId: number;
  hostId: number | undefined;
  /** The instance (rental) it happened to, when there was one. */
  instanceId: string | undefined;
  /** Epoch ms. */
  at: number;
  kind: EvidenceKind;
  reason: string;
}

/** What a new evidence row carries. */
export type MachineEvidenceInput = Omit<MachineEvidenceRecord, "seq" | "at"> & { at?: number | undefined };

/** How evidence turns into exclusion and failure rates. */
export interface ExclusionPolicy {
  /** How long an exclusion lasts after the evidence that earned it, ms. Default 7 days. */
  periodMs: number;
  /** Machine-attributable failures within the period that exclude. Default 2. */
  repeatFailures: number;
  /** The prior's weight, in rentals, of the shrinkage toward the host's and fleet's rate. Default 4. */
  priorRentals: number;
}

/** The default exclusion policy (fleetDefaults). */
export const defaultExclusionPolicy: ExclusionPolicy = {
  periodMs: fleetDefaults.exclusionPeriodMs,
  repeatFailures: fleetDefaults.exclusionRepeatFailures,
  priorRentals: fleetDefaults.failureRatePriorRentals,
};

/** Why and until when a machine is excluded. */
export interface MachineExclusion {
  reason: string;
  /** When the exclusion began (the evidence that earned it), epoch ms. */
  since: number;
  /** When it expires, epoch ms; undefined: until the operator lifts it (a cordon). */
  until: number | undefined;
}

/** A rental of a machine (an instance Vast created): the denominator of its failure rate. */
export interface Rental {
  machineId: number;
  hostId: number | undefined;
}

/** A machine as its evidence describes it. */
export interface MachineAssessment {
  machineId: number;
  hostId: number | undefined;
  rentals: number;
  /** Machine-attributable failures, all time. */
  failures: number;
  /** Shrunk failure-rate estimate, 0..1 (see assessFleet). */
  failureRate: number;
  exclusion: MachineExclusion | undefined;
  /** Every evidence row of the machine, oldest first. */
  evidence: MachineEvidenceRecord[];
}

/** A host's rentals, failures and shrunk failure rate. */
export interface HostAssessment {
  rentals: number;
  failures: number;
  failureRate: number;
}

/** Every machine and host the evidence or the rentals name. */
export interface FleetAssessment {
  /** The fleet's failure rate F/(N + k): attributable failures per rental, shrunk toward 0. */
  fleetFailureRate: number;
  machines: Map<number, MachineAssessment>;
  hosts: Map<number, HostAssessment>;
}

/** The posterior mean of a beta-binomial with a prior of mean `prior` and weight `k` rentals. */
const shrunk = (failures: number, rentals: number, prior: number, k: number) =>
  (failures + k * prior) / (rentals + k);

/**
 * A machine's exclusion at `now`, from its evidence (oldest first): only evidence after the
 * operator's last lift counts. A cordon excludes until lifted; an UNSTABLE verdict excludes for
 * the period after it; `repeatFailures` machine-attributable failures within one period exclude
 * until the oldest of the latest `repeatFailures` is a period old. One failure never excludes.
 */
export function machineExclusion(
  evidence: readonly MachineEvidenceRecord[],
  now: number,
  policy: ExclusionPolicy = defaultExclusionPolicy,
): MachineExclusion | undefined {
  const lastLift = evidence.reduce((seq, e) => (e.kind === "lift" ? Math.max(seq, e.seq) : seq), 0);
  const live = evidence.filter((e) => e.seq > lastLift);
  const cordon = live.findLast((e) => e.kind === "cordon");
  if (cordon !== undefined) return { reason: cordon.reason, since: cordon.at, until: undefined };
  const recent = live.filter((e) => attributableKinds.has(e.kind) && now - e.at < policy.periodMs);
  let best: MachineExclusion | undefined;
  const consider = (candidate: MachineExclusion) => {
    if (best === undefined || (candidate.until ?? 0) > (best.until ?? 0)) best = candidate;
  };
  const unstable = recent.findLast((e) => e.kind === "unstable");
  if (unstable !== undefined) {
    consider({ reason: unstable.reason, since: unstable.at, until: unstable.at + policy.periodMs });
  }
  if (recent.length >= policy.repeatFailures) {
    const newestFirst = [...recent].sort((a, b) => b.at - a.at);
    const edge = newestFirst[policy.repeatFailures - 1] as MachineEvidenceRecord;
    consider({
      reason: `${recent.length} failures within ${Math.round(policy.periodMs / 3_600_000)} h, the latest: ${newestFirst[0]?.reason}`,
      since: newestFirst[0]?.at ?? edge.at,
      until: edge.at + policy.periodMs,
    });
  }
  return best;
}

/**
 * Assesses every machine and host. Failure rates are empirical-Bayes (beta-binomial posterior
 * mean) estimates, shrunk in three levels with one prior weight k = `priorRentals`: the fleet's
 * rate p = F/(N + k) (attributable failures per rental, toward 0); a host's (f + k·p)/(n + k); a machine's
 * (f + k·host)/(n + k), toward its host's rate (the fleet's when the host is unknown). So one
 * death on a new machine moves its rate part of the way, and a machine with a long clean record
 * sits well below a flaky one.
 */
export function assessFleet(
  evidence: readonly MachineEvidenceRecord[],
  rentals: readonly Rental[],
  now: number,
  policy: ExclusionPolicy = defaultExclusionPolicy,
): FleetAssessment {
  const k = policy.priorRentals;
  const byMachine = new Map<
    number,
    { hostId: number | undefined; rentals: number; evidence: MachineEvidenceRecord[] }
  >();
  const entry = (machineId: number, hostId: number | undefined) => {
    let m = byMachine.get(machineId);
    if (m === undefined) {
      m = { hostId, rentals: 0, evidence: [] };
      byMachine.set(machineId, m);
    }
    m.hostId ??= hostId;
    return m;
  };
  for (const r of rentals) entry(r.machineId, r.hostId).rentals += 1;
  for (const e of [...evidence].sort((a, b) => a.seq - b.seq)) entry(e.machineId, e.hostId).evidence.push(e);

  const failuresOf = (m: { evidence: MachineEvidenceRecord[] }) =>
    m.evidence.filter((e) => attributableKinds.has(e.kind)).length;
  let fleetFailures = 0;
  let fleetRentals = 0;
  const hostTotals = new Map<number, { rentals: number; failures: number }>();
  for (const m of byMachine.values()) {
    const failures = failuresOf(m);
    // A failure is of a rental: never more failures than rentals (rentals older than the history).
    const rented = Math.max(m.rentals, failures);
    fleetFailures += failures;
    fleetRentals += rented;
    if (m.hostId === undefined) continue;
    const h = hostTotals.get(m.hostId) ?? { rentals: 0, failures: 0 };
    h.rentals += rented;
    h.failures += failures;
    hostTotals.set(m.hostId, h);
  }
  // The fleet's own rate is shrunk toward 0 (no failure assumed before any evidence) with the same k.
  const fleetFailureRate = shrunk(fleetFailures, fleetRentals, 0, k);
  const hosts = new Map<number, HostAssessment>();
  for (const [id, h] of hostTotals) {
    hosts.set(id, { ...h, failureRate: shrunk(h.failures, h.rentals, fleetFailureRate, k) });
  }
  const machines = new Map<number, MachineAssessment>();
  for (const [machineId, m] of byMachine) {
    const failures = failuresOf(m);
    const rented = Math.max(m.rentals, failures);
    const prior = (m.hostId === undefined ? undefined : hosts.get(m.hostId)?.failureRate) ?? fleetFailureRate;
    machines.set(machineId, {
      machineId,
      hostId: m.hostId,
      rentals: rented,
      failures,
      failureRate: shrunk(failures, rented, prior, k),
      exclusion: machineExclusion(m.evidence, now, policy),
      evidence: m.evidence,
    });
  }
  return { fleetFailureRate, machines, hosts };
}
