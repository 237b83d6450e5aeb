// The one answer to "how many proofs/hour does this machine count for": every consumer (the
// planner, the dashboard, /metrics, the trust benchmark) reads it through countedRate, and the
// production review below is the one place that moves it once a machine serves.
import type { FleetStore } from "../store/fleet-store.js";
import type { HostPerformanceRecord } from "../store/host-performance.js";
import type { InstanceRecord, RateBasis } from "../store/records.js";

/** An instance's counted rate and what it rests on. */
export interface CountedRate {
  /** Proofs/hour the fleet counts the machine at (0 when it counts for nothing). */
  proofsPerHour: number;
  /** benchmark: its checked benchmark; probation: the model's rate (a suspect claim); production: measured production. */
  basis: RateBasis;
}

/**
 * The counted rate of an instance record: the stored counted rate and its basis. Rows from
 * before claims were checked count at their benchmark rate. Only an active (or draining)
 * machine produces, so any other state counts 0 with its last basis.
 */
export function countedRate(record: InstanceRecord): CountedRate {
  const basis = record.rateBasis ?? "benchmark";
  if (record.state !== "active" && record.state !== "draining") return { proofsPerHour: 0, basis };
  const perHour = record.proofsPerHour;
  return { proofsPerHour: perHour !== undefined && Number.isFinite(perHour) ? perHour : 0, basis };
}

/** The production rules. */
export interface ProductionPolicy {
  /** The production window, ms: rates are measured over it, and the keep rule waits a full one. */
  windowMs: number;
  /** The keep rule's minimum proofs/hour. */
  minProofsPerHour: number;
  /** Production below the minimum recovers only at this factor above it (hysteresis). Default 1.1. */
  recoverFactor?: number | undefined;
  /** A probation is confirmed when production reaches this share of the judged benchmark. Default 0.8. */
  confirmFraction?: number | undefined;
}

/** A production rate over one window. */
export interface ProductionRate {
  proofsPerHour: number;
  /** Where it came from. */
  source: "agent" | "curio";
  /** Samples behind it. */
  samples: number;
}

/**
 * The production of an instance over the window ending `nowMs`, from its host-performance rows,
 * or undefined before it has served a full window (or without a sample in it). Curio's rows,
 * when `source` is curio, are summed over proof types per sync and averaged over syncs; the
 * agent's are proofs over their windows' total time.
 */
export function productionRate(
  rows: readonly HostPerformanceRecord[],
  options: { nowMs: number; windowMs: number; activeSinceMs: number; source: "agent" | "curio" },
): ProductionRate | undefined {
  if (options.nowMs - options.activeSinceMs < options.windowMs) return undefined;
  const inWindow = rows.filter(
    (r) =>
      r.kind === "production" &&
      (r.source ?? "agent") === options.source &&
      r.at > options.nowMs - options.windowMs &&
      r.at <= options.nowMs &&
      r.at >= options.activeSinceMs,
  );
  if (inWindow.length === 0) return undefined;
  if (options.source === "curio") {
    const bySync = new Map<number, number>();
    for (const r of inWindow) bySync.set(r.at, (bySync.get(r.at) ?? 0) + r.proofsPerHour);
    const rates = [...bySync.values()];
    return {
      proofsPerHour: rates.reduce((a, b) => a + b, 0) / rates.length,
      source: "curio",
      samples: inWindow.length,
    };
  }
  let proofs = 0;
  let ms = 0;
  for (const r of inWindow) {
    const windowMs = r.windowMs ?? 0;
    proofs += (r.proofsPerHour * windowMs) / 3_600_000;
    ms += windowMs;
  }
  if (ms <= 0) return undefined;
  return { proofsPerHour: (proofs * 3_600_000) / ms, source: "agent", samples: inWindow.length };
}

/** What the production review decides for one active instance. */
export interface ProductionReview {
  /** The counted rate and basis from now on. */
  counted: CountedRate;
  /** The production rate to store (undefined: unchanged). */
  productionProofsPerHour: number | undefined;
  /** Since when production is below the keep rule; undefined when it is not. */
  belowKeepSince: number | undefined;
  /** Replace the machine now: production stayed below the keep rule for a full window. */
  replace: boolean;
  /** Events to log (type and reason), such as `claim-confirmed` or `production-below`. */
  events: Array<{ type: string; reason: string }>;
}

const rate = (perHour: number) => `${perHour.toFixed(1)}/h`;

/**
 * The keep rule on production, with hysteresis. Pure.
 *
 * - Once a full window of production exists, the machine counts at it (basis production). A
 *   machine on probation is `claim-confirmed` when production reaches `confirmFraction` of its
 *   judged benchmark, else `claim-not-confirmed`; it counts at production either way.
 * - Production below `minProofsPerHour` starts the clock (`belowKeepSince`); only production at
 *   `recoverFactor` x the minimum stops it, so a machine hovering at the line is not reprieved
 *   by one good sample. A machine whose clock has run a full window is replaced.
 */
export function reviewProduction(
  record: InstanceRecord,
  production: ProductionRate | undefined,
  policy: ProductionPolicy,
  nowMs: number,
): ProductionReview {
  const current = countedRate(record);
  const events: ProductionReview["events"] = [];
  let belowKeepSince = record.belowKeepSince;
  if (production === undefined) {
    return {
      counted: current,
      productionProofsPerHour: undefined,
      belowKeepSince,
      replace: belowKeepSince !== undefined && nowMs - belowKeepSince >= policy.windowMs,
      events,
    };
  }
  const measured = production.proofsPerHour;
  if (current.basis === "probation") {
    const judged = record.benchmarkProofsPerHour ?? 0;
    const confirmFraction = policy.confirmFraction ?? 0.8;
    events.push(
      measured >= judged * confirmFraction
        ? {
            type: "claim-confirmed",
            reason: `production ${rate(measured)} (${production.source}) confirms the benchmark's ${rate(judged)} (at least ${confirmFraction * 100}%): counted at production`,
          }
        : {
            type: "claim-not-confirmed",
            reason: `production ${rate(measured)} (${production.source}) is under ${confirmFraction * 100}% of the benchmark's ${rate(judged)}: counted at production`,
          },
    );
  } else if (current.basis === "benchmark") {
    events.push({
      type: "counted-at-production",
      reason: `a full window of production: ${rate(measured)} (${production.source}) replaces the benchmark's ${rate(current.proofsPerHour)}`,
    });
  }
  const recover = policy.minProofsPerHour * (policy.recoverFactor ?? 1.1);
  if (measured < policy.minProofsPerHour) {
    if (belowKeepSince === undefined) {
      belowKeepSince = nowMs;
      events.push({
        type: "production-below",
        reason: `production ${rate(measured)} (${production.source}) is below the minimum ${rate(policy.minProofsPerHour)}: replaced unless it recovers to ${rate(recover)} within ${Math.round(policy.windowMs / 60_000)} min`,
      });
    }
  } else if (belowKeepSince !== undefined && measured >= recover) {
    belowKeepSince = undefined;
    events.push({
      type: "production-recovered",
      reason: `production ${rate(measured)} (${production.source}) is back at or above ${rate(recover)}`,
    });
  }
  return {
    counted: { proofsPerHour: measured, basis: "production" },
    productionProofsPerHour: measured,
    belowKeepSince,
    replace: belowKeepSince !== undefined && nowMs - belowKeepSince >= policy.windowMs,
    events,
  };
}

/** Options of {@link plausibleProduction}. */
export interface PlausibilityInput {
  /** Proofs/hour the agent reports. */
  proofsPerHour: number;
  /** The report's window, ms. */
  windowMs: number;
  /** How long the machine has served, ms. */
  servedMs: number;
  /** The model's rate for the hardware; undefined when it has none. */
  modelProofsPerHour: number | undefined;
  /** The benchmark's judged rate (records-bounded). */
  benchmarkProofsPerHour: number | undefined;
  /** The suspect factor (the model bound). */
  suspectFactor: number;
}

/**
 * Why an agent's production report cannot be believed, or undefined when it can. A report is
 * implausible when its window is longer than the machine has served (plus a minute of clock
 * skew), or its rate is above the model bound (`suspectFactor` x the model for the hardware;
 * the benchmark's rate only where the model has none): the agent's word cannot lift a machine
 * past what the hardware can explain, so a suspect claim is confirmed above that bound only by
 * Curio's verified proofs.
 */
export function implausibleProduction(input: PlausibilityInput): string | undefined {
  if (input.windowMs > input.servedMs + 60_000) {
    return `a ${Math.round(input.windowMs / 60_000)} min window from a machine that has served ${Math.round(input.servedMs / 60_000)} min`;
  }
  const base =
    input.modelProofsPerHour !== undefined && input.modelProofsPerHour > 0
      ? { rate: input.modelProofsPerHour, what: "the model's rate for the hardware" }
      : input.benchmarkProofsPerHour !== undefined && input.benchmarkProofsPerHour > 0
        ? { rate: input.benchmarkProofsPerHour, what: "the benchmark's rate" }
        : undefined;
  if (base === undefined) return undefined;
  const bound = base.rate * input.suspectFactor;
  if (!Number.isFinite(input.proofsPerHour) || input.proofsPerHour > bound) {
    return `${rate(input.proofsPerHour)} is over ${input.suspectFactor}x ${base.what} (bound ${rate(bound)})`;
  }
  return undefined;
}

/** An instance's counted rate with the evidence behind it (what the trust benchmark and the dashboard read). */
export interface InstanceRateEvidence extends CountedRate {
  instanceId: string;
  state: InstanceRecord["state"];
  /** What the agent's report claimed. */
  claimedProofsPerHour: number | undefined;
  /** What the benchmark's records support (at most the claim); undefined when the claim was refused. */
  benchmarkProofsPerHour: number | undefined;
  /** The model's rate for the hardware. */
  modelProofsPerHour: number | undefined;
  /** The last full window's production, once measured. */
  productionProofsPerHour: number | undefined;
  /** Since when production is below the keep rule, epoch ms. */
  belowKeepSince: number | undefined;
}

/** The evidence view of an instance record (see {@link readCountedRate}). */
export function rateEvidence(record: InstanceRecord): InstanceRateEvidence {
  return {
    instanceId: record.id,
    state: record.state,
    ...countedRate(record),
    claimedProofsPerHour: record.claimedProofsPerHour,
    benchmarkProofsPerHour: record.benchmarkProofsPerHour,
    modelProofsPerHour: record.modelProofsPerHour,
    productionProofsPerHour: record.productionProofsPerHour,
    belowKeepSince: record.belowKeepSince,
  };
}

/**
 * Reads an instance's counted proofs/hour and its basis (benchmark | probation | production)
 * from the store, with the claimed, recomputed, modelled and produced rates beside it;
 * undefined for an unknown instance. A machine that is not serving counts 0.
 */
export async function readCountedRate(
  store: Pick<FleetStore, "get">,
  instanceId: string,
): Promise<InstanceRateEvidence | undefined> {
  const record = await store.get(instanceId);
  return record === undefined ? undefined : rateEvidence(record);
}
