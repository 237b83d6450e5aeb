import { InvalidInputError, withDefaults } from "@cuzkit/core";
import { fleetDefaults } from "./defaults.js";

// Per-phase deadlines derived from the offer and the model, never one fixed number: the
// incidents' manager killed a healthy machine with a 20-minute phase timeout while its
// warmup, daemon restart and 12 timed proofs needed 25-30 minutes.

/** The phases that get a deadline. */
export type DeadlinePhase = "renting" | "booting" | "registered" | "params" | "warmup" | "benchmarking";

/** Deadline of each phase, ms after entering it. */
export type PhaseDeadlinesMs = Record<DeadlinePhase, number>;

/** Some phases' deadlines, ms; a phase that is absent or undefined keeps its default. */
export type SomePhaseDeadlinesMs = { [P in DeadlinePhase]?: number | undefined };

/** What the deadlines are derived from. */
export interface DeadlineInputs {
  /** The offer's measured download speed, Mbit/s; undefined when Vast does not know it. */
  inetDownMbps: number | undefined;
  /** Compressed size of the prover image, bytes. */
  imageBytes: number;
  /** Size of the proof parameters the agent fetches, bytes. */
  paramsBytes: number;
  /** The model's wall time of the warmup proof on this offer, parameter load included, seconds. */
  warmupProofSec: number;
  /** The model's steady seconds per proof at the tuned concurrency. */
  secPerProof: number;
  /** The model's latency of one proof in the steady state (the pipeline's fill and drain), seconds. */
  proofLatencySec: number;
  /** Timed proofs the benchmark runs. */
  benchmarkProofs: number;
  /** True when the daemon restarts between warmup and the timed run (partition-workers dialect). */
  restartAfterWarmup: boolean;
}

/** How generous the deadlines are. */
export interface DeadlinePolicy {
  /** Factor on every modelled duration. Default 1.5. */
  margin?: number | undefined;
  /** The least deadline per phase, ms. Default {@link defaultDeadlineFloorsMs}. */
  floorsMs?: SomePhaseDeadlinesMs | undefined;
  /** Fixed deadlines that replace the derived ones (`--deadline params=40m`), ms. Default none. */
  overridesMs?: SomePhaseDeadlinesMs | undefined;
  /** Vast's own loading time on top of the image pull (scheduling, container start), ms. Default 5 min. */
  vastLoadingMs?: number | undefined;
  /** Share of the measured inet_down a download really gets. Default 0.5. */
  downloadEfficiency?: number | undefined;
  /** Download speed assumed when the offer has none, Mbit/s. Default 100. */
  unknownInetDownMbps?: number | undefined;
  /** Daemon start with its parameter load (SRS, PCE), ms; paid again at a warmup restart. Default 10 min. */
  daemonStartMs?: number | undefined;
}

const minute = 60_000;

/** The least deadline of each phase. */
export const defaultDeadlineFloorsMs: PhaseDeadlinesMs = {
  renting: 5 * minute,
  booting: 10 * minute,
  registered: 5 * minute,
  params: 15 * minute,
  warmup: 15 * minute,
  // The incidents' healthy benchmarks took 25-30 minutes on machines the model now rates faster:
  // never kill a benchmark before 35 minutes, whatever the model says.
  benchmarking: 35 * minute,
};

/** Seconds to move `bytes` at `mbps` megabits per second. */
function transferMs(bytes: number, mbps: number): number {
  return ((bytes * 8) / (mbps * 1_000_000)) * 1000;
}

function checkPositive(name: string, value: number, allowZero = false): void {
  if (!Number.isFinite(value) || value < 0 || (!allowZero && value === 0)) {
    throw new InvalidInputError(`${name} must be a positive number, got ${String(value)}`, {
      hint: "check the offer and the deadline options",
    });
  }
}

/**
 * Derives each phase's deadline: the modelled duration times the margin, at least the floor,
 * unless overridden. Pure. Throws InvalidInputError for a negative or non-finite input.
 */
export function derivePhaseDeadlines(inputs: DeadlineInputs, policy: DeadlinePolicy = {}): PhaseDeadlinesMs {
  const margin = policy.margin ?? fleetDefaults.deadlineMargin;
  const efficiency = policy.downloadEfficiency ?? 0.5;
  const vastLoadingMs = policy.vastLoadingMs ?? 5 * minute;
  const daemonStartMs = policy.daemonStartMs ?? 10 * minute;
  checkPositive("margin", margin);
  checkPositive("downloadEfficiency", efficiency);
  for (const [name, value] of Object.entries(inputs)) {
    if (typeof value === "number") checkPositive(name, value, true);
  }
  const mbps =
    inputs.inetDownMbps !== undefined && inputs.inetDownMbps > 0
      ? inputs.inetDownMbps
      : (policy.unknownInetDownMbps ?? 100);
  const effectiveMbps = mbps * efficiency;
  const modelledMs: PhaseDeadlinesMs = {
    renting: 0,
    booting: vastLoadingMs + transferMs(inputs.imageBytes, effectiveMbps),
    registered: 0,
    params: transferMs(inputs.paramsBytes, effectiveMbps),
    // Tuning is instant; the daemon loads its parameters, then the cache-less first proof runs.
    warmup: daemonStartMs + inputs.warmupProofSec * 1000,
    benchmarking:
      (inputs.restartAfterWarmup ? daemonStartMs : 0) +
      (inputs.benchmarkProofs * inputs.secPerProof + inputs.proofLatencySec) * 1000,
  };
  const floors = withDefaults<SomePhaseDeadlinesMs>(defaultDeadlineFloorsMs, policy.floorsMs);
  const out = {} as PhaseDeadlinesMs;
  for (const phase of Object.keys(modelledMs) as DeadlinePhase[]) {
    const override = policy.overridesMs?.[phase];
    out[phase] =
      override !== undefined ? override : Math.ceil(Math.max(floors[phase], modelledMs[phase] * margin));
  }
  return out;
}

/** True when the phase has run past its deadline. */
export function isPastDeadline(phaseDeadlineAt: number | undefined, nowMs: number): boolean {
  return phaseDeadlineAt !== undefined && nowMs > phaseDeadlineAt;
}

/** Heartbeats missed in a row after which the machine is lost. */
export const missedHeartbeatsForLost = 3;

/**
 * True when an agent has been silent for `missed` heartbeat intervals: since its last
 * heartbeat, or since the phase began when it never sent one.
 */
export function isHeartbeatLost(
  lastHeartbeatAt: number | undefined,
  phaseStartedAt: number,
  nowMs: number,
  intervalMs: number = fleetDefaults.heartbeatIntervalMs,
  missed = missedHeartbeatsForLost,
): boolean {
  const since = Math.max(lastHeartbeatAt ?? phaseStartedAt, phaseStartedAt);
  return nowMs - since > missed * intervalMs;
}
