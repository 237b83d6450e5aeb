// A benchmark report is the agent's word, and the agent's token lives where the machine's host
// can read it. This file is the one place that decides what a report's rate is worth: it
// recomputes the rate from the report's own timed proof records and bounds it by the model.
import { proofsPerHourFromIntervals } from "@cuzkit/bench";
import { fleetDefaults } from "../defaults.js";
import type { ProofRecord } from "../protocol/requests.js";
import { type TimedRecords, timedRecordsOf } from "./timed-records.js";

/**
 * How far above the model's rate for the hardware a benchmark may be before it is suspect.
 * Why 3: the model is anchored on the one GPU cuzk was measured on and scales other GPUs by
 * their speed factor (see docs' gpu-throughput reference), and the fleet's calibration sees
 * classes spread around it with a log standard deviation of about 0.35 (the simulated market's
 * class bias): 3x is ln 3 = 1.1, more than 3 standard deviations, which an honest machine
 * reaches about once in a thousand classes, while a lie worth telling (several times the
 * truth) does not hide under it.
 */
export const defaultSuspectFactor = 3;

/** Claims up to this fraction above the records' rate are the same rate (rounding, clocks). */
const claimTolerance = 1e-3;

/**
 * How far a claim may sit above the rate its own records produce before it is a lie, not a
 * rounding: the agent computes its rate from these very records, so an honest one matches
 * them; 1.25 leaves room for an agent that times a slightly shorter window (the ramp of its
 * first proofs, about 1/n of a pipelined run). Above it the report is refused, the machine is
 * destroyed and the lie is evidence against it, so that an honest machine is never destroyed as
 * "over target" to make room for a liar kept at its records' rate.
 */
export const defaultContradictionFactor = fleetDefaults.contradictionFactor;

/** What became of a claim. */
export type ClaimOutcome = "accepted" | "demoted" | "suspect" | "refused";

/** Inputs of {@link checkBenchmarkClaim}. */
export interface BenchmarkClaimInput {
  /** The proofs/hour the report claims. */
  claimedProofsPerHour: number;
  /** Every proof record of the report, warmup included. */
  proofs: readonly ProofRecord[];
  /** The model's proofs/hour for the offer's hardware; undefined or 0 when it has none (no bound). */
  modelProofsPerHour: number | undefined;
  /** Timed, completed proofs with times the report needs at least. Required (the fleet's benchmark size). */
  minTimedProofs: number;
  /** Proofs the run says it kept in flight (the report's `summary.concurrency`), if it says. */
  statedConcurrency?: number | undefined;
  /** A rate above the model's times this is suspect. Default {@link defaultSuspectFactor}. */
  suspectFactor?: number | undefined;
  /** A claim above its records' rate times this is a lie. Default `fleetDefaults.contradictionFactor` (1.25). */
  contradictionFactor?: number | undefined;
}

/** What the records say, and what the manager makes of the claim. */
export interface BenchmarkClaimCheck {
  outcome: ClaimOutcome;
  /**
   * True when the report contradicts itself (a rate its own records cannot come near, or one
   * above the suspect bound with no records to show): evidence against the machine, unlike a
   * refusal an honest old agent can earn.
   */
  contradicted: boolean;
  claimedProofsPerHour: number;
  /** Completed timed proofs over their timed window; undefined when the records give no rate. */
  recordsProofsPerHour: number | undefined;
  /** The rate the keep rule judges: the least of the claim and the records (0 when refused). */
  judgedProofsPerHour: number;
  /** The rate a kept machine is counted at: the judged rate, or the model's while suspect (0 when refused). */
  countedProofsPerHour: number;
  modelProofsPerHour: number | undefined;
  /** Completed timed proofs with both times. */
  timedProofs: number;
  /** From the first timed submit to the last timed settle, ms. */
  windowMs: number;
  /** Most proofs the records show in flight at once. */
  maxInFlight: number;
  /** One sentence: why, with the figures. */
  reason: string;
}

const rate = (perHour: number | undefined) =>
  perHour === undefined ? "none" : `${perHour >= 1e6 ? perHour.toExponential(2) : perHour.toFixed(1)}/h`;

/**
 * Checks a benchmark claim against its proof records and the model. Pure.
 *
 * - refused: the claim is not a finite number, fewer than `minTimedProofs` completed timed
 *   proofs carry their submit and settle times (old agents send none), a record settles before
 *   it was submitted, the window is empty, or the records show more proofs in flight than the
 *   run says it kept. A refused report is no evidence of anything: counted at 0.
 *   A claim over `contradictionFactor` times its records' rate, or one over the suspect bound
 *   with too few records, is also refused and marked `contradicted`: a lie, not an old agent.
 * - demoted: the claim is above what the records produce (the bench's slot rate, rebuilt) by
 *   less than `contradictionFactor`: judged at the records' rate.
 * - suspect: the judged rate is more than `suspectFactor` times the model's: the machine may
 *   serve on probation, counted at the model's rate until production confirms it.
 * - accepted: otherwise, at the claim (never above the records).
 */
export function checkBenchmarkClaim(input: BenchmarkClaimInput): BenchmarkClaimCheck {
  const model =
    input.modelProofsPerHour !== undefined && input.modelProofsPerHour > 0
      ? input.modelProofsPerHour
      : undefined;
  const timed = timedRecordsOf(input.proofs);
  const context: ClaimContext = {
    input,
    claimed: input.claimedProofsPerHour,
    model,
    suspectFactor: input.suspectFactor ?? defaultSuspectFactor,
    timed,
    base: {
      claimedProofsPerHour: input.claimedProofsPerHour,
      modelProofsPerHour: model,
      timedProofs: timed.count,
      windowMs: timed.windowMs,
      maxInFlight: timed.maxInFlight,
    },
  };
  const unusable = refusalWithoutRate(context);
  if (unusable !== undefined) return unusable;
  // The bench's own figure rebuilt from the records (slots x completions per slot-hour): a
  // window-wide count would read an honest small batch up to a third low and call it a lie.
  return judgeAgainstRecords(context, proofsPerHourFromIntervals(timed.intervals));
}

/** What every step of checkBenchmarkClaim reads: the input, the model's bound and the records. */
interface ClaimContext {
  input: BenchmarkClaimInput;
  claimed: number;
  /** The model's rate; undefined when it has none (no bound). */
  model: number | undefined;
  suspectFactor: number;
  timed: TimedRecords;
  /** The figures every outcome carries. */
  base: Pick<
    BenchmarkClaimCheck,
    "claimedProofsPerHour" | "modelProofsPerHour" | "timedProofs" | "windowMs" | "maxInFlight"
  >;
}

/** A refusal: counted at 0; `contradicted` when the report is a lie, not an old agent. */
function refuse(
  context: ClaimContext,
  why: string,
  recordsProofsPerHour?: number,
  contradicted = false,
): BenchmarkClaimCheck {
  return {
    ...context.base,
    outcome: "refused",
    contradicted,
    recordsProofsPerHour,
    judgedProofsPerHour: 0,
    countedProofsPerHour: 0,
    reason: `claim refused: ${why}`,
  };
}

/** The refusals decided before the records give a rate: no rate claimed, too few or broken records. */
function refusalWithoutRate(context: ClaimContext): BenchmarkClaimCheck | undefined {
  const { claimed, model, timed, input } = context;
  if (!Number.isFinite(claimed) || claimed < 0)
    return refuse(context, `the claimed rate ${String(claimed)} is not a rate`);
  if (timed.count < input.minTimedProofs) {
    // An old agent sends no times, but never a rate beyond what any such machine can do.
    const beyondBound = model !== undefined && claimed > model * context.suspectFactor;
    return refuse(
      context,
      `claimed ${rate(claimed)} with ${timed.count} timed proofs carrying their times, fewer than the ${input.minTimedProofs} the fleet's benchmark runs (an agent from before claims were checked sends no times: upgrade the image)`,
      undefined,
      beyondBound,
    );
  }
  if (timed.intervals.some(([start, end]) => !(end >= start) || !Number.isFinite(end))) {
    return refuse(context, `claimed ${rate(claimed)}, but a proof record settles before it was submitted`);
  }
  if (!(timed.windowMs > 0))
    return refuse(context, `claimed ${rate(claimed)}, but the timed proofs span no time`);
  return undefined;
}

/** The claim against the rate its records produce, then against the model. */
function judgeAgainstRecords(context: ClaimContext, records: number): BenchmarkClaimCheck {
  const { claimed, model, timed, input, suspectFactor } = context;
  if (input.statedConcurrency !== undefined && timed.maxInFlight > input.statedConcurrency) {
    return refuse(
      context,
      `claimed ${rate(claimed)}, but the records show ${timed.maxInFlight} proofs in flight where the run kept ${input.statedConcurrency}`,
      records,
    );
  }
  const demoted = claimed > records * (1 + claimTolerance);
  const judged = Math.min(claimed, records);
  const shown = `${timed.count} timed proofs over ${(timed.windowMs / 1000).toFixed(0)} s (at most ${timed.maxInFlight} at once) produce ${rate(records)}`;
  const contradictionFactor = input.contradictionFactor ?? defaultContradictionFactor;
  if (claimed > records * contradictionFactor) {
    return refuse(
      context,
      `claimed ${rate(claimed)}, but its own ${shown}: more than ${contradictionFactor}x what its records show`,
      records,
      true,
    );
  }
  const judgedAt = {
    ...context.base,
    contradicted: false,
    recordsProofsPerHour: records,
    judgedProofsPerHour: judged,
  };
  if (model !== undefined && judged > model * suspectFactor) {
    return {
      ...judgedAt,
      outcome: "suspect",
      countedProofsPerHour: model,
      reason: `claim suspect: ${rate(judged)}${demoted ? ` (claimed ${rate(claimed)}; ${shown})` : ""} is over ${suspectFactor}x the model's ${rate(model)} for this hardware: on probation, counted at the model's rate until production confirms it`,
    };
  }
  if (demoted) {
    return {
      ...judgedAt,
      outcome: "demoted",
      countedProofsPerHour: judged,
      reason: `claim demoted: claimed ${rate(claimed)}, but ${shown}: judged at ${rate(judged)}`,
    };
  }
  return {
    ...judgedAt,
    outcome: "accepted",
    countedProofsPerHour: judged,
    reason: `claim accepted: ${rate(claimed)} (${shown})`,
  };
}

/** The event detail of a check (what the dashboard and `fleet events` show). */
export function claimEventDetail(check: BenchmarkClaimCheck): Record<string, unknown> {
  return {
    outcome: check.outcome,
    contradicted: check.contradicted,
    reason: check.reason,
    claimedProofsPerHour: Number.isFinite(check.claimedProofsPerHour) ? check.claimedProofsPerHour : null,
    recordsProofsPerHour: check.recordsProofsPerHour ?? null,
    modelProofsPerHour: check.modelProofsPerHour ?? null,
    countedProofsPerHour: check.countedProofsPerHour,
    timedProofs: check.timedProofs,
    windowMs: check.windowMs,
    maxInFlight: check.maxInFlight,
  };
}

/** Options of {@link timedProofRecords}. */
export interface TimedProofRecordsOptions {
  /** Timed proofs. Required. */
  count: number;
  /** Wall time of each, ms. Required. */
  wallMs: number;
  /** Proofs in flight at once. Default 1. */
  concurrency?: number | undefined;
  /** Add a warmup proof first. Default true. */
  warmup?: boolean | undefined;
}

/**
 * Honest proof records, as the agent sends them: a warmup, then `count` timed proofs of
 * `wallMs` each, `concurrency` at a time, back to back. For tests and simulations.
 */
export function timedProofRecords(options: TimedProofRecordsOptions): ProofRecord[] {
  const concurrency = options.concurrency ?? 1;
  const warmupMs = options.warmup === false ? 0 : options.wallMs;
  const out: ProofRecord[] =
    options.warmup === false
      ? []
      : [{ index: 0, warmup: true, ok: true, wallMs: warmupMs, submitMs: 0, settleMs: warmupMs }];
  for (let i = 0; i < options.count; i++) {
    const submitMs = warmupMs + Math.floor(i / concurrency) * options.wallMs;
    out.push({
      index: i + 1,
      warmup: false,
      ok: true,
      wallMs: options.wallMs,
      submitMs,
      settleMs: submitMs + options.wallMs,
    });
  }
  return out;
}
