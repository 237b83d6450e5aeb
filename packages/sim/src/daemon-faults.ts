import { performance } from "node:perf_hooks";
import { setImmediate as nextTurn } from "node:timers/promises";
import { formatBytes } from "@cuzkit/core";
import { endRun, type Run } from "./daemon-run.js";
import { addressOf, type DaemonState } from "./daemon-state.js";
import type { FinishedProof } from "./engine.js";
import type { OomDetail } from "./pipeline.js";
import type { SimCrashDetail, SimCrashReason } from "./sim-daemon-types.js";

// How the simulated daemon dies or hangs: a crash (oom, killed or scheduled) ends the run and
// tells the crash listeners; a stall answers nothing until unstall; the scheduled faults
// (crashAfterProofs, stallAfterProofs) fire once the answers already given have left.

// A scheduled crash or stall first lets the answers already given leave: it waits until the
// connections have ended as many HTTP/2 streams as the handlers answered, at most flushLimitMs.
const flushLimitMs = 250;

const gib = (bytes: number) => formatBytes(bytes, 1);

/** Dies at once unless `run` has ended or is no longer the current one. */
export function crashNow(d: DaemonState, run: Run, reason: SimCrashReason, oom?: OomDetail): void {
  if (run.ended || d.current !== run) return;
  const { usableRamBytes } = d.resolved.hardware;
  const memory = oom?.memoryInUseBytes ?? d.memoryNow;
  const detail: SimCrashDetail = {
    reason,
    message:
      reason === "oom"
        ? `oom-kill: modelled memory ${gib(memory)} exceeds ${gib(usableRamBytes)}`
        : reason === "scheduled"
          ? "crash: scheduled fault"
          : "crash: killed",
    memoryInUseBytes: memory,
    usableRamBytes,
  };
  endRun(run);
  d.state = "crashed";
  d.totals.crashes++;
  if (reason === "oom") d.totals.oomKills++;
  d.lastCrash = detail;
  d.memoryNow = 0;
  d.resolved.logger.error(detail.message, { address: addressOf(d) });
  for (const listener of [...d.crashListeners]) listener(reason, detail);
}

/** Runs `action` once the answers already given have left (the last proof is delivered before a scheduled fault). */
function afterFlush(d: DaemonState, run: Run, action: () => void): void {
  void (async () => {
    await nextTurn();
    await nextTurn();
    // By now every waiter of the finished proof has handed its answer to grpc-js.
    const answered = run.answers;
    const deadline = performance.now() + flushLimitMs;
    const busy = () => run.streamsEnded < answered || [...run.gates].some((gate) => gate.writePending());
    while (!run.ended && performance.now() < deadline && busy()) {
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(limit);
          run.flushWaiters.delete(wake);
          resolve();
        };
        const limit = setTimeout(wake, deadline - performance.now());
        run.flushWaiters.add(wake);
      });
    }
    if (!run.ended && d.current === run) action();
  })();
}

/** Counts a finished proof and fires the faults scheduled after that many proofs. */
export function onProofFinished(d: DaemonState, run: Run, proof: FinishedProof): void {
  if (proof.status === "completed") d.totals.completed++;
  else d.totals.failed++;
  run.proofsFinished++;
  d.resolved.logger.debug("proof finished", { jobId: proof.jobId, kind: proof.kind, status: proof.status });
  if (run.faults.crashAfterProofs === run.proofsFinished)
    afterFlush(d, run, () => crashNow(d, run, "scheduled"));
  if (run.faults.stallAfterProofs === run.proofsFinished) afterFlush(d, run, () => stallDaemon(d));
}

/** Answers nothing on every connection, current and new, and on /status, until unstallDaemon. */
export function stallDaemon(d: DaemonState): void {
  if (d.state !== "running") return;
  d.state = "stalled";
  for (const gate of d.current.gates) gate.stall();
  d.current.status?.stall();
  d.resolved.logger.warn("stalled: answering nothing", { address: addressOf(d) });
}

/** Answers again on every connection and on /status. */
export function unstallDaemon(d: DaemonState): void {
  if (d.state !== "stalled") return;
  d.state = "running";
  for (const gate of d.current.gates) gate.unstall();
  d.current.status?.unstall();
  d.resolved.logger.info("unstalled", { address: addressOf(d) });
}
