import { setMaxListeners } from "node:events";
import { readdir } from "node:fs/promises";
import {
  createCuzkClient,
  defaultDeadlines,
  oomHint,
  type ProofResult,
  type ProveEvent,
} from "@cuzkit/client";
import { CuzkitError, linkSignals, toCuzkitError } from "@cuzkit/core";
import { createEarlyVerdictTest, type EarlyDecision, type EarlyVerdictTest } from "./early-verdict.js";
import { type BenchmarkOptions, benchDefaults, resolveBenchmarkOptions } from "./options.js";
import { modelPhaseEtas, type PhaseEtas, phaseDeadlines, type TimedPhase } from "./phase-deadlines.js";
import type { BenchmarkEvent, ProgressSnapshot } from "./progress.js";
import { basisProofsPerHour, type ProofCycle, rateBasis } from "./proof-rate.js";
import { classifyFailure, type FailureClass, type ProofRecord } from "./records.js";
import type { BenchmarkReport, PhaseRecord, ProofFailure } from "./report.js";
import { proofsPerHour, summarizeDurations } from "./stats.js";
import { type BenchPhase, type BenchStatusFile, createStatusFileWriter } from "./status-file.js";
import { type DaemonExit, DaemonStartError } from "./supervisor.js";
import { decideVerdict } from "./verdict.js";
import { startWatchdog, type Unresponsive } from "./watchdog.js";

/** Client steps worth showing while a proof recovers. */
const recoverySteps = new Set(["connection-lost", "resumed", "daemon-restarted", "resubmitted", "stuck"]);

/**
 * How the run ends early: `unstable` (the daemon died, froze or kept failing during the batch),
 * `failed` (could not benchmark), `early` (the sequential test decided), `interrupted` (a signal
 * or the caller).
 */
type StopKind = "unstable" | "failed" | "early" | "interrupted";

/** Thrown inside the run to end it early. */
class StopBenchmark extends Error {
  constructor(
    message: string,
    readonly kind: StopKind,
    readonly failureClass: FailureClass = "stopped",
    readonly hint = "",
  ) {
    super(message);
  }
}

/** The fallback deadlines when the model gives no ETA, in ms. */
function fallbackDeadlines(
  readyTimeoutMs: number,
  warmupTimeoutMs: number | undefined,
  pceTimeoutMs: number | undefined,
): PhaseEtas {
  return {
    "starting-daemon": readyTimeoutMs,
    "waiting-for-daemon": readyTimeoutMs,
    warmup: warmupTimeoutMs ?? defaultDeadlines.warmupProofMs,
    "waiting-for-pce": pceTimeoutMs ?? benchDefaults.pceWaitMs,
    "restarting-daemon": readyTimeoutMs,
  };
}

/**
 * Runs a benchmark against a cuzk daemon: an optional warmup (untimed, with the long warmup
 * deadline), then `count` timed proofs with `concurrency` in flight, through @cuzkit/client, so a
 * broken connection is resumed or classified rather than ending the run. A watchdog of its own
 * (GetStatus probes) ends or restarts the run when the daemon dies or freezes. Always resolves
 * with a report and a verdict (MET, BELOW, UNSTABLE, FAILED); it rejects only for bad options
 * (before any daemon work).
 */
export async function runBenchmark(options: BenchmarkOptions): Promise<BenchmarkReport> {
  const o = resolveBenchmarkOptions(options);
  const { clock, logger } = o;
  const startedAt = new Date();
  const runStartMs = clock.now();
  const since = () => clock.now() - runStartMs;
  const inputBytes = (o.request as { vanillaProof?: Uint8Array }).vanillaProof?.byteLength ?? 0;
  const sup = o.supervision;
  const twoConfigs = sup?.warmupConfigToml !== undefined && o.warmupProofs > 0;

  const etas = o.model
    ? modelPhaseEtas({
        ...o.model,
        kind: o.kind,
        count: o.count,
        concurrency: o.concurrency,
        warmupProofs: o.warmupProofs,
      })
    : {};
  const deadlines = phaseDeadlines(
    etas,
    fallbackDeadlines(o.readyTimeoutMs, o.warmupTimeoutMs, sup?.pceWait?.timeoutMs),
    o.phaseDeadlines,
  );

  const stop = new AbortController();
  // Every proof in flight listens on this signal.
  setMaxListeners(0, stop.signal);
  const stopWith = (reason: StopBenchmark) => {
    if (!stop.signal.aborted) stop.abort(reason);
  };
  const stopInfo = (): StopBenchmark | undefined =>
    stop.signal.aborted && stop.signal.reason instanceof StopBenchmark ? stop.signal.reason : undefined;
  const onCallerAbort = () => {
    const reason = o.signal?.reason;
    stopWith(
      new StopBenchmark(
        reason instanceof Error && reason.name !== "AbortError" ? reason.message : "aborted by the caller",
        "interrupted",
      ),
    );
  };
  o.signal?.addEventListener("abort", onCallerAbort, { once: true });
  if (o.signal?.aborted) onCallerAbort();

  const failures: ProofFailure[] = [];
  const records: ProofRecord[] = [];
  const results: ProofResult[] = [];
  const incidents: string[] = [];
  const notes: string[] = [];
  const phases: PhaseRecord[] = [];
  let done = 0;
  let failed = 0;
  let inFlight = 0;
  let started = 0;
  let consecutiveFailures = 0;
  let warmupCompleted = 0;
  let warmupDurationMs = 0;
  let restartsSeenByClient = 0;
  let unsupervisedDeaths = 0;
  let lastDaemonStartMs: number | undefined;
  let restartCounted = false;
  let restartsUsed = 0;
  let restarting: Promise<void> | undefined;
  /** Ends a restart's readiness wait when the run is over: the batch can finish on the new daemon first. */
  const teardown = new AbortController();
  let early: EarlyDecision | undefined;
  const earlyTest: EarlyVerdictTest | undefined =
    o.earlyVerdict && o.minProofsPerHour !== undefined
      ? createEarlyVerdictTest(o.minProofsPerHour, o.concurrency, {
          ...o.earlyVerdict,
          maxSamples: o.earlyVerdict.maxSamples ?? o.count,
        })
      : undefined;
  /** Completed timed proofs' cycles in completion order: what the report's rate and the early verdict both rest on. */
  const cycles: ProofCycle[] = [];
  /** Per slot: its last timed completion, or its first timed submit before that. */
  const slotMarks = new Map<number, number>();

  let phase: BenchPhase = sup ? "starting-daemon" : "waiting-for-daemon";
  let phaseStartMs = since();
  /** Aborts the current phase's deadline wait. */
  let phaseDeadline: AbortController | undefined;
  let phaseEntered = false;
  let workEndMs: number | undefined;

  const timedRecords = () => records.filter((r) => !r.warmup && r.outcome !== "abandoned");
  const windowMs = () => {
    const timed = timedRecords();
    if (timed.length === 0) return 0;
    return Math.max(...timed.map((r) => r.settleMs)) - Math.min(...timed.map((r) => r.submitMs));
  };
  const firstTimedSubmit = () => records.find((r) => !r.warmup)?.submitMs;

  const snapshot = (): ProgressSnapshot => {
    const first = firstTimedSubmit();
    const elapsed = first === undefined ? 0 : since() - first;
    const rate = proofsPerHour(done, elapsed);
    const remaining = o.count - done - failed;
    return {
      total: o.count,
      done,
      failed,
      inFlight,
      concurrency: o.concurrency,
      ratePerHour: rate,
      etaMs: rate > 0 ? (remaining / rate) * 3_600_000 : undefined,
      phase,
      phaseElapsedMs: since() - phaseStartMs,
    };
  };
  const statusWriter = o.statusFile === undefined ? undefined : createStatusFileWriter(o.statusFile);
  const crashCount = () => (sup ? sup.supervisor.crashes.length : unsupervisedDeaths);
  const writeStatus = (verdict: BenchmarkReport["verdict"] | null = null) => {
    if (!statusWriter) return Promise.resolve();
    const deadline = phase === "done" ? undefined : deadlines[phase];
    const wallStart = startedAt.getTime();
    const status: BenchStatusFile = {
      schema: "cuzkit.bench.status/v1",
      pid: process.pid,
      runStartedAt: startedAt.toISOString(),
      updatedAt: new Date().toISOString(),
      phase,
      phaseStartedAt: new Date(wallStart + phaseStartMs).toISOString(),
      phaseEtaMs: phase === "done" ? null : (etas[phase] ?? null),
      phaseDeadlineAt:
        deadline === undefined ? null : new Date(wallStart + phaseStartMs + deadline).toISOString(),
      results: {
        total: o.count,
        completed: done,
        failed,
        inFlight,
        proofsPerHour: basisProofsPerHour(rateBasis(cycles)),
        restarts: restartsUsed + restartsSeenByClient,
        crashes: crashCount(),
      },
      verdict,
    };
    return statusWriter.write(status);
  };
  const emit = (event: BenchmarkEvent) => {
    o.onProgress?.(event, snapshot());
    if (event.type === "proof-completed" || event.type === "proof-failed" || event.type === "heartbeat")
      void writeStatus();
  };

  const onPhaseDeadline = (which: TimedPhase, deadlineMs: number) => {
    const text = `the ${which} phase ran past its deadline (${(deadlineMs / 1000).toFixed(0)} s${etas[which] === undefined ? "" : `, the model's ETA x margin`})`;
    if (which === "waiting-for-pce") return; // handled by the wait itself: restart anyway
    if (which === "timed") {
      incidents.push(text);
      stopWith(new StopBenchmark(text, "unstable", "deadline"));
    } else stopWith(new StopBenchmark(text, "failed", "deadline"));
  };
  const enterPhase = (next: BenchPhase, message: string) => {
    // "done" starts when the work ended, not after the teardown (closing the client, stopping the daemon).
    const now = next === "done" && workEndMs !== undefined ? workEndMs : since();
    phaseDeadline?.abort();
    phaseDeadline = undefined;
    const previous = { phase, elapsedMs: now - phaseStartMs };
    const record: PhaseRecord = { phase, startMs: phaseStartMs, endMs: now };
    if (phase !== "done") {
      const eta = etas[phase];
      const deadline = deadlines[phase];
      if (eta !== undefined) record.etaMs = eta;
      if (deadline !== undefined) record.deadlineMs = deadline;
    }
    if (phaseEntered) phases.push(record);
    phaseEntered = true;
    phase = next;
    phaseStartMs = now;
    const eta = next === "done" ? undefined : etas[next];
    const deadline = next === "done" ? undefined : deadlines[next];
    if (deadline !== undefined && next !== "done") {
      const wait = new AbortController();
      phaseDeadline = wait;
      o.sleep(deadline, wait.signal).then(
        () => onPhaseDeadline(next as TimedPhase, deadline),
        () => {}, // the phase ended first
      );
    }
    emit({
      type: "phase",
      phase: next,
      message,
      etaMs: eta,
      deadlineMs: deadline,
      previous: phases.length > 0 ? previous : undefined,
    });
    void writeStatus();
  };

  const heartbeat = setInterval(() => {
    const eta = phase === "done" ? undefined : etas[phase];
    const deadline = phase === "done" ? undefined : deadlines[phase];
    emit({ type: "heartbeat", phase, elapsedMs: since() - phaseStartMs, etaMs: eta, deadlineMs: deadline });
  }, o.heartbeatMs);
  heartbeat.unref();

  const noteRestart = (event: Extract<ProveEvent, { type: "daemon-restarted" }>) => {
    // Several proofs in flight see the same restart: count it once, by the daemon's start time
    // (known to whole seconds). The first restart the client reports is always a new one.
    const startMs =
      event.uptimeAfterSeconds === undefined ? clock.now() : clock.now() - event.uptimeAfterSeconds * 1000;
    const known = restartCounted && lastDaemonStartMs !== undefined && startMs <= lastDaemonStartMs + 2_000;
    if (!known) {
      restartCounted = true;
      // Unsupervised, a restart is the only sign of a death (someone else restarted it): unstable.
      if (!sup) {
        restartsSeenByClient++;
        unsupervisedDeaths++;
        if (phase === "timed")
          incidents.push(
            `the daemon restarted during the timed batch (evidence: ${event.evidence}); its jobs were lost`,
          );
      }
      lastDaemonStartMs = startMs;
    }
  };

  const client = createCuzkClient({
    ...o.client,
    address: o.address,
    maxInFlight: o.concurrency,
    logger,
    clock: options.clock ?? o.client?.clock,
    sleep: options.sleep ?? o.client?.sleep,
  });

  const watchdogOptions = o.watchdog === false ? undefined : (o.watchdog ?? {});
  const onUnresponsive = (event: Unresponsive) => {
    const silent = `${(event.silentMs / 1000).toFixed(0)} s`;
    const what =
      event.kind === "froze"
        ? `the daemon froze: no answer for ${silent} (GetStatus ${event.lastCode === "DEADLINE_EXCEEDED" ? "timed out" : `failed with ${event.lastCode}`})`
        : `the daemon died: connections refused for ${silent} (${event.lastCode})`;
    if (sup?.supervisor.running) {
      emit({ type: "note", message: `${what}: killing it` });
      // Supervised: kill it (a frozen process holds its memory and socket); the crash handler restarts or stops.
      void sup.supervisor.kill(`${what}; killed by the benchmark`);
      return;
    }
    emit({ type: "daemon-exit", message: what });
    if (!sup) unsupervisedDeaths++;
    if (phase === "timed") incidents.push(what);
    stopWith(
      new StopBenchmark(
        what,
        phase === "timed" ? "unstable" : "failed",
        event.kind === "froze" ? "froze" : "died",
        event.kind === "died"
          ? oomHint
          : "the daemon stopped answering; check it with `cuzkit status` and its log",
      ),
    );
  };
  const watchdog = watchdogOptions
    ? startWatchdog((timeoutMs, signal) => client.getStatus({ timeoutMs, signal }), onUnresponsive, {
        ...watchdogOptions,
        clock,
        sleep: o.sleep,
      })
    : undefined;

  async function proveOne(index: number, warmup: boolean, slot = 0): Promise<void> {
    inFlight++;
    if (!warmup) started++;
    const record: ProofRecord = {
      index,
      warmup,
      requestId: undefined,
      attempts: 0,
      submitMs: since(),
      settleMs: 0,
      outcome: "failed",
    };
    if (!warmup) {
      record.slot = slot;
      if (!slotMarks.has(slot)) slotMarks.set(slot, record.submitMs);
    }
    emit({ type: "proof-started", index, warmup });
    const timeoutMs = warmup ? (o.warmupTimeoutMs ?? deadlines.warmup) : o.proofTimeoutMs;
    try {
      const result = await client.prove(o.request, {
        warmup,
        resubmit: o.resubmit,
        signal: stop.signal,
        timeoutMs,
        onEvent: (event) => {
          record.requestId = event.requestId;
          record.attempts = event.attempt;
          if (event.type === "daemon-restarted") noteRestart(event);
          if (event.type === "resumed" || event.type === "completed") watchdog?.noteLife();
          if (recoverySteps.has(event.type))
            emit({ type: "recovery", index, step: event.type, message: describeEvent(event) });
        },
      });
      watchdog?.noteLife();
      record.settleMs = since();
      if (!warmup && early) {
        // Finished while the early stop cut the batch: left out, so the report's rate stays the
        // one the verdict was decided on.
        record.outcome = "abandoned";
        record.message = "completed after the early verdict decided; not counted";
        records.push(record);
        inFlight--;
        emit({ type: "proof-failed", index, warmup, code: "BENCHMARK_STOPPED", message: record.message });
        return;
      }
      record.outcome = "completed";
      record.requestId = result.jobId;
      record.attempts = result.attempts;
      record.timings = result.timings;
      records.push(record);
      inFlight--;
      if (warmup) warmupCompleted++;
      else {
        consecutiveFailures = 0;
        done++;
        results.push(result);
        const cycleMs = record.settleMs - (slotMarks.get(slot) ?? record.submitMs);
        slotMarks.set(slot, record.settleMs);
        record.cycleMs = cycleMs;
        cycles.push({ slot, cycleMs });
        const decision = earlyTest?.add(cycleMs, slot);
        if (decision && !early && !stop.signal.aborted) {
          early = decision;
          stopWith(new StopBenchmark("the early verdict decided", "early"));
        }
      }
      emit({ type: "proof-completed", index, warmup, wallMs: result.wallMs });
    } catch (caught) {
      inFlight--;
      record.settleMs = since();
      const stopped = stopInfo();
      const error = toCuzkitError(caught);
      const cutByStop = stopped !== undefined && error.code === "ABORTED";
      // A proof cut by the run's own stop: lost to the death/freeze that stopped it, or abandoned.
      const lost = cutByStop && (stopped.kind === "unstable" || stopped.kind === "failed");
      const code = cutByStop
        ? lost && stopped.failureClass === "froze"
          ? "DAEMON_FROZEN"
          : lost && stopped.failureClass === "died"
            ? "DAEMON_UNAVAILABLE"
            : lost && stopped.failureClass === "stuck"
              ? "DAEMON_STUCK"
              : "BENCHMARK_STOPPED"
        : error.code;
      const failureClass = cutByStop
        ? lost
          ? stopped.failureClass
          : "stopped"
        : classifyFailure(error.code);
      const message = cutByStop ? `stopped before completing: ${stopped.message}` : error.message;
      record.outcome = cutByStop && !lost ? "abandoned" : "failed";
      record.code = code;
      record.failureClass = failureClass;
      record.message = message;
      records.push(record);
      if (record.outcome === "abandoned") {
        emit({ type: "proof-failed", index, warmup, code: "BENCHMARK_STOPPED", message });
        return;
      }
      const failure: ProofFailure = {
        index,
        warmup,
        errorClass: error.name,
        code,
        message,
        hint: cutByStop ? stopped.hint || (lost ? hintFor(stopped.failureClass) : error.hint) : error.hint,
      };
      failures.push(failure);
      if (!warmup) {
        failed++;
        if (!cutByStop && phase === "timed")
          incidents.push(`proof ${index} failed: ${code}: ${error.message}`);
      }
      emit({ type: "proof-failed", index, warmup, code, message });
      if (!warmup && !cutByStop && code === "DAEMON_STUCK") {
        // No proof of the daemon's ended for the whole window: the others in flight would only
        // wait out theirs (the client never resubmits a stuck job), so the run stops here.
        stopWith(new StopBenchmark(`the daemon is stuck: ${error.message}`, "unstable", "stuck", error.hint));
        return;
      }
      if (!warmup && !cutByStop && ++consecutiveFailures >= o.maxConsecutiveFailures) {
        stopWith(
          new StopBenchmark(
            `${consecutiveFailures} timed proofs in a row failed (last: ${code})`,
            "unstable",
            failureClass,
          ),
        );
      }
    }
  }

  const exitHint = (exit: DaemonExit) => (exit.likelyOom ? oomHint : hintFor(exit.frozen ? "froze" : "died"));

  /** Restarts the daemon after a crash with the config of the phase it crashed in. */
  const restartAfterCrash = (exit: DaemonExit) => {
    restartsUsed++;
    watchdog?.pause();
    const useWarmupConfig = twoConfigs && (phase === "warmup" || phase === "starting-daemon");
    const max = sup?.maxRestarts ?? benchDefaults.maxRestarts;
    emit({
      type: "phase",
      phase,
      message: `restarting the daemon after it ${exit.frozen ? "froze" : "died"} (${restartsUsed} of ${max})${useWarmupConfig ? " with the warmup config" : ""}`,
    });
    const supervised = sup as NonNullable<typeof sup>;
    const ends = linkSignals(stop.signal, teardown.signal);
    restarting = supervised.supervisor
      .start(
        useWarmupConfig ? (supervised.warmupConfigToml as string) : supervised.configToml,
        `restart-${restartsUsed}`,
        { signal: ends.signal },
      )
      .finally(() => ends.dispose())
      .then(
        () => watchdog?.resume(),
        (error: unknown) => {
          // The batch ended while the supervisor still waited for GetStatus (the client reached the
          // new daemon first, and it froze after): there is nothing left to restart for.
          if (teardown.signal.aborted) return;
          // A restarted daemon can serve proofs before the supervisor's readiness poll sees it
          // (the client reconnects on its own), and then crash again: that is another crash,
          // not a failed start. Restart again while restarts remain; a crash loop still ends
          // at --max-restarts.
          const again = error instanceof DaemonStartError ? error.exit : undefined;
          if (again !== undefined && !stop.signal.aborted) {
            emit({ type: "daemon-exit", message: again.explanation });
            if (phase === "timed") incidents.push(`the daemon died: ${again.explanation}`);
            if (restartsUsed < (supervised.maxRestarts ?? benchDefaults.maxRestarts)) {
              restartAfterCrash(again);
              return;
            }
          }
          const text = `the daemon could not be restarted: ${toCuzkitError(error).message}`;
          if (phase === "timed") incidents.push(text);
          stopWith(
            new StopBenchmark(text, phase === "timed" ? "unstable" : "failed", "died", exitHint(exit)),
          );
        },
      );
  };

  const unsubscribe = sup?.supervisor.onCrash((exit) => {
    emit({ type: "daemon-exit", message: exit.explanation });
    const text = exit.frozen ? exit.explanation : `the daemon died: ${exit.explanation}`;
    if (phase === "timed") incidents.push(text);
    if (stop.signal.aborted) return;
    if (
      (sup.onCrash ?? "stop") === "restart" &&
      restartsUsed < (sup.maxRestarts ?? benchDefaults.maxRestarts)
    ) {
      restartAfterCrash(exit);
      return;
    }
    stopWith(
      new StopBenchmark(
        text,
        phase === "timed" ? "unstable" : "failed",
        exit.frozen ? "froze" : "died",
        exitHint(exit),
      ),
    );
  });

  /** Waits for a PCE file in the param cache, up to the phase deadline; says so when it gives up. */
  async function waitForPceFile(dir: string): Promise<void> {
    const deadlineMs = deadlines["waiting-for-pce"] ?? benchDefaults.pceWaitMs;
    const until = clock.now() + deadlineMs;
    for (;;) {
      const names = await readdir(dir).catch(() => [] as string[]);
      const file = names.find((name) => /^pce-.*\.bin$/.test(name));
      if (file) {
        emit({ type: "note", message: `the PCE file ${file} is in ${dir}` });
        return;
      }
      if (clock.now() >= until) {
        const text = `no PCE file (pce-*.bin) appeared in ${dir} within ${(deadlineMs / 1000).toFixed(0)} s; restarted anyway, so the first timed proofs may run without a PCE`;
        notes.push(text);
        emit({ type: "note", message: text });
        return;
      }
      await o.sleep(Math.min(1000, Math.max(10, deadlineMs / 50)), stop.signal).catch(() => {});
      throwIfStopped(stop.signal);
    }
  }

  try {
    if (sup) {
      enterPhase("starting-daemon", `starting the daemon${twoConfigs ? " with the warmup config" : ""}`);
      await sup.supervisor.start(
        twoConfigs ? (sup.warmupConfigToml as string) : sup.configToml,
        twoConfigs ? "warmup" : "full",
        { signal: stop.signal },
      );
    }
    throwIfStopped(stop.signal);
    enterPhase(
      "waiting-for-daemon",
      `waiting for the daemon at ${client.address} to answer (it may be loading parameters)`,
    );
    const status = await client.waitForReady({
      timeoutMs: deadlines["waiting-for-daemon"] ?? o.readyTimeoutMs,
      signal: stop.signal,
    });
    lastDaemonStartMs = clock.now() - status.uptimeSeconds * 1000;
    watchdog?.resume();

    if (o.warmupProofs > 0) {
      enterPhase("warmup", `warmup: ${o.warmupProofs} untimed proof(s) with the warmup deadline`);
      const warmupStart = clock.now();
      for (let i = 0; i < o.warmupProofs && !stop.signal.aborted; i++) {
        await proveOne(0, true);
        if (restarting) await restarting;
      }
      warmupDurationMs = clock.now() - warmupStart;
      throwIfStopped(stop.signal);
      if (warmupCompleted === 0) {
        const last = failures.at(-1);
        throw new StopBenchmark(
          `the warmup failed${last ? `: ${last.code}: ${last.message}` : ""}`,
          "failed",
          last ? classifyFailure(last.code) : "other",
          last?.hint ?? "",
        );
      }
    }
    if (sup && twoConfigs) {
      if (sup.pceWait) {
        enterPhase("waiting-for-pce", `waiting for the PCE file in ${sup.pceWait.dir} before the restart`);
        await waitForPceFile(sup.pceWait.dir);
      }
      enterPhase("restarting-daemon", "restarting the daemon with the full config");
      watchdog?.pause();
      await sup.supervisor.stop();
      await sup.supervisor.start(sup.configToml, "full", { signal: stop.signal });
      const restarted = await client.waitForReady({
        timeoutMs: deadlines["restarting-daemon"] ?? o.readyTimeoutMs,
        signal: stop.signal,
      });
      lastDaemonStartMs = clock.now() - restarted.uptimeSeconds * 1000;
      watchdog?.resume();
    }

    enterPhase("timed", `timed batch: ${o.count} proofs, ${o.concurrency} in flight`);
    let next = 1;
    const worker = async (slot: number) => {
      while (!stop.signal.aborted && next <= o.count) await proveOne(next++, false, slot);
    };
    await Promise.all(Array.from({ length: o.concurrency }, (_, i) => worker(i + 1)));
    throwIfStopped(stop.signal);
  } catch (caught) {
    const stopped = caught instanceof StopBenchmark ? caught : stopInfo();
    if (!stopped) {
      // The reason is one line: a hint with the daemon's log lines stays out of it (the exits have them).
      const text = CuzkitError.is(caught)
        ? `${caught.message}${caught.hint && !caught.hint.includes("\n") ? ` (${caught.hint})` : ""}`
        : String(caught);
      stopWith(new StopBenchmark(text, "failed"));
    } else if (caught instanceof StopBenchmark) stopWith(caught);
    logger.error("benchmark stopped", { reason: stopInfo()?.message });
  } finally {
    workEndMs = since();
    clearInterval(heartbeat);
    phaseDeadline?.abort();
    watchdog?.stop();
    unsubscribe?.();
    o.signal?.removeEventListener("abort", onCallerAbort);
    await client.close();
    teardown.abort();
    if (restarting) await restarting.catch(() => {});
    if (sup) await sup.supervisor.stop();
  }

  const stopped = stopInfo();
  const timedWindowMs = windowMs();
  const basis = rateBasis(cycles);
  const rate = basisProofsPerHour(basis);
  const abandoned = records.filter((r) => !r.warmup && r.outcome === "abandoned").length;
  const couldNotBenchmark =
    stopped && (stopped.kind === "failed" || stopped.kind === "interrupted") ? stopped.message : undefined;
  const verdict = decideVerdict({
    completed: done,
    proofsPerHour: rate,
    minProofsPerHour: o.minProofsPerHour,
    incidents,
    couldNotBenchmark,
    early,
  });
  enterPhase("done", `done: ${verdict.status}`);
  const report: BenchmarkReport = {
    schema: "cuzkit.bench.report/v2",
    startedAt: startedAt.toISOString(),
    finishedAt: new Date().toISOString(),
    address: client.address,
    kind: o.kind,
    count: o.count,
    concurrency: o.concurrency,
    warmup: { proofs: o.warmupProofs, completed: warmupCompleted, durationMs: warmupDurationMs },
    completed: done,
    failed,
    abandoned,
    notStarted: o.count - started,
    proofsPerHour: rate,
    rateBasis: basis,
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
    records,
    daemonRestarts: restartsUsed + restartsSeenByClient,
    daemonCrashes: crashCount(),
    daemonExits: [...(sup?.supervisor.crashes ?? [])],
    phases,
    stopCause: stopped && stopped.kind !== "early" ? stopped.message : undefined,
    notes,
    config: sup
      ? {
          path: sup.configPath,
          toml: sup.configToml,
          warmupToml: twoConfigs ? sup.warmupConfigToml : undefined,
        }
      : undefined,
    inputBytes,
    verdict,
  };
  await writeStatus(verdict);
  return report;
}

/** What to do about a proof lost to a dead or frozen daemon. */
function hintFor(failureClass: FailureClass): string {
  return failureClass === "froze"
    ? "the daemon stopped answering (not even GetStatus): check its log for the last thing it did, and `cuzkit status`"
    : failureClass === "died"
      ? oomHint
      : failureClass === "stuck"
        ? "the daemon answered but finished nothing for the stuck window: check its log and `nvidia-smi`, and restart it if it stays so"
        : "";
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
    case "stuck":
      return `no progress for ${Math.round(event.evidence.noProgressForMs / 1000)} s (window ${Math.round(event.evidence.windowMs / 1000)} s): DAEMON_STUCK`;
    default:
      return event.type;
  }
}
