import type { CuzkitError } from "@cuzkit/core";
import { type AwaitProofResponse, AwaitProofResponse_Status } from "@cuzkit/proto";
import {
  awaitJobHint,
  DaemonFrozenError,
  DaemonRestartedError,
  DaemonStuckError,
  DaemonUnavailableError,
  DeadlineExceededError,
  oomHint,
  ProofFailedError,
  type StuckEvidence,
  stuckHint,
  unreachableHint,
} from "../errors.js";
import { uploadPhrase } from "../outcome.js";
import { jobPhrase, mayBeRunning, type ProveCall } from "./state.js";

// The typed errors a prove call ends with, each saying what is known about the job.

/** The call's budget ran out. */
export function deadlineError(call: ProveCall, cause?: unknown): DeadlineExceededError {
  const { requestId, budgetMs, callOptions } = call;
  const running = mayBeRunning(call);
  return new DeadlineExceededError(
    `${call.label} proof ${requestId} did not finish within ${budgetMs} ms` +
      (callOptions.warmup ? " (warmup deadline)" : ""),
    {
      rpc: "AwaitProof",
      jobId: requestId,
      address: call.deps.address,
      cause,
      timeoutMs: budgetMs,
      retryable: !running,
      hint: running
        ? `${awaitJobHint(requestId)}; or raise the deadline` +
          (callOptions.warmup
            ? ""
            : " (pass warmup: true for a first proof, which needs far longer without caches)")
        : "raise the deadline (timeoutMs); nothing is running on the daemon",
    },
  );
}

/** The daemon stopped answering: DaemonFrozenError, with what is known about the job. */
export function frozenError(
  call: ProveCall,
  breakError: CuzkitError,
  lastError: CuzkitError | undefined,
  silentForMs: number,
): DaemonFrozenError {
  const { requestId } = call;
  const running = mayBeRunning(call);
  return new DaemonFrozenError(
    `the daemon stopped answering during ${call.label} proof ${requestId} (${breakError.message}; ` +
      `no answer to a status probe either, ${Math.round(silentForMs)} ms after the break); ${jobPhrase(call)}`,
    {
      rpc: "GetStatus",
      jobId: requestId,
      address: call.deps.address,
      cause: lastError ?? breakError,
      retryable: !running,
      hint:
        "the daemon's port accepts connections but nothing answers: it is stopped (SIGSTOP), swapping, stuck in a " +
        "GPU driver call, or the network drops packets; check `top`/`vmstat`/`nvidia-smi` on the host and the " +
        `daemon's log` +
        (running
          ? `; if it recovers, ${awaitJobHint(requestId)}`
          : "; nothing was accepted, so resubmitting is safe"),
    },
  );
}

/** Refused or reset for the whole window: DaemonUnavailableError, claiming no more than that. */
export function unreachableError(
  call: ProveCall,
  lastError: CuzkitError | undefined,
  forMs: number,
): DaemonUnavailableError {
  const { requestId } = call;
  const running = mayBeRunning(call);
  return new DaemonUnavailableError(
    `the daemon did not answer for ${Math.round(forMs)} ms after the connection broke during ${call.label} proof ` +
      `${requestId}${lastError ? ` (last: ${lastError.message})` : ""}; ` +
      (running ? "whether the job still runs is unknown" : uploadPhrase(call.upload, call.sizeBytes)),
    {
      rpc: "GetStatus",
      jobId: requestId,
      address: call.deps.address,
      cause: lastError,
      retryable: !running,
      hint:
        `${unreachableHint}` +
        (running
          ? `; if it answers again, awaitProof("${requestId}") tells whether the job survived (NOT_FOUND: it did not)`
          : ""),
    },
  );
}

/** The job made no progress for its window: DaemonStuckError with the evidence (never resubmitted). */
export function stuckError(call: ProveCall, evidence: StuckEvidence): DaemonStuckError {
  const { label, requestId } = call;
  const seconds = (ms: number) => `${ms < 10_000 ? (ms / 1000).toFixed(1) : Math.round(ms / 1000)} s`;
  const st = evidence.lastStatus;
  const why =
    evidence.etaMs === undefined
      ? `the fixed window stuck.afterMs`
      : `the model's ETA ${seconds(evidence.etaMs)} x margin ${evidence.marginFactor}` +
        (evidence.windowMs > evidence.etaMs * (evidence.marginFactor ?? 1)
          ? ", raised to the floor stuck.minMs"
          : "");
  return new DaemonStuckError(
    `${label} proof ${requestId} made no progress for ${seconds(evidence.noProgressForMs)} ` +
      `(window ${seconds(evidence.windowMs)}: ${why}); the daemon still answers GetStatus (up ${st.uptimeSeconds} s, ` +
      `${st.completed} completed, ${st.failed} failed, ${label} queue ${st.queuePending} pending/${st.queueInProgress} ` +
      `in progress, GPU current jobs: ${st.gpuCurrentJobIds.length === 0 ? "none" : st.gpuCurrentJobIds.join(", ")}` +
      `${st.jobOnGpu ? ", this job among them" : ""}) but nothing moved`,
    {
      rpc: "AwaitProof",
      jobId: requestId,
      address: call.deps.address,
      evidence,
      hint: `${stuckHint}; ${awaitJobHint(requestId)}`,
    },
  );
}

/** The daemon restarted and the job is lost, with no resubmit left: DaemonRestartedError. */
export function restartedError(
  call: ProveCall,
  evidence: "uptime" | "counters" | "not-found",
  uptimeBefore: number | undefined,
  uptimeAfter: number | undefined,
  cause: unknown,
): DaemonRestartedError {
  const { maxResubmits, phase, requestId } = call;
  const why =
    evidence === "uptime"
      ? `its uptime went back from ${uptimeBefore} s to ${uptimeAfter} s`
      : evidence === "counters"
        ? "its completed/failed counters went back"
        : "it answers but no longer knows the job (NOT_FOUND)";
  const lostWhat = phase === "await" ? "the job is lost" : "the job, if it had been accepted, is lost";
  return new DaemonRestartedError(
    `the daemon restarted during ${call.label} proof ${requestId} (${why}); ${lostWhat}` +
      (maxResubmits === 0
        ? " and resubmitting is off for this call"
        : ` after ${call.resubmits} resubmit(s)`),
    {
      rpc: phase === "submit" ? "SubmitProof" : "AwaitProof",
      jobId: requestId,
      address: call.deps.address,
      cause,
      hint: `${oomHint}; resubmit the proof${maxResubmits === 0 ? " (prove(request, { resubmit: true }))" : ""}`,
    },
  );
}

/** The daemon answered AwaitProof with anything but COMPLETED: ProofFailedError with its message. */
export function proofFailedError(call: ProveCall, response: AwaitProofResponse): ProofFailedError {
  const message =
    response.status === AwaitProofResponse_Status.FAILED
      ? response.errorMessage
      : `the daemon returned status ${AwaitProofResponse_Status[response.status] ?? response.status}${
          response.errorMessage ? `: ${response.errorMessage}` : ""
        }`;
  return new ProofFailedError(`the daemon failed the proof ${call.requestId}: ${message || "(no message)"}`, {
    daemonMessage: message,
    rpc: "AwaitProof",
    jobId: call.requestId,
    address: call.deps.address,
  });
}
