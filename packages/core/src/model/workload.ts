import type { ProofKind } from "../vocabulary.js";

/** What the daemon is asked to do. */
export interface Workload {
  /** The proof kind being proven; throughput is modelled for it. Default "porep". */
  kind: ProofKind;
  /** Other kinds that run on the same daemon now and then: their parameters stay resident. Default none. */
  alsoResident?: readonly ProofKind[] | undefined;
  /** Proofs the client keeps in flight at once (the benchmark's concurrency). */
  concurrency: number;
}

/**
 * Which moment of the daemon's life to model.
 * - `warmup`: one proof alone right after start, with no PCE cache yet (then the daemon restarts).
 * - `cold-start`: the full workload right after start with no PCE cache: the first proofs
 *   overlap the background PCE extraction.
 * - `steady`: PCE resident, no extraction running.
 */
export type DaemonPhase = "warmup" | "cold-start" | "steady";

/** Named workloads the tuner and CLI accept. */
export const workloadPresets = {
  porep: { kind: "porep" },
  snap: { kind: "snap" },
  wpost: { kind: "wpost" },
  mix: { kind: "porep", alsoResident: ["wpost", "winning", "snap"] },
} as const satisfies Record<string, { kind: ProofKind; alsoResident?: readonly ProofKind[] }>;
/** A workload preset name. */
export type WorkloadPreset = keyof typeof workloadPresets;

/** Kinds whose parameters are resident for a workload, the main kind first, without repeats. */
export function residentKinds(workload: Workload): ProofKind[] {
  return [...new Set([workload.kind, ...(workload.alsoResident ?? [])])];
}
