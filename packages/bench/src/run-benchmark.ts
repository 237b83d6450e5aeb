import { setMaxListeners } from "node:events";
import { createCuzkClient, type ProofResult, type ProveEvent } from "@cuzkit/client";
import { CuzkitError, toCuzkitError } from "@cuzkit/core";
import { type BenchmarkOptions, resolveBenchmarkOptions } from "./options.js";
import type { BenchmarkEvent, ProgressSnapshot } from "./progress.js";
import { type BenchmarkReport, decideVerdict, type ProofFailure } from "./report.js";
import { proofsPerHour, summarizeDurations } from "./stats.js";

/** Codes that mean the daemon could not be reached at all (as opposed to one proof failing). */
const unreachableCodes = new Set(["DAEMON_UNAVAILABLE", "CONNECTION_LOST"]);
/** Client steps worth showing while a proof recovers. */
const recoverySteps = new Set(["connection-lost", "resumed", "daemon-restarted", "resubmitted"]);

/** Thrown inside the run to end it early with a verdict of "failed". */
class StopBenchmark extends Error {}

/**
 * Runs a benchmark against a cuzk daemon: an optional warmup (untimed, with the long warmup
 * deadline), then `count` timed proofs with `concurrency` in flight, through @cuzkit/client, so a
 * broken connection is resumed or classified rather than ending the run. Always resolves with a
 * report and a verdict; it rejects only for bad options (before any daemon work).
 */
export async function runBenchmark(options: BenchmarkOptions): Promise<BenchmarkReport> {
  const o = resolveBenchmarkOptions(options);
  const { clock, logger } = o;
  const startedAt = new Date();
  const inputBytes = (o.request as { vanillaProof?: Uint8Array }).vanillaProof?.byteLength ?? 0;
  const stop = new AbortController();
  // Every proof in flight listens on this signal.
  setMaxListeners(0, stop.signal);
  const onCallerAbort = () => stop.abort(new StopBenchmark("aborted by the caller"));
  o.signal?.addEventListener("abort", onCallerAbort, { once: true });
  if (o.signal?.aborted) onCallerAbort();

  const failures: ProofFailure[] = [];
  const results: ProofResult[] = [];
  let done = 0;
  let failed = 0;
  let inFlight = 0;
  let consecutiveUnreachable = 0;
  let windowStartMs: number | undefined;
  let windowEndMs: number | undefined;
  let warmupCompleted = 0;
  let warmupDurationMs = 0;
  let restartsSeenByClient = 0;
  let lastDaemonStartMs: number | undefined;
  const sup = o.supervision;
  let restartsUsed = 0;

  const snapshot = (): ProgressSnapshot => {
    const elapsed = windowStartMs === undefined ? 0 : clock.now() - windowStartMs;
    const rate = proofsPerHour(done, elapsed);
    const remaining = o.count - done - failed;
    return {
      total: o.count,
      done,
      failed,
      inFlight,
      ratePerHour: rate,
      etaMs: rate > 0 ? (remaining / rate) * 3_600_000 : undefined,
    };
  };
  const emit = (event: BenchmarkEvent) => o.onProgress?.(event, snapshot());
  const stopWith = (reason: string) => {
    if (!stop.signal.aborted) stop.abort(new StopBenchmark(reason));
  };

  const noteRestart = (event: Extract<ProveEvent, { type: "daemon-restarted" }>) => {
    // Several proofs in flight see the same restart: count it once, by the daemon's start time.
    const startMs =
      event.uptimeAfterSeconds === undefined ? clock.now() : clock.now() - event.uptimeAfterSeconds * 1000;
    if (lastDaemonStartMs === undefined || startMs > lastDaemonStartMs + 2_000) {
      restartsSeenByClient++;
      lastDaemonStartMs = startMs;
    }
  };

  const client = createCuzkClient({
    ...o.client,
    address: o.address,
    maxInFlight: o.concurrency,
    logger,
    ...(options.clock ? { clock: options.clock } : {}),
  });

  async function proveOne(index: number, warmup: boolean): Promise<void> {
    inFlight++;
    emit({ type: "proof-started", index, warmup });
    const timeoutMs = warmup ? o.warmupTimeoutMs : o.proofTimeoutMs;
    try {
      const result = await client.prove(o.request, {
        warmup,
        resubmit: o.resubmit,
        signal: stop.signal,
        ...(timeoutMs === undefined ? {} : { timeoutMs }),
        onEvent: (event) => {
          if (event.type === "daemon-restarted") noteRestart(event);
          if (recoverySteps.has(event.type))
            emit({ type: "recovery", index, step: event.type, message: describeEvent(event) });
        },
      });
      consecutiveUnreachable = 0;
      if (warmup) warmupCompleted++;
      else {
        done++;
        results.push(result);
        windowEndMs = clock.now();
      }
      inFlight--;
      emit({ type: "proof-completed", index, warmup, wallMs: result.wallMs });
    } catch (caught) {
      inFlight--;
      const stopped = stop.signal.aborted && stop.signal.reason instanceof StopBenchmark;
      const error = toCuzkitError(caught);
      const failure: ProofFailure = {
        index,
        warmup,
        errorClass: error.name,
        code: stopped && error.code === "ABORTED" ? "BENCHMARK_STOPPED" : error.code,
        message:
          stopped && error.code === "ABORTED"
            ? `stopped before completing: ${(stop.signal.reason as Error).message}`
            : error.message,
        hint: error.hint,
      };
      failures.push(failure);
      if (!warmup) failed++;
      emit({ type: "proof-failed", index, warmup, code: failure.code, message: failure.message });
      if (unreachableCodes.has(error.code) && ++consecutiveUnreachable >= o.maxConsecutiveUnavailable) {
        stopWith(
          `the daemon is unreachable: ${consecutiveUnreachable} proofs in a row failed with ${error.code}`,
        );
      }
    }
  }

  const unsubscribe = sup?.supervisor.onCrash((exit) => {
    emit({ type: "daemon-exit", message: exit.explanation });
    if (
      (sup.onCrash ?? "stop") === "restart" &&
      restartsUsed < (sup.maxRestarts ?? 2) &&
      !stop.signal.aborted
    ) {
      restartsUsed++;
      emit({
        type: "phase",
        phase: "restarting-daemon",
        message: `restarting the daemon (${restartsUsed} of ${sup.maxRestarts ?? 2})`,
      });
      sup.supervisor.start(sup.configToml, `restart-${restartsUsed}`).catch((error: unknown) => {
        stopWith(`the daemon could not be restarted: ${toCuzkitError(error).message}`);
      });
    } else {
      stopWith(`the daemon died: ${exit.explanation}`);
    }
  });

  let stopReason: string | undefined;
  try {
    const twoConfigs = sup?.warmupConfigToml !== undefined && o.warmupProofs > 0;
    if (sup) {
      emit({
        type: "phase",
        phase: "starting-daemon",
        message: `starting the daemon${twoConfigs ? " with the warmup config" : ""}`,
      });
      await sup.supervisor.start(
        twoConfigs ? (sup.warmupConfigToml as string) : sup.configToml,
        twoConfigs ? "warmup" : "full",
      );
    }
    throwIfStopped(stop.signal);
    emit({
      type: "phase",
      phase: "waiting-for-daemon",
      message: `waiting for the daemon at ${client.address} to answer (up to ${(o.readyTimeoutMs / 60_000).toFixed(1)} min: it may be loading parameters)`,
    });
    const status = await client.waitForReady({ timeoutMs: o.readyTimeoutMs, signal: stop.signal });
    lastDaemonStartMs = clock.now() - status.uptimeSeconds * 1000;

    if (o.warmupProofs > 0) {
      emit({
        type: "phase",
        phase: "warmup",
        message: `warmup: ${o.warmupProofs} untimed proof(s) with the warmup deadline`,
      });
      const warmupStart = clock.now();
      for (let i = 0; i < o.warmupProofs && !stop.signal.aborted; i++) await proveOne(0, true);
      warmupDurationMs = clock.now() - warmupStart;
      throwIfStopped(stop.signal);
    }
    if (sup && twoConfigs) {
      emit({
        type: "phase",
        phase: "restarting-daemon",
        message: "restarting the daemon with the full config (the PCE cache now exists)",
      });
      await sup.supervisor.stop();
      await sup.supervisor.start(sup.configToml, "full");
      const restarted = await client.waitForReady({ timeoutMs: o.readyTimeoutMs, signal: stop.signal });
      lastDaemonStartMs = clock.now() - restarted.uptimeSeconds * 1000;
    }

    emit({
      type: "phase",
      phase: "timed",
      message: `timed batch: ${o.count} proofs, ${o.concurrency} in flight`,
    });
    windowStartMs = clock.now();
    let next = 1;
    const worker = async () => {
      while (!stop.signal.aborted && next <= o.count) await proveOne(next++, false);
    };
    await Promise.all(Array.from({ length: o.concurrency }, worker));
    throwIfStopped(stop.signal);
  } catch (caught) {
    stopReason =
      stop.signal.aborted && stop.signal.reason instanceof StopBenchmark
        ? stop.signal.reason.message
        : CuzkitError.is(caught)
          ? `${caught.message}${caught.hint ? ` (${caught.hint})` : ""}`
          : String(caught);
    logger.error("benchmark stopped", { reason: stopReason });
  } finally {
    unsubscribe?.();
    o.signal?.removeEventListener("abort", onCallerAbort);
    await client.close();
    if (sup) await sup.supervisor.stop();
  }

  const timedWindowMs =
    windowStartMs !== undefined && windowEndMs !== undefined ? windowEndMs - windowStartMs : 0;
  const rate = proofsPerHour(done, timedWindowMs);
  // Timed proofs never attempted (the run stopped early) count as failed.
  const notAttempted = o.count - done - failed;
  const report: BenchmarkReport = {
    schema: "cuzkit.bench.report/v1",
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    address: client.address,
    kind: o.kind,
    count: o.count,
    concurrency: o.concurrency,
    warmup: { proofs: o.warmupProofs, completed: warmupCompleted, durationMs: warmupDurationMs },
    completed: done,
    failed: failed + notAttempted,
    proofsPerHour: rate,
    timedWindowMs,
    wallTime: summarizeDurations(results.map((r) => r.wallMs)),
    daemonTimings: {
      queueWait: summarizeDurations(results.map((r) => r.timings.queueWaitMs)),
      synthesisSum: summarizeDurations(results.map((r) => r.timings.synthesisMs)),
      gpuComputeSum: summarizeDurations(results.map((r) => r.timings.gpuComputeMs)),
      total: summarizeDurations(results.map((r) => r.timings.totalMs)),
      note: "synthesis and GPU times are the daemon's sums over a proof's partitions, which run in parallel: they can exceed wall time",
    },
    failures,
    daemonRestarts: Math.max(restartsSeenByClient, sup?.supervisor.crashes.length ?? 0),
    daemonExits: [...(sup?.supervisor.crashes ?? [])],
    inputBytes,
    verdict: decideVerdict(done, rate, o.minProofsPerHour, stopReason),
  };
  emit({ type: "phase", phase: "done", message: `done: ${report.verdict.status}` });
  return report;
}

function throwIfStopped(signal: AbortSignal): void {
  if (signal.aborted) throw signal.reason;
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
    default:
      return event.type;
  }
}
