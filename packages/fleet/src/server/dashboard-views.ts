// shape-exception: every view the dashboard and API show, with the rule for what they may show (no secrets)
import type { CurioRate } from "../curio/curio-rate.js";
import { countedRate } from "../evidence/counted-rate.js";
import { heartbeatStates, type InstanceState, instanceStates, mayBeBilling } from "../lifecycle.js";
import type { ExcludedOffer, RankedOffer } from "../manager/rank-offers.js";
import { type BenchmarkSummary, listBenchmarkSummaries } from "../store/dashboard-reads.js";
import type { FleetStore } from "../store/fleet-store.js";
import type { FleetEvent, InstanceRecord, RateBasis } from "../store/records.js";

// What the dashboard and the admin API show, built from the store. Every view is an explicit
// pick of fields: the token hash, the tuned config and anything else not listed never leaves
// the manager, so a new column cannot leak by default.

/** One instance as the dashboard shows it. Times are epoch ms. */
export interface InstanceView {
  id: string;
  label: string;
  state: InstanceState;
  gpuName: string;
  numGpus: number;
  machineId: number | null;
  vastId: number | null;
  geolocation: string | null;
  phaseStartedAt: number;
  phaseDeadlineAt: number | null;
  lastHeartbeatAt: number | null;
  /** Counted proofs/hour (see countedRate), once benchmarked. */
  proofsPerHour: number | null;
  /** What the counted rate rests on: benchmark, probation (the model's rate) or production. */
  rateBasis?: RateBasis | null | undefined;
  /** The evidence beside it: the claim, what the records support, the model, the last window's production. */
  claimedProofsPerHour?: number | null | undefined;
  benchmarkProofsPerHour?: number | null | undefined;
  modelProofsPerHour?: number | null | undefined;
  productionProofsPerHour?: number | null | undefined;
  dphPerHour: number;
  /** $ per 1000 proofs at the measured rate; null before a measurement. */
  dollarsPer1000Proofs: number | null;
  reason: string | null;
  destroyManual: boolean;
  /** The Curio drain held on its node (stored; a restarted manager resumes it); null when none. */
  curioDrain?: CurioDrainView | null | undefined;
}

/** A Curio drain as the dashboard shows it. */
export interface CurioDrainView {
  /** `draining` (cordoned, a destroy waits for its tasks) or `cordoned` (an uncordon still to do). */
  state: "draining" | "cordoned";
  /** harmony_machines.id of the node. */
  curioMachineId: number;
  /** When the node was cordoned, epoch ms. */
  since: number;
  /** When the destroy goes ahead anyway, epoch ms; null until computed. */
  deadlineAt: number | null;
  destroyPending: boolean;
}

/** An instance in /api/instances: its view and, for a Curio node, Curio's latest rates. */
export interface InstanceListView extends InstanceView {
  curioProduction: CurioRate[];
  /** Why its Curio node cannot be told apart (nothing is cordoned or destroyed automatically); null when it can. */
  curioIdentityIssue: string | null;
}

/** One phase change on the instance page. */
export interface PhaseView {
  state: string;
  at: number;
  type: string;
}

/** The benchmark on the instance page: its verdict and per-proof records. */
export interface BenchmarkDetailView {
  at: number;
  verdict: string;
  proofsPerHour: number;
  minProofsPerHour: number;
  proofs: {
    index: number | null;
    warmup: boolean;
    ok: boolean;
    wallMs: number | null;
    code: string | null;
  }[];
}

/** The daemon's /status as the agent last forwarded (or, on the agent's page, read) it. */
export interface ForwardedStatusView {
  at: number;
  status: Record<string, unknown>;
}

/** What the instance page shows: `/api/instances/:id` of the fleet, or the agent's own page. */
export interface InstanceDetailView {
  /** True on the agent's own page (`cuzkit agent --ui-listen`): no price, no fleet. */
  local?: boolean;
  instance: InstanceView;
  now: number;
  phases: PhaseView[];
  benchmark: BenchmarkDetailView | null;
  daemonStatus: ForwardedStatusView | null;
  /** The agent's page: why the last live read of /status failed. */
  daemonStatusError?: string | null;
}

/** The fleet's totals. */
export interface FleetSummary {
  fleetName: string;
  now: number;
  countsByState: Record<InstanceState, number>;
  /** $/hour of every instance that may be billing. */
  dollarsPerHour: number;
  /** Measured proofs/hour of the active instances. */
  proofsPerHour: number;
}

/** $ per 1000 proofs at a price and rate; null when the rate is unknown or zero. */
export function dollarsPer1000(dphPerHour: number, proofsPerHour: number | undefined): number | null {
  if (proofsPerHour === undefined || proofsPerHour <= 0) return null;
  return (dphPerHour / proofsPerHour) * 1000;
}

/** The dashboard's view of one instance record. */
export function instanceView(record: InstanceRecord): InstanceView {
  return {
    id: record.id,
    label: record.label,
    state: record.state,
    gpuName: record.offer.gpuName,
    numGpus: record.offer.numGpus,
    machineId: record.machineId ?? null,
    vastId: record.vastId ?? null,
    geolocation: record.offer.geolocation ?? null,
    phaseStartedAt: record.phaseStartedAt,
    phaseDeadlineAt: record.phaseDeadlineAt ?? null,
    lastHeartbeatAt: record.lastHeartbeatAt ?? null,
    proofsPerHour: record.proofsPerHour ?? null,
    rateBasis: record.proofsPerHour === undefined ? null : (record.rateBasis ?? "benchmark"),
    claimedProofsPerHour: record.claimedProofsPerHour ?? null,
    benchmarkProofsPerHour: record.benchmarkProofsPerHour ?? null,
    modelProofsPerHour: record.modelProofsPerHour ?? null,
    productionProofsPerHour: record.productionProofsPerHour ?? null,
    dphPerHour: record.dphPerHour,
    dollarsPer1000Proofs: dollarsPer1000(record.dphPerHour, record.proofsPerHour),
    reason: record.reason ?? null,
    destroyManual: record.destroyManual,
    curioDrain:
      record.curioDrain === undefined
        ? null
        : {
            state: record.curioDrain.state,
            curioMachineId: record.curioDrain.curioMachineId,
            since: record.curioDrain.since,
            deadlineAt: record.curioDrain.deadlineAt ?? null,
            destroyPending: record.curioDrain.destroyPending,
          },
  };
}

const billingStates: readonly InstanceState[] = [
  "renting",
  "booting",
  ...heartbeatStates,
  "rejected",
  "failed",
  "draining",
  "destroying",
];

/** The fleet's totals now. */
export async function fleetSummary(store: FleetStore, fleetName: string, now: number): Promise<FleetSummary> {
  const records = await store.list();
  const countsByState = Object.fromEntries(instanceStates.map((s) => [s, 0])) as Record<
    InstanceState,
    number
  >;
  let dollarsPerHour = 0;
  let proofsPerHour = 0;
  for (const r of records) {
    countsByState[r.state] += 1;
    if (billingStates.includes(r.state)) dollarsPerHour += r.dphPerHour;
    if (r.state === "active") proofsPerHour += countedRate(r).proofsPerHour;
  }
  return { fleetName, now, countsByState, dollarsPerHour, proofsPerHour };
}

/** One event as shown in the log. `detail` is data, never markup. */
export interface EventView {
  seq: number;
  instanceId: string;
  at: number;
  type: string;
  fromState: string | null;
  toState: string | null;
  detail: Record<string, unknown> | null;
}

/**
 * The event log's view of an event, for the page and the API: a record already read from the
 * store (see the store's row decoding), its fields named one by one so that nothing added to
 * FleetEvent reaches a page unasked, and an absent one as JSON `null` (JSON drops undefined).
 */
export function eventView(event: FleetEvent): EventView {
  return {
    seq: event.seq,
    instanceId: event.instanceId,
    at: event.at,
    type: event.type,
    fromState: event.fromState ?? null,
    toState: event.toState ?? null,
    detail: event.detail ?? null,
  };
}

/** A row of the host performance table: one benchmark and the host it ran on. */
export interface HostPerformanceView extends Omit<BenchmarkSummary, "machineId" | "gpuName" | "numGpus"> {
  machineId: number | null;
  gpuName: string | null;
  numGpus: number | null;
  dphPerHour: number | null;
  dollarsPer1000Proofs: number | null;
  geolocation: string | null;
}

/** The host performance table: every benchmark the store holds, newest first. */
export async function hostPerformance(store: FleetStore): Promise<HostPerformanceView[]> {
  const instances = new Map((await store.list()).map((r) => [r.id, r]));
  return (await listBenchmarkSummaries(store)).reverse().map((b) => {
    const record = instances.get(b.instanceId);
    return {
      ...b,
      machineId: b.machineId ?? null,
      gpuName: b.gpuName ?? null,
      numGpus: b.numGpus ?? null,
      dphPerHour: record?.dphPerHour ?? null,
      dollarsPer1000Proofs: record ? dollarsPer1000(record.dphPerHour, b.proofsPerHour) : null,
      geolocation: record?.offer.geolocation ?? null,
    };
  });
}

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

/**
 * One offer as the dashboard ranks it: every estimate of its rate (the model's prediction, the
 * class-calibrated correction, this machine's measurements), which one the ranking uses, and
 * the price per proof, with the same field names as `cuzkit fleet offers --json`.
 */
export interface OfferView {
  offerId: number;
  machineId: number | null;
  gpuName: string;
  numGpus: number;
  geolocation: string | null;
  /** True: the tuner found a safe config (offers that do not fit are in `excluded`). */
  fits: true;
  /** The tuner's model, uncalibrated, proofs/hour. */
  predictedProofsPerHour: number;
  /** The model corrected by its hardware class's calibration; null before the class is measured. */
  correctedProofsPerHour: number | null;
  /** This machine's measured rate (geometric mean of `measuredRuns` runs); null before a run. */
  measuredProofsPerHour: number | null;
  measuredRuns: number;
  /** Which estimate the ranking uses. */
  source: "measured" | "corrected" | "predicted";
  /** That estimate, proofs/hour. */
  estimateProofsPerHour: number;
  dphPerHour: number;
  /** $ per 1000 proofs at the estimate, reliability included. */
  costPer1000: number;
  /** $ per 1000 proofs at the optimistic estimate (the sort key). */
  optimisticCostPer1000: number;
  /** Chance the rental survives, 0..1. */
  reliability: number;
  /** Unmeasured, and its best case beats the best measured machine. */
  worthTrying: boolean;
  /** The rate it must measure to be kept (the floor, or its $/h over the $ per 1000 proofs ceiling). */
  keepMinimumProofsPerHour: number;
  /** Rented at a bid (interruptible): dphPerHour is the bid, and reliability carries the preemption rate. */
  interruptible: boolean;
}

/** An offer the ranking left out, with why (it does not fit, or its machine is excluded). */
export interface ExcludedOfferView {
  offerId: number;
  machineId: number | null;
  gpuName: string;
  numGpus: number;
  fits: false;
  reason: string;
}

/** The dashboard's view of a ranked offer. */
export function offerView(ranked: RankedOffer): OfferView {
  const r = ranked.ranking;
  return {
    offerId: ranked.offer.id,
    machineId: ranked.offer.machineId ?? null,
    gpuName: ranked.offer.gpuName,
    numGpus: ranked.offer.numGpus,
    geolocation: ranked.offer.geolocation ?? null,
    fits: true,
    predictedProofsPerHour: r.predictedProofsPerHour,
    correctedProofsPerHour: r.correctedProofsPerHour ?? null,
    measuredProofsPerHour: r.measured?.proofsPerHour ?? null,
    measuredRuns: r.measured?.runs ?? 0,
    source: r.source,
    estimateProofsPerHour: r.estimateProofsPerHour,
    dphPerHour: r.candidate.dphTotal,
    costPer1000: r.costPer1000,
    optimisticCostPer1000: r.optimisticCostPer1000,
    reliability: r.reliability,
    worthTrying: r.worthTrying,
    keepMinimumProofsPerHour: r.keepMinimumProofsPerHour,
    interruptible: r.candidate.interruptible === true,
  };
}

/** The dashboard's view of an offer left out. */
export function excludedOfferView(excluded: ExcludedOffer): ExcludedOfferView {
  return {
    offerId: excluded.offer.id,
    machineId: excluded.offer.machineId ?? null,
    gpuName: excluded.offer.gpuName,
    numGpus: excluded.offer.numGpus,
    fits: false,
    reason: excluded.reason,
  };
}
