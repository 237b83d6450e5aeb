// Kept free of imports: the browser bundle and the CLI both show Curio's rates with it.

/** Curio's latest production of one machine for one proof type (from `harmony_task_history`). */
export interface CurioRate {
  /** Curio's task name: PoRep, UpdateProve or PSProve. */
  taskType: string;
  proofsPerHour: number;
  /** Tasks of this type that ended in an error over the same window. */
  failures: number;
  /** When the window ended, ms since the epoch. */
  at: number;
}

/** The rates as people read them, e.g. "PoRep 12.3 (1 failed), UpdateProve 4.0"; "-" with none. */
export function curioRatesText(rates: readonly CurioRate[], none = "-"): string {
  if (rates.length === 0) return none;
  return rates
    .map(
      (c) => `${c.taskType} ${c.proofsPerHour.toFixed(1)}${c.failures > 0 ? ` (${c.failures} failed)` : ""}`,
    )
    .join(", ");
}
