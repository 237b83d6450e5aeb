import type { ProofRecord } from "../protocol/requests.js";

// What a benchmark report's own proof records show: the timed proofs that carry their times,
// the window they span and how many ran at once (checkBenchmarkClaim judges the claim by it).

/** The timed, completed proofs of a report that carry both times. */
export interface TimedRecords {
  /** How many there are. */
  count: number;
  /** Their [submitMs, settleMs] intervals. */
  intervals: ReadonlyArray<readonly [number, number]>;
  /** From the first submit to the last settle, ms (0 with none). */
  windowMs: number;
  /** Most proofs in flight at once. */
  maxInFlight: number;
}

/** Most intervals open at once (an end at the same instant as a start does not overlap it). */
function maxOverlap(intervals: ReadonlyArray<readonly [number, number]>): number {
  const edges = intervals.flatMap(([start, end]) => [
    [start, 1],
    [end, -1],
  ]) as Array<[number, number]>;
  edges.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let open = 0;
  let most = 0;
  for (const [, step] of edges) {
    open += step;
    most = Math.max(most, open);
  }
  return most;
}

/** Reads the timed records out of every proof record of a report (warmups and failures left out). */
export function timedRecordsOf(proofs: readonly ProofRecord[]): TimedRecords {
  const timed = proofs.filter(
    (p) => !p.warmup && p.ok && p.submitMs !== undefined && p.settleMs !== undefined,
  );
  const intervals = timed.map((p) => [p.submitMs as number, p.settleMs as number] as const);
  const windowMs =
    intervals.length === 0
      ? 0
      : Math.max(...intervals.map(([, end]) => end)) - Math.min(...intervals.map(([start]) => start));
  return { count: timed.length, intervals, windowMs, maxInFlight: maxOverlap(intervals) };
}
