import { createEngineState } from "./engine-state.js";
import { engineMetricsText, statusInput } from "./engine-status.js";
import { submitProof } from "./engine-submit.js";
import type { SimEngine, SimEngineDeps } from "./engine-types.js";
import { buildStatusJson, buildStatusResponse } from "./status-views.js";

export type { FinishedProof, SimEngine, SimEngineDeps, Submission } from "./engine-types.js";

// The engine of one daemon run: job tracking, the pipeline (or the fixed-time mode), counters
// and the status views. A restart creates a new engine, so every job and counter is forgotten.
// Its state is engine-state.ts; proofs enter in engine-submit.ts and end in engine-finish.ts.

/** Creates the engine of one daemon run. */
export function createSimEngine(deps: SimEngineDeps): SimEngine {
  const s = createEngineState(deps);
  const { scheduler } = s.options;
  return {
    startedAt: s.startedAt,
    submit: (request, waitForResult) => submitProof(s, request, waitForResult),
    awaitJob: (jobId) => s.tracker.await(jobId),
    preloadSrs(circuit) {
      const startedLoadAt = scheduler.now();
      return new Promise((resolve) => {
        s.pipeline.preload(circuit, (alreadyLoaded) => {
          if (!s.preloaded.includes(circuit)) s.preloaded.push(circuit);
          resolve({
            alreadyLoaded,
            loadTimeMs: alreadyLoaded ? 0 : Math.round(scheduler.now() - startedLoadAt),
          });
        });
      });
    },
    getStatus: () => buildStatusResponse(statusInput(s)),
    metricsText: () => engineMetricsText(s),
    statusJson: () => buildStatusJson(statusInput(s)),
    memoryInUseBytes: () => (s.options.proofTimeMs === undefined ? s.pipeline.memoryInUseBytes() : 0),
    dispose() {
      s.disposed = true;
      s.pipeline.dispose();
      for (const cancel of s.fixedTimers) cancel();
      s.fixedTimers.clear();
    },
  };
}
