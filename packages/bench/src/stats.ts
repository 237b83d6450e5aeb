/** Summary of a list of durations in milliseconds. */
export interface DurationStats {
  /** Number of samples. */
  count: number;
  /** Median (nearest-rank). */
  p50Ms: number;
  /** 95th percentile (nearest-rank). */
  p95Ms: number;
  /** Largest sample. */
  maxMs: number;
  /** Arithmetic mean. */
  meanMs: number;
}

/** Nearest-rank percentile of `sorted` (ascending); `q` in [0, 1]. */
export function percentile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1] ?? 0;
}

/** p50, p95, max and mean of `samplesMs`; all zero when empty. */
export function summarizeDurations(samplesMs: readonly number[]): DurationStats {
  const sorted = [...samplesMs].sort((a, b) => a - b);
  const sum = sorted.reduce((total, value) => total + value, 0);
  return {
    count: sorted.length,
    p50Ms: percentile(sorted, 0.5),
    p95Ms: percentile(sorted, 0.95),
    maxMs: sorted.at(-1) ?? 0,
    meanMs: sorted.length === 0 ? 0 : sum / sorted.length,
  };
}

/** Proofs per hour over a window: completed proofs / window length. 0 when the window is empty. */
export function proofsPerHour(completed: number, windowMs: number): number {
  return windowMs > 0 ? (completed * 3_600_000) / windowMs : 0;
}
