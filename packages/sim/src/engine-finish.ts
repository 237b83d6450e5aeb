import { create } from "@bufbuild/protobuf";
import type { ProofKind } from "@cuzkit/core";
import { AwaitProofResponse_Status, AwaitProofResponseSchema } from "@cuzkit/proto";
import type { EngineState } from "./engine-state.js";
import type { ProofOutcome } from "./pipeline.js";

// How a proof ends in the engine: it sticks or is held (faults), or its result is counted and
// delivered to every waiter of its job id.

/** Ends a proof with `outcome` (nothing once the engine is disposed). */
export function finishProof(
  s: EngineState,
  jobId: string,
  kind: ProofKind,
  submittedAt: number,
  proof: Uint8Array,
  outcome: ProofOutcome,
): void {
  const { deps, options } = s;
  if (s.disposed) return;
  if (deps.sticks?.()) {
    options.logger.info("proof stuck", { jobId });
    s.stuckJobs.push({ jobId, kind });
    return;
  }
  if (deps.holdsResult?.()) {
    options.logger.info("proof held", { jobId });
    return;
  }
  const result =
    outcome.status === "completed"
      ? create(AwaitProofResponseSchema, {
          jobId,
          status: AwaitProofResponse_Status.COMPLETED,
          proof,
          queueWaitMs: BigInt(outcome.timings.queueWaitMs),
          srsLoadMs: 0n,
          synthesisMs: BigInt(outcome.timings.synthesisMs),
          gpuComputeMs: BigInt(outcome.timings.gpuComputeMs),
          totalMs: BigInt(outcome.timings.totalMs),
        })
      : create(AwaitProofResponseSchema, {
          jobId,
          status: AwaitProofResponse_Status.FAILED,
          errorMessage: outcome.errorMessage,
        });
  const durationSec = (options.scheduler.now() - submittedAt) / 1000;
  s.counters.record(kind, outcome.status, durationSec);
  if (kind === "porep" || kind === "snap") s.partitionedCounters.record(kind, outcome.status, durationSec);
  if (outcome.status === "completed") s.gpusUsed = true;
  s.tracker.complete(jobId, result);
  deps.onFinished({ jobId, kind, status: outcome.status });
}
