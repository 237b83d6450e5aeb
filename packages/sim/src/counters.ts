import { type ProofKind, proofKinds } from "@cuzkit/core";

// Proof counters of one daemon run, as the daemon keeps them: gRPC totals count every kind;
// the HTTP /status counters only count the partitioned PoRep/Snap path (a daemon quirk); the
// duration summary covers the last 1000 completions.

/** Counters of one daemon run. */
export interface ProofCounters {
  completed: number;
  failed: number;
  completedByKind: Record<ProofKind, number>;
  failedByKind: Record<ProofKind, number>;
  /** Submit-to-completion seconds of the last <= 1000 completions. */
  recentDurations: { kind: ProofKind; seconds: number }[];
  record(kind: ProofKind, status: "completed" | "failed", durationSec: number): void;
}

/** Size of the daemon's completion ring buffer. */
export const durationRingSize = 1000;

const zeroByKind = (): Record<ProofKind, number> =>
  Object.fromEntries(proofKinds.map((kind) => [kind, 0])) as Record<ProofKind, number>;

/** Creates zeroed counters. */
export function createProofCounters(): ProofCounters {
  const counters: ProofCounters = {
    completed: 0,
    failed: 0,
    completedByKind: zeroByKind(),
    failedByKind: zeroByKind(),
    recentDurations: [],
    record(kind, status, durationSec) {
      if (status === "completed") {
        counters.completed++;
        counters.completedByKind[kind]++;
        counters.recentDurations.push({ kind, seconds: durationSec });
        if (counters.recentDurations.length > durationRingSize) counters.recentDurations.shift();
      } else {
        counters.failed++;
        counters.failedByKind[kind]++;
      }
    },
  };
  return counters;
}
