import type { CurioRate } from "../curio/curio-rate.js";
import { countedRate } from "../evidence/counted-rate.js";
import { heartbeatStates, type InstanceState, instanceStates } from "../lifecycle.js";
import { type BenchmarkSummary, listBenchmarkSummaries } from "../store/dashboard-reads.js";
import type { FleetStore } from "../store/fleet-store.js";
import type { FleetEvent, InstanceRecord, RateBasis } from "../store/records.js";

// What the dashboard and the admin API show, built from the store. Every view is an explicit
// pick of fields: the token hash, the tuned config and anything else not listed never leaves
// the manager, so a new column cannot leak by default. The chart series (dashboard-series) and
// the offer views (offer-views) have their own modules, re-exported here for the routes and pages.

export {
  type ProofsPerHourSeries,
  proofsPerHourSeries,
  type SpendSeries,
  spendSeries,
} from "./dashboard-series.js";
export { type ExcludedOfferView, excludedOfferView, type OfferView, offerView } from "./offer-views.js";

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
