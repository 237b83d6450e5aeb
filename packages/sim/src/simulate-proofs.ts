import type { DaemonConfig, HardwareSpec, ProofKind } from "@cuzkit/core";
import { createPipeline, type OomDetail } from "./pipeline.js";
import { createPipelineModel } from "./pipeline-model.js";
import { createManualScheduler } from "./scheduler.js";

// One daemon run of the simulated pipeline in modelled time, with no server and no real timers:
// the same pipeline (and so the same model law) a simulated daemon runs, for checks that need
// its outcome fast and exactly (the demo's story, the model-vs-simulation tests).

/** Options of simulateProofs. */
export interface SimulateProofsOptions {
  hardware: HardwareSpec;
  config: DaemonConfig;
  /** Proofs to run after the warmup. */
  proofs: number;
  /** Proofs run one at a time first, on the same daemon (the benchmark's warmup without a restart). Default 0. */
  warmupProofs?: number | undefined;
  /** Proofs kept in flight after the warmup: a new one is submitted as each ends. Default 1. */
  concurrency?: number | undefined;
  /** Whether a PCE file exists at start (the partition-workers daemon loads it). Default false. */
  pceCached?: boolean | undefined;
  /** Proof kind. Default "porep". */
  kind?: ProofKind | undefined;
}

/** How the run went, in modelled seconds. */
export interface SimulatedRun {
  /** Proofs completed before the run ended, warmup included. */
  completed: number;
  /** Set when the daemon was OOM-killed. */
  oom: OomDetail | undefined;
  /** Highest memory in use, in bytes. */
  peakBytes: number;
  /** Modelled seconds from start at which each proof completed. */
  completedAtSec: number[];
}

/** Runs `proofs` proofs through one simulated daemon run in modelled time; returns at once. */
export function simulateProofs(options: SimulateProofsOptions): SimulatedRun {
  const { hardware, config, proofs } = options;
  const scheduler = createManualScheduler();
  let oom: OomDetail | undefined;
  let peakBytes = 0;
  const pipeline = createPipeline({
    model: createPipelineModel(hardware, config),
    scheduler,
    timeScale: 1,
    pceCached: () => options.pceCached ?? false,
    usableRamBytes: hardware.usableRamBytes,
    gpuCount: hardware.gpus.length,
    dispatchConcurrency: config.synthesisConcurrency,
    onOom: (detail) => {
      oom = detail;
    },
    onMemory: (bytes) => {
      peakBytes = Math.max(peakBytes, bytes);
    },
  });
  const completedAtSec: number[] = [];
  const warmupProofs = options.warmupProofs ?? 0;
  let submitted = 0;
  const startBatch = () => {
    for (let i = 0; i < Math.max(1, options.concurrency ?? 1); i++) submit();
  };
  const submit = () => {
    if (submitted >= proofs + warmupProofs || oom) return;
    const warmup = submitted < warmupProofs;
    const jobId = `proof-${submitted++}`;
    pipeline.submit({ jobId, kind: options.kind ?? "porep", priority: 2 }, (outcome) => {
      if (outcome.status === "completed") completedAtSec.push(scheduler.now() / 1000);
      if (!warmup) submit();
      else if (submitted < warmupProofs) submit();
      else startBatch();
    });
  };
  if (warmupProofs > 0) submit();
  else startBatch();
  scheduler.runAll();
  pipeline.dispose();
  return { completed: completedAtSec.length, oom, peakBytes, completedAtSec };
}
