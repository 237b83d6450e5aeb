import { mayBeBilling } from "../lifecycle.js";
import { listBenchmarkSummaries } from "../store/dashboard-reads.js";
import type { FleetStore } from "../store/fleet-store.js";

// The dashboard's time series, built from the store's benchmarks and events: proofs/hour (each
// instance's counted rate and the fleet's sum) and what the fleet pays ($/h, $ per 1000 proofs).

/** A series of the proofs/hour chart: [times (epoch s)], [values]. */
export interface ProofsPerHourSeries {
  /** Epoch seconds (uPlot's x unit). */
  times: number[];
  /** One line per instance (null where it contributes nothing), plus `fleet` (the sum). */
  lines: { id: string; label: string; values: (number | null)[] }[];
  fleet: number[];
}

/**
 * Proofs/hour over time: an instance counts its counted rate (see countedRate) from the decision
 * that kept it until it leaves `active` (drained, failed, destroyed): the benchmark's rate, the
 * model's on probation, then each production review's; the fleet line is the sum. Points are
 * the moments that change it, plus now.
 */
export async function proofsPerHourSeries(store: FleetStore, now: number): Promise<ProofsPerHourSeries> {
  const spans: { id: string; label: string; from: number; to: number; rate: number }[] = [];
  for (const b of await listBenchmarkSummaries(store)) {
    const record = await store.get(b.instanceId);
    if (record === undefined) continue;
    const events = await store.events({ instanceId: b.instanceId });
    let to = now;
    for (const e of events) {
      if (e.at >= b.at && e.fromState === "active" && e.toState !== "active") {
        to = e.at;
        break;
      }
    }
    const decision = events.find((e) => e.type === "decision");
    if (
      decision !== undefined
        ? decision.toState !== "active"
        : b.verdict !== "MET" && record.state !== "active"
    ) {
      to = b.at;
    }
    // The rate changes where the manager recounted it: a suspect claim starts at the model's rate,
    // and production reviews carry the new counted rate.
    const changes: { at: number; rate: number }[] = [];
    let rate = b.proofsPerHour;
    for (const e of events) {
      const counted = e.detail?.countedProofsPerHour;
      if (e.at < b.at || typeof counted !== "number") continue;
      if (e.type === "claim-suspect") rate = counted;
      else if (!e.type.startsWith("claim-")) changes.push({ at: e.at, rate: counted });
    }
    let from = b.at;
    for (const change of changes) {
      if (change.at > to) break;
      spans.push({ id: b.instanceId, label: record.label, from, to: change.at, rate });
      from = change.at;
      rate = change.rate;
    }
    spans.push({ id: b.instanceId, label: record.label, from, to, rate });
  }
  const times = [...new Set(spans.flatMap((s) => [s.from, s.to]).concat(now))].sort((a, b) => a - b);
  // An instance's value at t: its latest segment holding t (a change point belongs to the new rate).
  const ids = [...new Map(spans.map((s) => [s.id, s.label])).entries()];
  const value = (id: string, t: number) => {
    let v: number | null = null;
    for (const s of spans) if (s.id === id && t >= s.from && t <= s.to) v = s.rate;
    return v;
  };
  const lines = ids.map(([id, label]) => ({ id, label, values: times.map((t) => value(id, t)) }));
  const fleet = times.map((t) => ids.reduce((sum, [id]) => sum + (value(id, t) ?? 0), 0));
  return { times: times.map((t) => t / 1000), lines, fleet };
}

/** The fleet's spend over time (GET /api/spend). */
export interface SpendSeries {
  /** Epoch seconds (uPlot's x unit). */
  times: number[];
  /** $/hour of every instance that may be billing at each time. */
  dollarsPerHour: number[];
  /** $ per 1000 proofs at each time: the fleet's $/h over its counted proofs/hour; null while it proves nothing. */
  dollarsPer1000Proofs: (number | null)[];
}

/**
 * What the fleet pays over time: an instance bills at its offer's $/h from the moment a rental
 * may exist (it leaves `planned`) until it is `destroyed`, as `mayBeBilling` says; $ per 1000
 * proofs divides that by the proofs/hour series at the same times. Points are the moments that
 * change either, plus now.
 */
export async function spendSeries(store: FleetStore, now: number): Promise<SpendSeries> {
  const spans: { from: number; to: number; dph: number }[] = [];
  for (const record of await store.list()) {
    let from: number | undefined;
    // Still billing: the span is open (it holds now too).
    let to = Number.POSITIVE_INFINITY;
    for (const e of await store.events({ instanceId: record.id })) {
      if (from === undefined && e.toState !== undefined && mayBeBilling(e.toState)) from = e.at;
      if (e.toState === "destroyed") {
        to = e.at;
        break;
      }
    }
    if (from !== undefined && to > from && from <= now) spans.push({ from, to, dph: record.dphPerHour });
  }
  const proofs = await proofsPerHourSeries(store, now);
  const proofTimes = proofs.times.map((t) => t * 1000);
  const bounds = spans.flatMap((s) => (Number.isFinite(s.to) ? [s.from, s.to] : [s.from]));
  const times = [...new Set(bounds.concat(proofTimes, now))].sort((a, b) => a - b);
  // A span ends where the rental was destroyed: billing stops at that instant.
  const dollarsPerHour = times.map((t) =>
    spans.reduce((sum, s) => sum + (t >= s.from && t < s.to ? s.dph : 0), 0),
  );
  // The fleet's proofs/hour at t: the last point of its series at or before t.
  const proofsAt = (t: number) => {
    let v = 0;
    proofTimes.forEach((pt, i) => {
      if (pt <= t) v = proofs.fleet[i] ?? 0;
    });
    return v;
  };
  const dollarsPer1000Proofs = times.map((t, i) => {
    const rate = proofsAt(t);
    return rate > 0 ? ((dollarsPerHour[i] as number) / rate) * 1000 : null;
  });
  return { times: times.map((t) => t / 1000), dollarsPerHour, dollarsPer1000Proofs };
}
