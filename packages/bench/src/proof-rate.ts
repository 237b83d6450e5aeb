// The benchmark's one throughput figure, shared by the report and the early verdict.
//
// Each of the `concurrency` workers (a slot) runs its proofs one after another, so a slot is a
// renewal process: a proof's cycle is the time from the slot's previous completion (or the slot's
// first submit) to this proof's completion, queueing, client gaps and failed attempts included.
// The machine then sustains slots x completions per slot-hour:
//   proofs/hour = slots x 3 600 000 x completed / sum of their cycles (ms)
// It counts only time a slot spent producing the completions it counts (its window ends at its
// last completion), so a batch cut short by an early verdict measures the same thing as a full
// one, with no ramp-up or drain bias from proofs that were still in flight.

/** One completed proof's share of the measurement. */
export interface ProofCycle {
  /** The worker (1-based) that ran it. */
  slot: number;
  /** Time since the slot's previous completion, or since its first submit for its first proof, in ms. */
  cycleMs: number;
}

/** What a proofs/hour figure rests on. */
export interface RateBasis {
  /** Completed timed proofs counted. */
  proofs: number;
  /** Slots (workers) that completed at least one of them. */
  slots: number;
  /** Sum of the proofs' cycles (each slot's first submit to its last completion, summed over slots), in ms. */
  slotTimeMs: number;
}

/** The basis of the rate over `cycles` (summed in the order given). */
export function rateBasis(cycles: readonly ProofCycle[]): RateBasis {
  let slotTimeMs = 0;
  const slots = new Set<number>();
  for (const cycle of cycles) {
    slotTimeMs += cycle.cycleMs;
    slots.add(cycle.slot);
  }
  return { proofs: cycles.length, slots: slots.size, slotTimeMs };
}

/** Proofs/hour of a basis: slots x completions per slot-hour; 0 when nothing completed. */
export function basisProofsPerHour(basis: RateBasis): number {
  return basis.slotTimeMs > 0 ? (basis.slots * basis.proofs * 3_600_000) / basis.slotTimeMs : 0;
}
