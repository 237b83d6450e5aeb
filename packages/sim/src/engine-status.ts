import type { EngineState } from "./engine-state.js";
import { formatMetricsText } from "./metrics-text.js";
import type { PipelineSnapshot } from "./pipeline.js";
import type { StatusInput } from "./status-views.js";

// What the engine's status views (GetStatus, /status, /metrics) read: the pipeline's snapshot
// (memory 0 in the fixed-time mode) with the stuck proofs shown on GPU workers.

/** The snapshot with each stuck proof on an otherwise idle GPU worker (as a GPU call that never returns). */
function withStuckJobs(s: EngineState, snapshot: PipelineSnapshot): PipelineSnapshot {
  if (s.stuckJobs.length === 0) return snapshot;
  const pending = [...s.stuckJobs];
  return {
    ...snapshot,
    gpuWorkers: snapshot.gpuWorkers.map((worker) => {
      if (worker.jobId !== undefined) return worker;
      const job = pending.shift();
      return job === undefined ? worker : { ...worker, jobId: job.jobId, kind: job.kind, partition: 0 };
    }),
  };
}

/** What the status views are built from, now. */
export function statusInput(s: EngineState): StatusInput {
  const { options } = s;
  const snapshot =
    options.proofTimeMs === undefined
      ? s.pipeline.snapshot()
      : { ...s.pipeline.snapshot(), memoryInUseBytes: 0 };
  return {
    hardware: options.hardware,
    config: options.config,
    snapshot: withStuckJobs(s, snapshot),
    counters: s.counters,
    partitionedCounters: s.partitionedCounters,
    preloaded: s.preloaded,
    uptimeMs: options.scheduler.now() - s.startedAt,
    gpusUsed: s.gpusUsed,
  };
}

/** The daemon's Prometheus text (/metrics). */
export function engineMetricsText(s: EngineState): string {
  const { options, model } = s;
  const snapshot = statusInput(s).snapshot;
  const running =
    options.proofTimeMs === undefined
      ? snapshot.gpuWorkers.filter((w) => w.jobId !== undefined).length
      : Math.min(s.fixedInFlight, model.gpuWorkers);
  return formatMetricsText({
    counters: s.counters,
    uptimeSeconds: (options.scheduler.now() - s.startedAt) / 1000,
    queueDepth: snapshot.queueDepth,
    runningJobs: running,
    gpuWorkers: model.gpuWorkers,
  });
}
