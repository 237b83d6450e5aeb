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

/**
 * The cycles of completed proofs known only by their submit and settle times (ms), as a reader
 * of a report (the fleet manager checking an agent's claim) has them: each proof is given to the
 * slot that freed last at or before its submit (a worker submits its next proof as its previous
 * one settles), else to a new slot. On the bench's own records this rebuilds its slots, so
 * `basisProofsPerHour(rateBasis(cyclesFromIntervals(...)))` is the report's figure.
 */
export function cyclesFromIntervals(intervals: readonly (readonly [number, number])[]): ProofCycle[] {
  const bySubmit = [...intervals].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  /** Each slot's last settle. */
  const slotFreeAtMs: number[] = [];
  const cycles: ProofCycle[] = [];
  for (const [submitMs, settleMs] of bySubmit) {
    let best = -1;
    for (let i = 0; i < slotFreeAtMs.length; i++) {
      const freeAt = slotFreeAtMs[i] as number;
      if (freeAt <= submitMs && (best < 0 || freeAt > (slotFreeAtMs[best] as number))) best = i;
    }
    if (best < 0) {
      slotFreeAtMs.push(settleMs);
      cycles.push({ slot: slotFreeAtMs.length, cycleMs: settleMs - submitMs });
    } else {
      cycles.push({ slot: best + 1, cycleMs: settleMs - (slotFreeAtMs[best] as number) });
      slotFreeAtMs[best] = settleMs;
    }
  }
  return cycles;
}

/** Proofs/hour from completed proofs' submit and settle times: the report's figure, rebuilt by a reader. */
export function proofsPerHourFromIntervals(intervals: readonly (readonly [number, number])[]): number {
  return basisProofsPerHour(rateBasis(cyclesFromIntervals(intervals)));
}
