import {
  type DaemonConfig,
  type HardwareSpec,
  InvalidInputError,
  loadsPceFromDisk,
  modelConstants,
  modelDaemon,
  type ProofKind,
} from "@cuzkit/core";
import type { BenchPhase } from "./status-file.js";

// Phase deadlines: the model's ETA for each phase times a margin, so a healthy long warmup is
// never cut by a fixed 20 minutes and a stuck one is not waited on forever.

/** Phases that have a deadline. */
export type TimedPhase = Exclude<BenchPhase, "done">;

/** Modelled duration per phase in ms (undefined where the model says nothing). */
export type PhaseEtas = { [P in TimedPhase]?: number | undefined };

/** Modelled seconds to write a PoRep PCE file (22.3 s on NVMe, docs/daemon-facts.md section 4). */
export const modelledPceWriteSec = 22.3;

/** What the model needs for ETAs. */
export interface PhaseModelInput {
  hardware: HardwareSpec;
  /** The config of the timed batch. */
  config: DaemonConfig;
  /** The warmup daemon's config. Default: config. */
  warmupConfig?: DaemonConfig | undefined;
  kind: ProofKind;
  count: number;
  concurrency: number;
  warmupProofs: number;
  /** Real seconds per modelled second (a simulator's time scale). Default 1. */
  timeScale?: number | undefined;
}

/** The model's ETA of each phase, in real ms. */
export function modelPhaseEtas(input: PhaseModelInput): PhaseEtas {
  const scale = (input.timeScale ?? 1) * 1000;
  const workload = { kind: input.kind, concurrency: input.concurrency };
  const full = modelDaemon(input.hardware, input.config, workload).timing;
  const warm = modelDaemon(input.hardware, input.warmupConfig ?? input.config, {
    ...workload,
    concurrency: 1,
  }).timing;
  const finite = (sec: number) => (Number.isFinite(sec) ? Math.ceil(sec * scale) : undefined);
  // A restarted partition-workers daemon loads the PCE from disk: its batch is warm; others re-extract.
  const batchSec = loadsPceFromDisk(input.config)
    ? full.proofLatencySec + Math.max(0, input.count - input.concurrency) * full.secPerProof
    : full.worstCaseProofSec + Math.max(0, input.count - input.concurrency) * full.secPerProof;
  const etas: Record<string, number | undefined> = {
    warmup: finite(warm.firstProofSec + Math.max(0, input.warmupProofs - 1) * warm.singleProofSec),
    "waiting-for-pce": finite(modelConstants.pceExtractionSec.value + modelledPceWriteSec),
    timed: finite(batchSec),
  };
  return Object.fromEntries(Object.entries(etas).filter(([, v]) => v !== undefined)) as PhaseEtas;
}

/** Options of phase deadlines. */
export interface PhaseDeadlineOptions {
  /** Deadline = ETA x margin. Default 3. */
  margin?: number | undefined;
  /** Deadlines in ms that override the computed ones, per phase. */
  overrides?: PhaseEtas | undefined;
  /** Shortest deadline, in real ms, so a tiny ETA is not cut by scheduling noise. Default 1000. */
  floorMs?: number | undefined;
}

/** Deadline of each phase in ms: overrides, else ETA x margin (at least floorMs), else `fallbacks`. */
export function phaseDeadlines(
  etas: PhaseEtas,
  fallbacks: PhaseEtas,
  options: PhaseDeadlineOptions = {},
): PhaseEtas {
  const margin = options.margin ?? 3;
  if (!(margin >= 1))
    throw new InvalidInputError(`the phase deadline margin must be >= 1, got ${margin}`, {
      hint: "use 3 (ETA x 3)",
    });
  const floorMs = options.floorMs ?? 1000;
  const out: PhaseEtas = {};
  const phases: TimedPhase[] = [
    "starting-daemon",
    "waiting-for-daemon",
    "warmup",
    "waiting-for-pce",
    "restarting-daemon",
    "timed",
  ];
  for (const phase of phases) {
    const override = options.overrides?.[phase];
    if (override !== undefined && !(override > 0))
      throw new InvalidInputError(`the ${phase} deadline must be positive, got ${override}`, {
        hint: "give a time in ms",
      });
    const eta = etas[phase];
    const value = override ?? (eta === undefined ? fallbacks[phase] : Math.max(floorMs, eta * margin));
    // Whole milliseconds: the deadline becomes a call's timeout, which the wire carries as an integer.
    if (value !== undefined) out[phase] = Math.ceil(value);
  }
  return out;
}
