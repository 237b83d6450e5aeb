/** The q-quantile (0..1) of samples, by nearest rank. */
export function quantile(samples: number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index] ?? Number.NaN;
}

/** Median and p95 of samples. */
export function summarize(samples: number[]): { median: number; p95: number } {
  return { median: quantile(samples, 0.5), p95: quantile(samples, 0.95) };
}
