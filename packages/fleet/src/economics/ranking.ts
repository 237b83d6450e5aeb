import { describeKeepMinimum, type KeepRule, keepMinimumProofsPerHour } from "../keep-rule.js";
import type { ClassCalibration } from "./calibration.js";
import { interruptibleSetupHours, preemptionShare, priorPreemptionsPerHour } from "./interruptible.js";

/** An offer as the ranking sees it: what the market says and what the model predicts. */
export interface RankCandidate {
  offerId: number;
  machineId: number | undefined;
  hostId: number | undefined;
  /** `hardwareClassKey` of the offer. */
  classKey: string;
  /** Price, $/hour (the bid for an interruptible rental). */
  dphTotal: number;
  /** Rented at a bid (interruptible): its reliability carries the preemption rate. Default false. */
  interruptible?: boolean | undefined;
  /** The tuner's proofs/hour for the offer, before any calibration. */
  predictedProofsPerHour: number;
  /** False when the tuner finds no safe config. */
  feasible: boolean;
  /** The market's reliability score, 0..1, when it gives one. */
  marketReliability: number | undefined;
}

/** What the fleet measured on one machine. */
export interface MachineMeasurements {
  /** Measured proofs/hour of each benchmark (MET or BELOW) and production report. */
  runsProofsPerHour: number[];
  /** Why the machine is excluded now (its evidence; exclusions expire), when it is. */
  excludedReason: string | undefined;
  /** The machine's shrunk failure-rate estimate, 0..1 (assessFleet). Default: its host's, else the fleet's. */
  failureRate?: number | undefined;
  /** Its latest production rate, proofs/hour: what it runs at now (a machine that degrades), used before the runs' mean. Default: the runs' mean. */
  currentProofsPerHour?: number | undefined;
}

/** Everything the ranking knows from the fleet's measurements. */
export interface RankingKnowledge {
  /** Per hardware class. */
  calibration: ReadonlyMap<string, ClassCalibration>;
  /** Per machine id. */
  machines: ReadonlyMap<number, MachineMeasurements>;
  /**
   * Per host id: rentals tried, how many failed or died (the machine's fault), and the shrunk
   * failure rate when known (else Laplace's rule on the counts).
   */
  hosts: ReadonlyMap<number, { attempts: number; failures: number; failureRate?: number | undefined }>;
  /** Attributable failures per rental over the fleet: the rate of a machine and host never rented. Default 0. */
  fleetFailureRate?: number | undefined;
  /** Preemptions per rented hour of interruptible rentals (learnPreemptionRate). Default priorPreemptionsPerHour. */
  preemptionsPerHour?: number | undefined;
}

/** An empty knowledge: rank by the model alone. */
export const noKnowledge: RankingKnowledge = {
  calibration: new Map(),
  machines: new Map(),
  hosts: new Map(),
};

/** Options of `rankCandidates`. */
export interface RankingOptions {
  /** The fleet's minimum proofs/hour (0 for none); a machine measured below its keep minimum is excluded. Required. */
  minProofsPerHour: number;
  /** The keep ceiling in $ per 1000 proofs (see keep-rule.ts): raises each offer's minimum by its price. Default: none. */
  maxUsdPer1000Proofs?: number | undefined;
  /** How many standard deviations of optimism the exploration bonus adds. Default 1. */
  optimism?: number | undefined;
  /** Uncertainty of the bare model on an unmeasured class, as a log-ratio standard deviation. Default 0.35. */
  modelSpreadLog?: number | undefined;
  /** Smallest machine-to-machine spread assumed inside a class, log-ratio. Default 0.1. */
  classSpreadFloorLog?: number | undefined;
  /** Smallest run-to-run spread assumed on one machine, log-ratio. Default 0.05. */
  runSpreadFloorLog?: number | undefined;
  /** The corrected rate of a candidate; default predicted x factor (the tuner's own rule). */
  correct?: ((candidate: RankCandidate, calibration: ClassCalibration) => number) | undefined;
  /** The best measured $ per 1000 proofs of the running fleet, to judge `worthTrying` by. */
  bestMeasuredCostPer1000?: number | undefined;
  /**
   * Hours the fleet still needs machines (a run's end): a rental is charged its setup (hours
   * paid before it proves, $ per rental) over the hours left, and one that cannot prove before
   * the end is left out. Default: no charge (an open-ended fleet).
   */
  hoursLeft?: number | undefined;
  /** A candidate's setup: hours paid before it proves (download, warmup, benchmark) and $ per rental. Default none. */
  setupOf?: ((candidate: RankCandidate) => { hours: number; usd: number }) | undefined;
}

/** Which estimate a ranked offer uses. */
export type EstimateSource = "measured" | "corrected" | "predicted";

/** One ranked offer, with every estimate and the one used. */
export interface RankedCandidate {
  candidate: RankCandidate;
  predictedProofsPerHour: number;
  /** The class-calibrated rate, when the class has been measured. */
  correctedProofsPerHour: number | undefined;
  /** This machine's measured rate (geometric mean) and its runs, when measured. */
  measured: { proofsPerHour: number; runs: number } | undefined;
  source: EstimateSource;
  /** The point estimate used, proofs/hour. */
  estimateProofsPerHour: number;
  /** The estimate's uncertainty, log-ratio standard deviation. */
  spreadLog: number;
  /** The upper-confidence rate: estimate x exp(optimism x spread). */
  optimisticProofsPerHour: number;
  /** The machine's estimated chance to fail or die, 0..1 (its own, its host's, or the fleet's rate). */
  failureRate: number;
  /** Chance the rental survives, 0..1: the market's score times (1 - failureRate). */
  reliability: number;
  /** $ per 1000 proofs at the point estimate, reliability included. */
  costPer1000: number;
  /** $ per 1000 proofs at the optimistic estimate: the sort key. */
  optimisticCostPer1000: number;
  /** An unmeasured offer whose optimistic cost beats the best measured one. */
  worthTrying: boolean;
  /** The rate this offer must measure to be kept: the floor, or its price over the $ per 1000 proofs ceiling. */
  keepMinimumProofsPerHour: number;
  /**
   * The share of the rental's hours that prove once preemptions are counted (preemptionShare):
   * 1 on-demand. The planner counts an interruptible rental at its estimate times this share.
   */
  preemptionShare: number;
}

/** An offer left out, with why. */
export interface ExcludedCandidate {
  candidate: RankCandidate;
  reason: string;
}

/**
 * The geometric mean, held within the runs' own range: through logs, two runs of 20/h come out
 * 19.999999999999996, and a machine measured exactly at its minimum would be excluded below it.
 */
const geometricMean = (xs: readonly number[]) =>
  Math.min(
    Math.max(Math.exp(xs.reduce((a, x) => a + Math.log(x), 0) / xs.length), Math.min(...xs)),
    Math.max(...xs),
  );

function logSpread(xs: readonly number[]): number {
  if (xs.length < 2) return 0;
  const logs = xs.map((x) => Math.log(x));
  const mean = logs.reduce((a, b) => a + b, 0) / logs.length;
  return Math.sqrt(logs.reduce((a, b) => a + (b - mean) ** 2, 0) / (logs.length - 1));
}

/** An offer's setup: hours paid before it proves and $ per rental. */
interface Setup {
  hours: number;
  usd: number;
}

/** The options with their defaults applied: the rules every offer is ranked by. */
interface RankingRules {
  optimism: number;
  modelSpread: number;
  classFloor: number;
  runFloor: number;
  correct: (candidate: RankCandidate, calibration: ClassCalibration) => number;
  keepRule: KeepRule;
  hoursLeft: number | undefined;
  setupOf: ((candidate: RankCandidate) => Setup) | undefined;
}

function rulesOf(options: RankingOptions): RankingRules {
  return {
    optimism: options.optimism ?? 1,
    modelSpread: options.modelSpreadLog ?? 0.35,
    classFloor: options.classSpreadFloorLog ?? 0.1,
    runFloor: options.runSpreadFloorLog ?? 0.05,
    correct: options.correct ?? ((c, cal) => c.predictedProofsPerHour * cal.factor),
    keepRule: {
      minProofsPerHour: options.minProofsPerHour,
      maxUsdPer1000Proofs: options.maxUsdPer1000Proofs,
    },
    hoursLeft: options.hoursLeft,
    setupOf: options.setupOf,
  };
}

const keepMinimumOf = (rules: RankingRules, c: RankCandidate) =>
  keepMinimumProofsPerHour(rules.keepRule, c.dphTotal);

/** Why an offer is left out before anything is estimated (its machine excluded, no safe config, no price); undefined when it is not. */
function offerExclusion(
  candidate: RankCandidate,
  machine: MachineMeasurements | undefined,
): string | undefined {
  if (machine?.excludedReason !== undefined) {
    return `machine ${candidate.machineId} excluded: ${machine.excludedReason}`;
  }
  if (!candidate.feasible || !(candidate.predictedProofsPerHour > 0)) {
    return "the tuner finds no safe config for this offer";
  }
  if (!(candidate.dphTotal > 0)) return "the offer has no positive price";
  return undefined;
}

/** What is known of one offer that passed the exclusions, to estimate its rate from. */
interface OfferEvidence {
  candidate: RankCandidate;
  machine: MachineMeasurements | undefined;
  /** The machine's positive measured runs, proofs/hour. */
  runs: number[];
  measured: { proofsPerHour: number; runs: number } | undefined;
  calibration: ClassCalibration | undefined;
  corrected: number | undefined;
}

/** The best-informed rate of an offer and its uncertainty: measured, else class-corrected, else the bare model. */
function estimateOf(
  evidence: OfferEvidence,
  rules: RankingRules,
): { source: EstimateSource; estimate: number; spread: number } {
  const { candidate, machine, runs, measured, calibration: cal, corrected } = evidence;
  if (measured !== undefined) {
    return {
      source: "measured",
      estimate: machine?.currentProofsPerHour ?? measured.proofsPerHour,
      spread: Math.max(logSpread(runs), rules.runFloor) / Math.sqrt(runs.length),
    };
  }
  if (cal !== undefined && corrected !== undefined) {
    // A new machine of a known class varies like the class's machines do, plus the error
    // of the class mean itself; a single sample says little about the spread, so the
    // model's own spread shrinks towards the floor as samples accumulate.
    const within =
      cal.samples > 1
        ? Math.max(cal.spreadLog, rules.classFloor)
        : Math.max(rules.classFloor, rules.modelSpread / 2);
    return { source: "corrected", estimate: corrected, spread: within * Math.sqrt(1 + 1 / cal.samples) };
  }
  return { source: "predicted", estimate: candidate.predictedProofsPerHour, spread: rules.modelSpread };
}

/** The machine's chance to fail or die, 0..1: its own rate, else its host's, else the fleet's. */
function failureRateOf(
  candidate: RankCandidate,
  machine: MachineMeasurements | undefined,
  knowledge: RankingKnowledge,
): number {
  const host = candidate.hostId === undefined ? undefined : knowledge.hosts.get(candidate.hostId);
  // The expected cost of a failed rental: a rental that fails or dies delivers no proofs for
  // the hours it was paid, so the rate paid for is the estimate times the chance to survive.
  // Laplace's rule when only counts are known: one failure in one try halves it, not zeroes it.
  return (
    machine?.failureRate ??
    host?.failureRate ??
    (host === undefined ? (knowledge.fleetFailureRate ?? 0) : host.failures / (host.attempts + 1))
  );
}

/** The share of an offer's rented hours that prove once preemptions are counted: 1 on-demand. */
function preemptionShareOf(candidate: RankCandidate, knowledge: RankingKnowledge, setup: Setup): number {
  // An interruptible rental redoes its setup after each preemption: the share of its hours
  // that prove falls with the preemption rate (one hour of setup when the caller gives none).
  return candidate.interruptible === true
    ? preemptionShare(
        knowledge.preemptionsPerHour ?? priorPreemptionsPerHour,
        setup.hours > 0 ? setup.hours : interruptibleSetupHours,
      )
    : 1;
}

/** One offer ranked, or why it is left out. */
type OfferOutcome = { ranked: RankedCandidate } | { excludedReason: string };

/** Ranks one offer: its exclusions in order, then its estimate, reliability and costs. */
function rankOffer(candidate: RankCandidate, knowledge: RankingKnowledge, rules: RankingRules): OfferOutcome {
  const machine = candidate.machineId === undefined ? undefined : knowledge.machines.get(candidate.machineId);
  const offerReason = offerExclusion(candidate, machine);
  if (offerReason !== undefined) return { excludedReason: offerReason };
  const setup = rules.setupOf?.(candidate) ?? { hours: 0, usd: 0 };
  const hoursLeft = rules.hoursLeft;
  if (hoursLeft !== undefined && hoursLeft <= setup.hours) {
    return {
      excludedReason: `its setup (${setup.hours.toFixed(1)} h) does not end in the ${hoursLeft.toFixed(1)} h left`,
    };
  }
  const runs = machine?.runsProofsPerHour.filter((r) => r > 0) ?? [];
  const measured = runs.length > 0 ? { proofsPerHour: geometricMean(runs), runs: runs.length } : undefined;
  if (measured !== undefined && measured.proofsPerHour < keepMinimumOf(rules, candidate)) {
    return {
      excludedReason: `measured ${measured.proofsPerHour.toFixed(1)} proofs/hour, below ${describeKeepMinimum(rules.keepRule, candidate.dphTotal)}`,
    };
  }
  const calibration = knowledge.calibration.get(candidate.classKey);
  const corrected = calibration === undefined ? undefined : rules.correct(candidate, calibration);
  const { source, estimate, spread } = estimateOf(
    { candidate, machine, runs, measured, calibration, corrected },
    rules,
  );
  const failureRate = failureRateOf(candidate, machine, knowledge);
  const preempted = preemptionShareOf(candidate, knowledge, setup);
  const reliability = Math.max(0.05, (candidate.marketReliability ?? 1) * (1 - failureRate) * preempted);
  const optimistic = estimate * Math.exp(rules.optimism * spread);
  // Exploration and renting are charged their setup over the hours left: $ paid over the
  // proving hours' share of them (1 with no end).
  const dph = candidate.dphTotal;
  const setupCharge =
    hoursLeft === undefined ? 1 : (dph * hoursLeft + setup.usd) / (dph * (hoursLeft - setup.hours));
  return {
    ranked: {
      candidate,
      predictedProofsPerHour: candidate.predictedProofsPerHour,
      correctedProofsPerHour: corrected,
      measured,
      source,
      estimateProofsPerHour: estimate,
      spreadLog: spread,
      optimisticProofsPerHour: optimistic,
      failureRate,
      reliability,
      costPer1000: (dph * 1000 * setupCharge) / (estimate * reliability),
      optimisticCostPer1000: (dph * 1000 * setupCharge) / (optimistic * reliability),
      worthTrying: false,
      keepMinimumProofsPerHour: keepMinimumOf(rules, candidate),
      preemptionShare: preempted,
    },
  };
}

/** Marks the unmeasured offers whose optimistic cost beats the best measured one (the given best or the best ranked here). */
function markWorthTrying(
  ranked: readonly RankedCandidate[],
  bestMeasuredCostPer1000: number | undefined,
): void {
  const measuredCosts = ranked.filter((r) => r.source === "measured").map((r) => r.costPer1000);
  const bestMeasured = Math.min(bestMeasuredCostPer1000 ?? Number.POSITIVE_INFINITY, ...measuredCosts);
  for (const r of ranked) r.worthTrying = r.source !== "measured" && r.optimisticCostPer1000 < bestMeasured;
}

/** Best first: offers whose optimistic rate reaches their keep minimum, then by optimistic cost, then by offer id. */
function sortRanked(ranked: RankedCandidate[], rules: RankingRules): void {
  const reaches = (r: RankedCandidate) =>
    r.optimisticProofsPerHour >= keepMinimumOf(rules, r.candidate) ? 1 : 0;
  ranked.sort(
    (a, b) =>
      reaches(b) - reaches(a) ||
      a.optimisticCostPer1000 - b.optimisticCostPer1000 ||
      a.candidate.offerId - b.candidate.offerId,
  );
}

/**
 * Ranks offers by $ per 1000 proofs with optimism under uncertainty (an upper-confidence
 * rule). Each offer's rate is the best-informed estimate there is: this machine's own
 * measurements, else the model corrected by its class's calibration, else the bare model.
 * The sort key is the cost at the optimistic rate, estimate x exp(optimism x spread): a
 * measured machine has a small spread and is ranked at about its measured cost; an unmeasured
 * one gets a bonus that shrinks as its class is measured. So the fleet explores an unknown
 * offer only while its best case beats what it already knows (exploit otherwise), and every
 * benchmark narrows the bonus of its whole class. Machines that failed, were unstable or
 * measured below the minimum are excluded.
 */
export function rankCandidates(
  candidates: readonly RankCandidate[],
  knowledge: RankingKnowledge,
  options: RankingOptions,
): { ranked: RankedCandidate[]; excluded: ExcludedCandidate[] } {
  const rules = rulesOf(options);
  const ranked: RankedCandidate[] = [];
  const excluded: ExcludedCandidate[] = [];
  for (const candidate of candidates) {
    const outcome = rankOffer(candidate, knowledge, rules);
    if ("ranked" in outcome) ranked.push(outcome.ranked);
    else excluded.push({ candidate, reason: outcome.excludedReason });
  }
  markWorthTrying(ranked, options.bestMeasuredCostPer1000);
  sortRanked(ranked, rules);
  return { ranked, excluded };
}
