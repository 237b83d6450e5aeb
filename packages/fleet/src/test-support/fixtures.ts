import { type InstanceState, timedStates } from "../lifecycle.js";
import type { FleetStore, PlanInstanceInput, TransitionChanges } from "../store/fleet-store.js";
import type { OfferSnapshot } from "../store/records.js";

/** An offer snapshot for tests: 2x RTX 3090, 256 GiB, 1 Gbit/s, $0.50/h. */
export function testOffer(overrides: Partial<OfferSnapshot> = {}): OfferSnapshot {
  return {
    offerId: 1001,
    machineId: 501,
    gpuName: "RTX 3090",
    numGpus: 2,
    gpuRamBytes: 24 * 2 ** 30,
    cpuRamBytes: 256 * 2 ** 30,
    cpuCores: 32,
    dphTotal: 0.5,
    inetDownMbps: 1000,
    geolocation: "BE",
    hardware: {
      ramBytes: 256 * 2 ** 30,
      usableRamBytes: 256 * 2 ** 30,
      cpuThreads: 32,
      hostCpuThreads: 32,
      gpus: [
        { model: "RTX 3090", vramBytes: 24 * 2 ** 30 },
        { model: "RTX 3090", vramBytes: 24 * 2 ** 30 },
      ],
    },
    ...overrides,
  };
}

/** A plan input for tests, with the id used in the label. */
export function testPlan(id: string, overrides: Partial<PlanInstanceInput> = {}): PlanInstanceInput {
  return {
    id,
    fleet: "test",
    label: `cuzkit-fleet-test-${id}`,
    offer: testOffer(),
    deadlinesMs: { booting: 600_000, registered: 60_000, params: 1_800_000 },
    tokenHash: "0".repeat(64),
    ...overrides,
  };
}

/** The states a kept machine passes through, in order: planned, each timed phase of renting and vetting, active. */
export const keptPath: readonly InstanceState[] = ["planned", ...timedStates, "active"];

/**
 * Moves a planned instance along {@link keptPath} up to benchmarking, one guarded transition a
 * step, as the manager and its agent would; `booted` goes with the move to booting (the Vast id).
 */
export async function vetInStore(
  store: FleetStore,
  id: string,
  booted: TransitionChanges = {},
): Promise<void> {
  const path = keptPath.slice(0, keptPath.indexOf("benchmarking") + 1);
  for (const [i, to] of path.entries()) {
    const from = path[i - 1];
    if (from !== undefined)
      await store.transition(id, from, to, { changes: to === "booting" ? booted : undefined });
  }
}
