import { setImmediate as nextTurn } from "node:timers/promises";
import { linkSignals } from "@cuzkit/core";
import type { AwaitProofResponse } from "@cuzkit/proto";
import { AwaitProofResponse_Status } from "@cuzkit/proto";
import { DaemonStuckError, JobNotFoundError, type StuckEvidence } from "../errors.js";
import { withJobRunning } from "../outcome.js";
import { breakKindOf } from "../recovery.js";
import type { DaemonStatus } from "../status.js";
import { progressBetween, stuckPollMs, stuckSample, stuckWindow } from "../stuck.js";
import { deadlineError, proofFailedError, stuckError } from "./call-errors.js";
import { onJobLost, recover, resumed } from "./resume.js";
import {
  common,
  emit,
  type ProveCall,
  remainingMs,
  resubmitUnderNewId,
  type StuckWatch,
  typed,
} from "./state.js";
import { maxNotAcceptedResends } from "./submit.js";
import type { ProofResult } from "./types.js";

/** After a submit sent in full broke, a NOT_FOUND is checked once more after this long, ms (the daemon may still be registering it). */
const notFoundRecheckMs = 1_000;

/** The watch of the current job, started from the counters before the submit (a proof that ended since then is progress). */
function currentWatch(call: ProveCall): StuckWatch {
  if (call.watch?.jobId === call.requestId) return call.watch;
  const { clock } = call.options;
  const { baseline } = call;
  call.watch = {
    jobId: call.requestId,
    last: {
      atMs: clock.now(),
      completed: baseline?.completed ?? 0,
      failed: baseline?.failed ?? 0,
      queuePending: 0,
      queueInProgress: 0,
      gpuCurrentJobIds: [],
      jobOnGpu: false,
    },
    lastProgressAtMs: clock.now(),
    started: false,
    samples: 0,
    window: undefined,
    gpuNames: [],
    uptimeSeconds: baseline?.uptimeSeconds ?? 0,
  };
  return call.watch;
}

/** Adds one status sample to the watch; throws DaemonStuckError when the job made no progress for its window. */
function judgeSample(call: ProveCall, w: StuckWatch, status: DaemonStatus): void {
  const stuck = call.options.stuck;
  const atMs = call.options.clock.now();
  const sampleNow = stuckSample(status, call.requestId, call.kind, atMs);
  w.samples += 1;
  w.gpuNames = status.gpus.map((gpu) => gpu.name);
  w.uptimeSeconds = status.uptimeSeconds;
  w.window ??= stuckWindow(stuck, call.kind, w.gpuNames, call.callOptions.warmup === true);
  if (progressBetween(w.last, sampleNow, w.started) !== undefined) w.lastProgressAtMs = atMs;
  if (sampleNow.jobOnGpu) w.started = true;
  w.last = sampleNow;
  const idleMs = atMs - w.lastProgressAtMs;
  if (idleMs < w.window.windowMs) return;
  const { atMs: _at, ...lastStatus } = sampleNow;
  const evidence: StuckEvidence = {
    noProgressForMs: idleMs,
    windowMs: w.window.windowMs,
    etaMs: w.window.etaMs,
    marginFactor: w.window.etaMs === undefined ? undefined : stuck.marginFactor,
    gpuNames: w.gpuNames,
    lastStatus: { ...lastStatus, uptimeSeconds: w.uptimeSeconds },
    samples: w.samples,
  };
  emit(call, { type: "stuck", ...common(call), evidence });
  throw stuckError(call, evidence);
}

/** Samples GetStatus until the job looks stuck (then throws DaemonStuckError) or `signal` ends the watch. */
async function watchForStuck(call: ProveCall, signal: AbortSignal): Promise<never> {
  const { options, deps } = call;
  const stuck = options.stuck;
  const w = currentWatch(call);
  for (;;) {
    // An answer already on its way settles the await before a sample is taken.
    await nextTurn();
    if (signal.aborted) throw signal.reason;
    const pollMs = stuckPollMs(stuck, w.window?.windowMs ?? stuck.afterMs ?? stuck.minMs);
    await options.sleep(pollMs, signal);
    let status: DaemonStatus;
    try {
      const callOptions = {
        signal,
        timeoutMs: Math.max(1, Math.min(options.deadlines.statusMs, remainingMs(call))),
      };
      // Proofs in flight together share answers (GetStatus forks nvidia-smi on the daemon).
      status = await (deps.recentStatus
        ? deps.recentStatus(pollMs / 2, callOptions)
        : deps.status(callOptions));
    } catch (error) {
      // A daemon that stops answering is the open AwaitProof's business (keepalive, recovery).
      if (signal.aborted) throw signal.reason;
      options.logger.debug("cuzk prove: progress sample failed", {
        requestId: call.requestId,
        error: String(error),
      });
      continue;
    }
    if (signal.aborted) throw signal.reason;
    judgeSample(call, w, status);
  }
}

/** AwaitProof on the current job, with the stuck watch beside it (off: the bare call). */
async function awaitWatched(call: ProveCall, timeoutMs: number): Promise<AwaitProofResponse> {
  const { deps, callerSignal, requestId } = call;
  if (!call.options.stuck.enabled) return deps.awaitJob(requestId, { signal: callerSignal, timeoutMs });
  const endWatch = new AbortController();
  const linked = linkSignals(callerSignal, endWatch.signal);
  const awaiting = deps.awaitJob(requestId, { signal: linked.signal, timeoutMs });
  const watching = watchForStuck(call, endWatch.signal);
  try {
    return await Promise.race([awaiting, watching]);
  } finally {
    // Whichever lost is ended and its outcome dropped: a stuck job's AwaitProof is let go.
    endWatch.abort();
    linked.dispose();
    awaiting.catch(() => {});
    watching.catch(() => {});
  }
}

/** The daemon's answer as a result (COMPLETED), or ProofFailedError. */
function finish(call: ProveCall, response: AwaitProofResponse): ProofResult {
  if (response.status !== AwaitProofResponse_Status.COMPLETED) throw proofFailedError(call, response);
  const result: ProofResult = {
    kind: call.kind,
    jobId: call.requestId,
    proof: response.proof,
    timings: {
      queueWaitMs: Number(response.queueWaitMs),
      synthesisMs: Number(response.synthesisMs),
      gpuComputeMs: Number(response.gpuComputeMs),
      totalMs: Number(response.totalMs),
    },
    attempts: call.attempt,
    resubmits: call.resubmits,
    resumes: call.resumes,
    wallMs: call.options.clock.now() - call.startMs,
    response,
  };
  emit(call, {
    type: "completed",
    ...common(call),
    totalMs: result.timings.totalMs,
    proofBytes: response.proof.byteLength,
  });
  return result;
}

/** NOT_FOUND: re-checked once or re-sent after a broken submit the daemon never took, else the job is lost. */
async function onNotFound(call: ProveCall, err: JobNotFoundError): Promise<void> {
  if (call.lastBreak === "submit" && !call.rechecked && remainingMs(call) > notFoundRecheckMs) {
    // The request went out in full just before the break: give the daemon a moment
    // to register it before concluding that it never arrived.
    call.rechecked = true;
    await call.options.sleep(notFoundRecheckMs, call.callerSignal);
    return;
  }
  if (call.lastBreak === "submit" && call.resends < maxNotAcceptedResends) {
    // Same daemon, and it never took the broken submit: send it again under a new id.
    call.resends += 1;
    call.lastBreak = undefined;
    resubmitUnderNewId(call, "not-accepted");
    return;
  }
  onJobLost(call, "not-found", call.uptimeBeforeBreak, call.baseline?.uptimeSeconds, err);
}

/** AwaitProof for the current job: the result, or undefined when the call goes on (resumed, resubmitted). */
export async function awaitStep(call: ProveCall): Promise<ProofResult | undefined> {
  try {
    const response = await awaitWatched(call, Math.max(1, remainingMs(call)));
    return finish(call, response);
  } catch (error) {
    if (error instanceof DaemonStuckError) throw error;
    const err = typed(call, error, "AwaitProof");
    if (err instanceof JobNotFoundError) {
      await onNotFound(call, err);
      return undefined;
    }
    // The caller gave up (abort, AbortSignal.timeout): the job itself runs on.
    if (call.callerSignal?.aborted) throw withJobRunning(err, call.requestId);
    const breakKind = breakKindOf(err);
    if (breakKind === undefined) throw err;
    // AwaitProof runs under the whole remaining budget: its deadline is the proof's.
    if (breakKind === "timeout") throw deadlineError(call, err);
    const decision = await recover(call, err, breakKind);
    if (decision.kind === "restarted") {
      onJobLost(call, decision.evidence, call.uptimeBeforeBreak, decision.status.uptimeSeconds, err);
      return undefined;
    }
    call.lastBreak = "await";
    resumed(call, decision);
    return undefined;
  }
}
