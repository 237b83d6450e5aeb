import { ensureSrs } from "./pipeline-resources.js";
import { snapshotPipeline } from "./pipeline-snapshot.js";
import { submitJob } from "./pipeline-stages.js";
import { createPipelineState, disposePipeline } from "./pipeline-state.js";
import type { Pipeline, PipelineDeps } from "./pipeline-types.js";

export {
  type AllocationView,
  type GpuWorkerView,
  type OomDetail,
  type PartitionState,
  type Pipeline,
  type PipelineDeps,
  type PipelineJobSpec,
  type PipelineSnapshot,
  type PipelineView,
  type ProofOutcome,
  type ProofTimings,
  pipelineRetentionMs,
} from "./pipeline-types.js";

// The simulated proving pipeline of one daemon run. A proof goes: dispatch (at most
// synthesis_concurrency at once; loads the circuit's parameters on first use) -> its partitions
// wait for a synthesis slot (at most the model's synthesizing partitions at once) -> synthesis
// -> a GPU worker -> assembly -> done. Memory in use is recomputed at every step with core's
// envelope (see pipeline-model.ts): parameters and PCE resident or being built, the extraction
// transient, the working set of the partitions synthesizing at once, per-proof state beyond the
// envelope's baseline; when it exceeds usable RAM the daemon is OOM-killed (onOom). After the first
// completed proof of a kind, its PCE is extracted in the background; until then synthesis is
// slower by the model's cold factor. The run's state is pipeline-state.ts; the stages,
// pipeline-stages.ts; parameters and PCE, pipeline-resources.ts; /status views, pipeline-snapshot.ts.

/** Creates the pipeline of one daemon run. */
export function createPipeline(deps: PipelineDeps): Pipeline {
  const s = createPipelineState(deps);
  return {
    submit(spec, onDone) {
      if (s.disposed) return;
      submitJob(s, spec, onDone);
    },
    preload(circuit, onDone) {
      if (s.disposed) return;
      const loaded = s.srs.get(circuit)?.state === "loaded";
      ensureSrs(s, circuit, () => onDone(loaded));
    },
    queueDepth: () => s.dispatchQueue.length,
    memoryInUseBytes: () => s.memory,
    snapshot: () => snapshotPipeline(s),
    dispose: () => disposePipeline(s),
  };
}
