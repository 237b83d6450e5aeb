import { randomUUID } from "node:crypto";
import { type ProofKind, proofKindFromWire } from "@cuzkit/core";
import type { AwaitProofResponse, SubmitProofRequest } from "@cuzkit/proto";
import { finishProof } from "./engine-finish.js";
import type { EngineState } from "./engine-state.js";
import type { Submission } from "./engine-types.js";
import { simulatedProofBytes } from "./proof-bytes.js";
import { inputFailure } from "./validate-request.js";

// How a proof enters the engine: tracked under its job id, checked, then run by the pipeline or,
// with proofTimeMs set, by the fixed-time mode.

/** Share of a fixed-time proof reported as synthesis (the rest is GPU time). */
const fixedModeSynthesisShare = 0.6;

/** Queues a proof of a valid kind (1..4); `waitForResult` registers a Prove-style waiter. */
export function submitProof(s: EngineState, request: SubmitProofRequest, waitForResult: boolean): Submission {
  const { deps, options, tracker } = s;
  const kind = proofKindFromWire(request.proofKind);
  if (kind === undefined) throw new RangeError(`invalid proof_kind: ${request.proofKind}`);
  const jobId = request.requestId === "" ? randomUUID() : request.requestId;
  const queuePosition = s.pipeline.queueDepth();
  deps.onSubmitted(jobId);
  tracker.submitted(jobId);
  const result = waitForResult
    ? new Promise<AwaitProofResponse>((resolve) => tracker.addWaiter(jobId, resolve))
    : undefined;
  if (s.disposed) return { jobId, queuePosition, result };
  // Checked and hashed now so the (up to 51 MB) request is not held while the proof runs.
  const failure = inputFailure(kind, request, options.config);
  const proof = failure === undefined ? simulatedProofBytes(request) : new Uint8Array(0);
  const injected = deps.takeInjectedFailure();
  if (options.proofTimeMs !== undefined) {
    runFixed(s, jobId, kind, failure, injected, proof);
  } else {
    const submittedAt = options.scheduler.now();
    s.pipeline.submit(
      { jobId, kind, priority: request.priority, inputFailure: failure, injectedFailure: injected },
      (outcome) => finishProof(s, jobId, kind, submittedAt, proof, outcome),
    );
  }
  return { jobId, queuePosition, result };
}

/** The fixed-time mode: the proof takes proofTimeMs (jittered), or fails at once on bad input. */
function runFixed(
  s: EngineState,
  jobId: string,
  kind: ProofKind,
  failure: string | undefined,
  injected: string | undefined,
  proof: Uint8Array,
): void {
  const { options } = s;
  const { scheduler } = options;
  const submittedAt = scheduler.now();
  const jitter = options.proofTimeJitter === 0 ? 1 : 1 + options.proofTimeJitter * (2 * s.random() - 1);
  const durationMs = failure === undefined ? (options.proofTimeMs ?? 0) * jitter : 0;
  s.fixedInFlight++;
  const cancel = scheduler.setTimer(() => {
    s.fixedTimers.delete(cancel);
    s.fixedInFlight--;
    const message = failure ?? injected;
    if (message !== undefined) {
      finishProof(s, jobId, kind, submittedAt, proof, { status: "failed", errorMessage: message });
      return;
    }
    // libuv fires timers by its loop's cached millisecond clock, which can trail
    // performance.now() by up to a millisecond: the elapsed time read here may come out just
    // under the delay the timer was set for, which a proof of fixed time never takes.
    const totalMs = Math.round(Math.max(scheduler.now() - submittedAt, durationMs));
    const partitions = s.model.kinds[kind].partitions;
    finishProof(s, jobId, kind, submittedAt, proof, {
      status: "completed",
      timings: {
        queueWaitMs: 0,
        synthesisMs: Math.round(totalMs * fixedModeSynthesisShare * partitions),
        gpuComputeMs: Math.round(totalMs * (1 - fixedModeSynthesisShare) * partitions),
        totalMs,
      },
    });
  }, durationMs);
  s.fixedTimers.add(cancel);
}
