import type { SubmitProofRequest } from "@cuzkit/proto";
import { awaitStep } from "./prove/await.js";
import { deadlineError } from "./prove/call-errors.js";
import { common, createProveCall, emit, nextAttempt, remainingMs, typed } from "./prove/state.js";
import { ensureBaseline, submitStep } from "./prove/submit.js";
import type { ProofResult, ProveDeps, ProveOptions } from "./prove/types.js";

// prove(): submit, then await, with resume. The daemon keeps a job running when a call's
// connection breaks, but loses every job when it restarts, and never deduplicates request
// ids (a repeated id can mix two proofs' partitions). So every attempt gets a fresh id, and
// after a break the client probes the daemon and lets decideRecovery (recovery.ts) judge the
// evidence: same process -> AwaitProof the same id (never resubmit); restarted -> the job is
// gone (resubmit under a new id where allowed, else DaemonRestartedError); silent -> frozen
// (DaemonFrozenError after one short probe); refusing for the whole window -> unreachable
// (DaemonUnavailableError). A submit whose body was not completely written never reached the
// daemon: it is sent again under a new id, nothing having run. While a job is awaited, GetStatus
// is sampled for progress (stuck.ts): a job the daemon holds without progress for the model's
// ETA x a margin fails with DaemonStuckError, and is never resubmitted (it may still finish).

// The call is a state object (prove/state.ts) that step modules act on: submit (prove/submit.ts),
// await with the stuck watch (prove/await.ts), recovery after a break (prove/resume.ts), and the
// typed errors it ends with (prove/call-errors.ts).

export { maxRecoveryProbes } from "./prove/resume.js";
export { defaultRequestIdBase, submitTimeoutMs } from "./prove/state.js";
export type {
  InternalCallOptions,
  ProofResult,
  ProofTimings,
  ProveDeps,
  ProveOptions,
  SubmitCallOptions,
} from "./prove/types.js";

/** Runs one `prove` call: validate, submit, await, and recover from breaks as described above. */
export async function proveWithResume(
  deps: ProveDeps,
  input: SubmitProofRequest,
  callOptions: ProveOptions = {},
): Promise<ProofResult> {
  const call = createProveCall(deps, input, callOptions);
  try {
    if (call.callerSignal?.aborted) throw typed(call, call.callerSignal.reason);
    await ensureBaseline(call);
    nextAttempt(call);
    for (;;) {
      if (remainingMs(call) <= 0) throw deadlineError(call);
      if (call.phase === "submit") {
        await submitStep(call);
        continue;
      }
      const result = await awaitStep(call);
      if (result !== undefined) return result;
    }
  } catch (error) {
    const err = typed(call, error);
    emit(call, { type: "failed", ...common(call), error: err });
    throw err;
  }
}
