import type { TimedPhase } from "../phase-deadlines.js";
import type { BenchmarkEvent, ProgressSnapshot } from "../progress.js";
import { basisProofsPerHour, rateBasis } from "../proof-rate.js";
import type { BenchmarkReport, PhaseRecord } from "../report.js";
import { proofsPerHour } from "../stats.js";
import type { BenchPhase, BenchStatusFile } from "../status-file.js";
import { crashCount, type RunState, since } from "./state.js";
import { StopBenchmark, stopWith } from "./stop.js";

/** The counts and rate shown with every progress event. */
export function snapshot(run: RunState): ProgressSnapshot {
  const { o, counts, phase } = run;
  const first = run.records.find((r) => !r.warmup)?.submitMs;
  const elapsed = first === undefined ? 0 : since(run) - first;
  const rate = proofsPerHour(counts.done, elapsed);
  const remaining = o.count - counts.done - counts.failed;
  return {
    total: o.count,
    done: counts.done,
    failed: counts.failed,
    inFlight: counts.inFlight,
    concurrency: o.concurrency,
    ratePerHour: rate,
    etaMs: rate > 0 ? (remaining / rate) * 3_600_000 : undefined,
    phase: phase.current,
    phaseElapsedMs: since(run) - phase.startMs,
  };
}

/** Writes the status file (when asked for one) with the run's phase and counts, and `verdict` at the end. */
export function writeStatus(run: RunState, verdict: BenchmarkReport["verdict"] | null = null): Promise<void> {
  if (!run.statusWriter) return Promise.resolve();
  const { o, counts, phase, etas } = run;
  const current = phase.current;
  const deadline = current === "done" ? undefined : run.deadlines[current];
  const wallStart = run.startedAt.getTime();
  const status: BenchStatusFile = {
    schema: "cuzkit.bench.status/v1",
    pid: process.pid,
    runStartedAt: run.startedAt.toISOString(),
    updatedAt: new Date().toISOString(),
    phase: current,
    phaseStartedAt: new Date(wallStart + phase.startMs).toISOString(),
    phaseEtaMs: current === "done" ? null : (etas[current] ?? null),
    phaseDeadlineAt:
      deadline === undefined ? null : new Date(wallStart + phase.startMs + deadline).toISOString(),
    results: {
      total: o.count,
      completed: counts.done,
      failed: counts.failed,
      inFlight: counts.inFlight,
      proofsPerHour: basisProofsPerHour(rateBasis(run.cycles)),
      restarts: run.restarts.used + run.restarts.seenByClient,
      crashes: crashCount(run),
    },
    verdict,
  };
  return run.statusWriter.write(status);
}

/** Tells the caller (and the status file, for proofs and heartbeats). */
export function emit(run: RunState, event: BenchmarkEvent): void {
  run.o.onProgress?.(event, snapshot(run));
  if (event.type === "proof-completed" || event.type === "proof-failed" || event.type === "heartbeat")
    void writeStatus(run);
}

/** A phase ran past its deadline: the timed batch is unstable, an earlier phase could not benchmark. */
function onPhaseDeadline(run: RunState, which: TimedPhase, deadlineMs: number): void {
  const text = `the ${which} phase ran past its deadline (${(deadlineMs / 1000).toFixed(0)} s${run.etas[which] === undefined ? "" : `, the model's ETA x margin`})`;
  if (which === "waiting-for-pce") return; // handled by the wait itself: restart anyway
  if (which === "timed") {
    run.incidents.push(text);
    stopWith(run, new StopBenchmark(text, "unstable", "deadline"));
  } else stopWith(run, new StopBenchmark(text, "failed", "deadline"));
}

/** Records the phase that ends, with its ETA and deadline. */
function phaseRecord(run: RunState, now: number): PhaseRecord {
  const { current, startMs } = run.phase;
  const record: PhaseRecord = { phase: current, startMs, endMs: now };
  if (current !== "done") {
    const eta = run.etas[current];
    const deadline = run.deadlines[current];
    if (eta !== undefined) record.etaMs = eta;
    if (deadline !== undefined) record.deadlineMs = deadline;
  }
  return record;
}

/** Ends the current phase (recording it) and starts `next`, with its deadline watch. */
export function enterPhase(run: RunState, next: BenchPhase, message: string): void {
  const { phase } = run;
  // "done" starts when the work ended, not after the teardown (closing the client, stopping the daemon).
  const now = next === "done" && phase.workEndMs !== undefined ? phase.workEndMs : since(run);
  phase.deadline?.abort();
  phase.deadline = undefined;
  const previous = { phase: phase.current, elapsedMs: now - phase.startMs };
  const record = phaseRecord(run, now);
  if (phase.entered) run.phases.push(record);
  phase.entered = true;
  phase.current = next;
  phase.startMs = now;
  const eta = next === "done" ? undefined : run.etas[next];
  const deadline = next === "done" ? undefined : run.deadlines[next];
  if (deadline !== undefined && next !== "done") {
    const wait = new AbortController();
    phase.deadline = wait;
    run.o.sleep(deadline, wait.signal).then(
      () => onPhaseDeadline(run, next, deadline),
      () => {}, // the phase ended first
    );
  }
  emit(run, {
    type: "phase",
    phase: next,
    message,
    etaMs: eta,
    deadlineMs: deadline,
    previous: run.phases.length > 0 ? previous : undefined,
  });
  void writeStatus(run);
}

/** Emits a heartbeat every `heartbeatMs` until the returned function is called. */
export function startHeartbeat(run: RunState): () => void {
  const heartbeat = setInterval(() => {
    const { current, startMs } = run.phase;
    const eta = current === "done" ? undefined : run.etas[current];
    const deadline = current === "done" ? undefined : run.deadlines[current];
    emit(run, {
      type: "heartbeat",
      phase: current,
      elapsedMs: since(run) - startMs,
      etaMs: eta,
      deadlineMs: deadline,
    });
  }, run.o.heartbeatMs);
  heartbeat.unref();
  return () => clearInterval(heartbeat);
}
