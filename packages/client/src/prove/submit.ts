import { create } from "@bufbuild/protobuf";
import { SubmitProofRequestSchema } from "@cuzkit/proto";
import { DaemonFrozenError, DeadlineExceededError } from "../errors.js";
import { withUploadOutcome } from "../outcome.js";
import { breakKindOf } from "../recovery.js";
import { deadlineError } from "./call-errors.js";
import { onJobLost, recover, resumed } from "./resume.js";
import {
  common,
  emit,
  type ProveCall,
  remainingMs,
  resubmitUnderNewId,
  sample,
  submitTimeoutMs,
  typed,
} from "./state.js";

/** A submit that broke before the daemon took it is re-sent at most this many times. */
export const maxNotAcceptedResends = 3;

/**
 * One GetStatus before the first submit (unless a recent one is known): learns the uptime (to
 * recognise a restart later) and fails in milliseconds, before sending 51 MB, when no daemon is there.
 */
export async function ensureBaseline(call: ProveCall): Promise<void> {
  const { options, callerSignal } = call;
  if (
    call.baseline !== undefined &&
    options.clock.now() - call.baseline.atMs <= options.statusBaselineMaxAgeMs
  )
    return;
  const timeoutMs = Math.max(1, Math.min(options.deadlines.statusMs, remainingMs(call)));
  try {
    call.baseline = await sample(call, timeoutMs);
  } catch (error) {
    const err = typed(call, error, "GetStatus");
    if (err instanceof DeadlineExceededError && !callerSignal?.aborted && remainingMs(call) > 0) {
      throw new DaemonFrozenError(
        `the daemon did not answer GetStatus within ${timeoutMs} ms, before ${call.label} proof ${call.base} was sent: ` +
          "nothing was submitted",
        { rpc: "GetStatus", address: call.deps.address, cause: err, retryable: true },
      );
    }
    throw err;
  }
}

/** SubmitProof for the current attempt; on a break, recovers and decides what the next step is. */
export async function submitStep(call: ProveCall): Promise<void> {
  const { options, callerSignal, sizeBytes } = call;
  try {
    const request = create(SubmitProofRequestSchema, { ...call.input, requestId: call.requestId });
    const response = await call.deps.submit(request, {
      signal: callerSignal,
      timeoutMs: Math.max(1, Math.min(submitTimeoutMs(options, sizeBytes), remainingMs(call))),
      upload: call.upload,
    });
    call.phase = "await";
    call.lastBreak = undefined;
    call.rechecked = false;
    emit(call, { type: "submitted", ...common(call), queuePosition: response.queuePosition });
  } catch (error) {
    const err = typed(call, error, "SubmitProof");
    const breakKind = breakKindOf(err);
    if (breakKind === undefined || callerSignal?.aborted) {
      throw withUploadOutcome(err, call.requestId, call.upload, sizeBytes);
    }
    if (breakKind === "timeout" && remainingMs(call) <= 0) throw deadlineError(call, err);
    const decision = await recover(call, err, breakKind);
    if (decision.kind === "restarted") {
      // A new process, whether or not the body got out: report it and let the kind's
      // resubmit policy decide (an OOM during the upload of a 51 MB PoRep tends to repeat).
      onJobLost(call, decision.evidence, call.uptimeBeforeBreak, decision.status.uptimeSeconds, err);
      return;
    }
    if (!call.upload.complete) {
      // The body never got out: the daemon cannot have the request, nothing runs.
      if (breakKind === "timeout" || call.resends >= maxNotAcceptedResends) {
        // A deadline with a daemon that answers is a slow link: sending again would
        // only repeat it.
        throw withUploadOutcome(err, call.requestId, call.upload, sizeBytes);
      }
      call.resends += 1;
      resubmitUnderNewId(call, "not-accepted");
      return;
    }
    // The body went out: AwaitProof tells whether the daemon took it.
    call.lastBreak = "submit";
    call.phase = "await";
    resumed(call, decision);
  }
}
