import { describe, expect, it } from "vitest";
import {
  assessFleet,
  defaultExclusionPolicy,
  type EvidenceKind,
  type MachineEvidenceRecord,
  machineExclusion,
} from "./machine-evidence.js";

const hour = 3_600_000;
const policy = { ...defaultExclusionPolicy, periodMs: 24 * hour };
let seq = 0;
const row = (
  kind: EvidenceKind,
  at: number,
  machineId = 7,
  hostId: number | undefined = 70,
): MachineEvidenceRecord => ({
  seq: ++seq,
  machineId,
  hostId,
  instanceId: `i-${seq}`,
  at,
  kind,
  reason: kind,
});

describe("machine exclusion from evidence", () => {
  it("never counts what is not the machine's fault, however often", () => {
    const rows = (["operator-destroy", "manager-outage", "vast-error"] as const).flatMap((k) => [
      row(k, 0),
      row(k, 1),
    ]);
    expect(machineExclusion(rows, 2, policy)).toBeUndefined();
    expect(assessFleet(rows, [], 2, policy).machines.get(7)).toMatchObject({ failures: 0, failureRate: 0 });
  });

  it("excludes on the second failure within the period, until the older leaves it", () => {
    const first = row("death", 0);
    expect(machineExclusion([first], 1, policy)).toBeUndefined();
    const second = row("failure", 10 * hour);
    expect(machineExclusion([first, second], 10 * hour, policy)).toMatchObject({
      since: 10 * hour,
      until: 24 * hour,
    });
    expect(machineExclusion([first, second], 24 * hour, policy)).toBeUndefined();
    // Two failures further apart than the period never exclude.
    expect(machineExclusion([first, row("death", 25 * hour)], 25 * hour, policy)).toBeUndefined();
  });

  it("excludes for the period after UNSTABLE, and a cordon until lifted", () => {
    const unstable = row("unstable", 5);
    expect(machineExclusion([unstable], 5, policy)?.until).toBe(5 + 24 * hour);
    expect(machineExclusion([unstable], 5 + 24 * hour, policy)).toBeUndefined();
    const cordon = row("cordon", 0);
    expect(machineExclusion([cordon], 1000 * hour, policy)).toMatchObject({ until: undefined });
    expect(machineExclusion([cordon, row("lift", 1)], 2, policy)).toBeUndefined();
  });

  it("lets a lift forgive the exclusion, not the failure rate", () => {
    const rows = [row("death", 0), row("death", 1), row("lift", 2)];
    expect(machineExclusion(rows, 3, policy)).toBeUndefined();
    expect(assessFleet(rows, [], 3, policy).machines.get(7)?.failures).toBe(2);
    // New evidence after the lift excludes again only when it repeats.
    expect(machineExclusion([...rows, row("death", 3)], 4, policy)).toBeUndefined();
    expect(machineExclusion([...rows, row("death", 3), row("death", 4)], 5, policy)).toBeDefined();
  });
});

describe("failure-rate estimates", () => {
  it("shrink a machine toward its host and a host toward the fleet (k = 4)", () => {
    const rentals = [
      ...Array.from({ length: 4 }, () => ({ machineId: 1, hostId: 10 })),
      ...Array.from({ length: 4 }, () => ({ machineId: 2, hostId: 20 })),
      { machineId: 3, hostId: 20 },
    ];
    const evidence = [row("death", 0, 1, 10), row("death", 0, 1, 10)];
    const a = assessFleet(evidence, rentals, 0, defaultExclusionPolicy);
    // Fleet: 2 failures in 9 rentals, toward 0: 2 / (9 + 4).
    const fleet = 2 / 13;
    expect(a.fleetFailureRate).toBeCloseTo(fleet, 12);
    const host10 = (2 + 4 * fleet) / (4 + 4);
    expect(a.hosts.get(10)?.failureRate).toBeCloseTo(host10, 12);
    expect(a.machines.get(1)?.failureRate).toBeCloseTo((2 + 4 * host10) / (4 + 4), 12);
    const host20 = (0 + 4 * fleet) / (5 + 4);
    expect(a.machines.get(3)?.failureRate).toBeCloseTo((0 + 4 * host20) / (1 + 4), 12);
    // The clean machine with four rentals sits below the new one on the same host, both far below the flaky one.
    const rate = (id: number) => a.machines.get(id)?.failureRate as number;
    expect(rate(2)).toBeLessThan(rate(3));
    expect(rate(3)).toBeLessThan(rate(1));
  });
});
