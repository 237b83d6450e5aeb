// The bench report's proofs/hour recomputed from its records alone, written apart from the
// bench's own code (proof-rate.ts) so the tests check the figure against an independent reading
// of its definition: per slot, its first timed submit to its last timed completion; the slots
// with a completion x completed proofs x 1 h / the sum of those spans.

/** A timed or warmup proof record, as the report and the `--out` JSON lines carry it. */
export interface SlotRecord {
  warmup: boolean;
  slot?: number | undefined;
  outcome: string;
  submitMs: number;
  settleMs: number;
}

/** Proofs/hour from `records`: slots x completions per slot-hour. */
export function slotRate(records: readonly SlotRecord[]): number {
  const spans = new Map<number, { from: number; to: number; completed: number }>();
  for (const r of records) {
    if (r.warmup || r.slot === undefined) continue;
    const span = spans.get(r.slot) ?? { from: r.submitMs, to: r.submitMs, completed: 0 };
    span.from = Math.min(span.from, r.submitMs);
    if (r.outcome === "completed") {
      span.completed++;
      span.to = Math.max(span.to, r.settleMs);
    }
    spans.set(r.slot, span);
  }
  const used = [...spans.values()].filter((s) => s.completed > 0);
  const completed = used.reduce((sum, s) => sum + s.completed, 0);
  const slotTimeMs = used.reduce((sum, s) => sum + s.to - s.from, 0);
  return slotTimeMs > 0 ? (used.length * completed * 3_600_000) / slotTimeMs : 0;
}
