import type { ProofResult, ProveEvent } from "@cuzkit/client";
import { type CuzkitError, toCuzkitError } from "@cuzkit/core";
import { classifyFailure, type FailureClass, type ProofRecord } from "../records.js";
import type { ProofFailure } from "../report.js";
import { emit } from "./phases.js";
import { noteRestart } from "./restarts.js";
import { type RunState, since } from "./state.js";
import { hintFor, StopBenchmark, stopInfo, stopWith } from "./stop.js";

/** Client steps worth showing while a proof recovers. */
const recoverySteps = new Set(["connection-lost", "resumed", "daemon-restarted", "resubmitted", "stuck"]);

/** Proves once through the client (a warmup proof, or timed proof `index` on `slot`), recording the outcome. */
export async function proveOne(run: RunState, index: number, warmup: boolean, slot = 0): Promise<void> {
  const { o } = run;
  run.counts.inFlight++;
  if (!warmup) run.counts.started++;
  const record: ProofRecord = {
    index,
    warmup,
    requestId: undefined,
    attempts: 0,
    submitMs: since(run),
    settleMs: 0,
    outcome: "failed",
  };
  if (!warmup) {
    record.slot = slot;
    if (!run.slotMarks.has(slot)) run.slotMarks.set(slot, record.submitMs);
  }
  emit(run, { type: "proof-started", index, warmup });
  const timeoutMs = warmup ? (o.warmupTimeoutMs ?? run.deadlines.warmup) : o.proofTimeoutMs;
  try {
    const result = await run.client.prove(o.request, {
      warmup,
      resubmit: o.resubmit,
      signal: run.stop.signal,
      timeoutMs,
      onEvent: (event) => {
        record.requestId = event.requestId;
        record.attempts = event.attempt;
        if (event.type === "daemon-restarted") noteRestart(run, event);
        if (event.type === "resumed" || event.type === "completed") run.watchdog?.noteLife();
        if (recoverySteps.has(event.type))
          emit(run, { type: "recovery", index, step: event.type, message: describeEvent(event) });
      },
    });
    run.watchdog?.noteLife();
    record.settleMs = since(run);
    onProofCompleted(run, record, result, slot);
  } catch (caught) {
    run.counts.inFlight--;
    record.settleMs = since(run);
    onProofFailed(run, record, toCuzkitError(caught));
  }
}

/** A proof completed: counted (timed: its cycle feeds the rate and the early verdict), or abandoned after an early verdict. */
function onProofCompleted(run: RunState, record: ProofRecord, result: ProofResult, slot: number): void {
  const { index, warmup } = record;
  const { counts } = run;
  if (!warmup && run.early) {
    // Finished while the early stop cut the batch: left out, so the report's rate stays the
    // one the verdict was decided on.
    record.outcome = "abandoned";
    record.message = "completed after the early verdict decided; not counted";
    run.records.push(record);
    counts.inFlight--;
    emit(run, { type: "proof-failed", index, warmup, code: "BENCHMARK_STOPPED", message: record.message });
    return;
  }
  record.outcome = "completed";
  record.requestId = result.jobId;
  record.attempts = result.attempts;
  record.timings = result.timings;
  run.records.push(record);
  counts.inFlight--;
  if (warmup) counts.warmupCompleted++;
  else {
    counts.consecutiveFailures = 0;
    counts.done++;
    run.results.push(result);
    const cycleMs = record.settleMs - (run.slotMarks.get(slot) ?? record.submitMs);
    run.slotMarks.set(slot, record.settleMs);
    record.cycleMs = cycleMs;
    run.cycles.push({ slot, cycleMs });
    const decision = run.earlyTest?.add(cycleMs, slot);
    if (decision && !run.early && !run.stop.signal.aborted) {
      run.early = decision;
      stopWith(run, new StopBenchmark("the early verdict decided", "early"));
    }
  }
  emit(run, { type: "proof-completed", index, warmup, wallMs: result.wallMs });
}

/** How a failed proof is classified: by its own error, or (cut by the run's stop) by what stopped the run. */
interface FailureReading {
  code: string;
  failureClass: FailureClass;
  message: string;
  hint: string;
  cutByStop: boolean;
  /** Cut by the stop and lost to the death/freeze that stopped it (else abandoned). */
  lost: boolean;
}

function readFailure(run: RunState, error: CuzkitError): FailureReading {
  const stopped = stopInfo(run);
  if (stopped === undefined || error.code !== "ABORTED") {
    const failureClass = classifyFailure(error.code);
    return {
      code: error.code,
      failureClass,
      message: error.message,
      hint: error.hint,
      cutByStop: false,
      lost: false,
    };
  }
  // A proof cut by the run's own stop: lost to the death/freeze that stopped it, or abandoned.
  const lost = stopped.kind === "unstable" || stopped.kind === "failed";
  const code = !lost
    ? "BENCHMARK_STOPPED"
    : stopped.failureClass === "froze"
      ? "DAEMON_FROZEN"
      : stopped.failureClass === "died"
        ? "DAEMON_UNAVAILABLE"
        : stopped.failureClass === "stuck"
          ? "DAEMON_STUCK"
          : "BENCHMARK_STOPPED";
  return {
    code,
    failureClass: lost ? stopped.failureClass : "stopped",
    message: `stopped before completing: ${stopped.message}`,
    hint: stopped.hint || (lost ? hintFor(stopped.failureClass) : error.hint),
    cutByStop: true,
    lost,
  };
}

/** A proof failed: recorded, counted (timed), and the run stopped when the daemon is stuck or too many failed in a row. */
function onProofFailed(run: RunState, record: ProofRecord, error: CuzkitError): void {
  const { index, warmup } = record;
  const reading = readFailure(run, error);
  const { code, failureClass, message, cutByStop } = reading;
  record.outcome = cutByStop && !reading.lost ? "abandoned" : "failed";
  record.code = code;
  record.failureClass = failureClass;
  record.message = message;
  run.records.push(record);
  if (record.outcome === "abandoned") {
    emit(run, { type: "proof-failed", index, warmup, code: "BENCHMARK_STOPPED", message });
    return;
  }
  const failure: ProofFailure = { index, warmup, errorClass: error.name, code, message, hint: reading.hint };
  run.failures.push(failure);
  if (!warmup) {
    run.counts.failed++;
    if (!cutByStop && run.phase.current === "timed")
      run.incidents.push(`proof ${index} failed: ${code}: ${error.message}`);
  }
  emit(run, { type: "proof-failed", index, warmup, code, message });
  if (warmup || cutByStop) return;
  if (code === "DAEMON_STUCK") {
    // No proof of the daemon's ended for the whole window: the others in flight would only
    // wait out theirs (the client never resubmits a stuck job), so the run stops here.
    stopWith(
      run,
      new StopBenchmark(`the daemon is stuck: ${error.message}`, "unstable", "stuck", error.hint),
    );
    return;
  }
  if (++run.counts.consecutiveFailures >= run.o.maxConsecutiveFailures) {
    stopWith(
      run,
      new StopBenchmark(
        `${run.counts.consecutiveFailures} timed proofs in a row failed (last: ${code})`,
        "unstable",
        failureClass,
      ),
    );
  }
}

function describeEvent(event: ProveEvent): string {
  switch (event.type) {
    case "connection-lost":
      return `${event.error.code} while ${event.phase === "submit" ? "submitting" : "awaiting"}`;
    case "resumed":
      return `re-attached to job ${event.requestId} (daemon up ${event.uptimeSeconds} s)`;
    case "daemon-restarted":
      return `the daemon restarted (evidence: ${event.evidence}); the job is lost`;
    case "resubmitted":
      return `resubmitted as ${event.requestId} (${event.reason})`;
    case "stuck":
      return `no progress for ${Math.round(event.evidence.noProgressForMs / 1000)} s (window ${Math.round(event.evidence.windowMs / 1000)} s): DAEMON_STUCK`;
    default:
      return event.type;
  }
}
