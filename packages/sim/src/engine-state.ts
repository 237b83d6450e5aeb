import { type CircuitId, type ProofKind, seededRandom } from "@cuzkit/core";
import { createProofCounters, type ProofCounters } from "./counters.js";
import type { SimEngineDeps } from "./engine-types.js";
import { createJobTracker, type JobTracker } from "./job-tracker.js";
import type { ResolvedSimOptions } from "./options.js";
import { createPipeline, type Pipeline } from "./pipeline.js";
import { createPipelineModel, type PipelineModel } from "./pipeline-model.js";

// The state of one run's engine, shared by its submission (engine-submit.ts), the ending of its
// proofs (engine-finish.ts) and its status views (engine-status.ts).

/** Everything one run's engine holds. */
export interface EngineState {
  deps: SimEngineDeps;
  options: ResolvedSimOptions;
  /** Scheduler time at which this run started, in ms. */
  startedAt: number;
  tracker: JobTracker;
  counters: ProofCounters;
  /** The counters of the partitioned PoRep/Snap path only (what HTTP /status counts). */
  partitionedCounters: ProofCounters;
  /** Circuits preloaded by PreloadSRS, in first-preload order. */
  preloaded: CircuitId[];
  /** Timers of the fixed-time proofs running. */
  fixedTimers: Set<() => void>;
  fixedInFlight: number;
  /** Seeded, so a jittered run repeats exactly from its seed. */
  random: () => number;
  /** Whether a proof has completed on the GPUs in this run. */
  gpusUsed: boolean;
  /** Proofs that stuck (the stickAfterProofs fault): shown on GPU workers, never ended. */
  stuckJobs: { jobId: string; kind: ProofKind }[];
  disposed: boolean;
  model: PipelineModel;
  pipeline: Pipeline;
}

/** The state of a new run's engine: no jobs, zeroed counters, an empty pipeline. */
export function createEngineState(deps: SimEngineDeps): EngineState {
  const { options } = deps;
  const { scheduler, hardware, config } = options;
  const model = createPipelineModel(hardware, config);
  const s: EngineState = {
    deps,
    options,
    startedAt: scheduler.now(),
    tracker: createJobTracker(),
    counters: createProofCounters(),
    partitionedCounters: createProofCounters(),
    preloaded: [],
    fixedTimers: new Set(),
    fixedInFlight: 0,
    random: seededRandom(options.seed),
    gpusUsed: false,
    stuckJobs: [],
    disposed: false,
    model,
    pipeline: createPipeline({
      model,
      scheduler,
      timeScale: options.timeScale,
      pceCached: (circuit) => options.pceCached || (deps.pceOnDisk?.has(circuit) ?? false),
      onPceExtracted: (circuit) => deps.onPceExtracted?.(circuit),
      usableRamBytes: hardware.usableRamBytes,
      gpuCount: hardware.gpus.length,
      dispatchConcurrency: config.synthesisConcurrency,
      onOom: (detail) => {
        s.disposed = true;
        deps.onOom(detail);
      },
      onMemory: deps.onMemory,
    }),
  };
  return s;
}
