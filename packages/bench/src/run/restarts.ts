import { oomHint, type ProveEvent } from "@cuzkit/client";
import { linkSignals, toCuzkitError } from "@cuzkit/core";
import { benchDefaults } from "../options.js";
import { type DaemonExit, DaemonStartError } from "../supervisor.js";
import { startWatchdog, type Unresponsive } from "../watchdog.js";
import { emit } from "./phases.js";
import type { RunState } from "./state.js";
import { hintFor, StopBenchmark, stopKindForPhase, stopWith } from "./stop.js";

type Supervision = NonNullable<RunState["sup"]>;

/** A restart the client reported: counted once (several proofs see the same one); unsupervised, it is a death. */
export function noteRestart(run: RunState, event: Extract<ProveEvent, { type: "daemon-restarted" }>): void {
  const { clock } = run.o;
  const restarts = run.restarts;
  // Several proofs in flight see the same restart: count it once, by the daemon's start time
  // (known to whole seconds). The first restart the client reports is always a new one.
  const startMs =
    event.uptimeAfterSeconds === undefined ? clock.now() : clock.now() - event.uptimeAfterSeconds * 1000;
  const known =
    restarts.counted &&
    restarts.lastDaemonStartMs !== undefined &&
    startMs <= restarts.lastDaemonStartMs + 2_000;
  if (known) return;
  restarts.counted = true;
  // Unsupervised, a restart is the only sign of a death (someone else restarted it): unstable.
  if (!run.sup) {
    restarts.seenByClient++;
    restarts.unsupervisedDeaths++;
    if (run.phase.current === "timed")
      run.incidents.push(
        `the daemon restarted during the timed batch (evidence: ${event.evidence}); its jobs were lost`,
      );
  }
  restarts.lastDaemonStartMs = startMs;
}

/** Notes the daemon's start time from the uptime it answered with. */
export function noteDaemonStart(run: RunState, uptimeSeconds: number): void {
  run.restarts.lastDaemonStartMs = run.o.clock.now() - uptimeSeconds * 1000;
}

/** The watchdog saw the daemon die or freeze: kill it (supervised; the crash handler goes on) or stop the run. */
function onUnresponsive(run: RunState, event: Unresponsive): void {
  const { sup } = run;
  const silent = `${(event.silentMs / 1000).toFixed(0)} s`;
  const what =
    event.kind === "froze"
      ? `the daemon froze: no answer for ${silent} (GetStatus ${event.lastCode === "DEADLINE_EXCEEDED" ? "timed out" : `failed with ${event.lastCode}`})`
      : `the daemon died: connections refused for ${silent} (${event.lastCode})`;
  if (sup?.supervisor.running) {
    emit(run, { type: "note", message: `${what}: killing it` });
    // Supervised: kill it (a frozen process holds its memory and socket); the crash handler restarts or stops.
    void sup.supervisor.kill(`${what}; killed by the benchmark`);
    return;
  }
  emit(run, { type: "daemon-exit", message: what });
  if (!sup) run.restarts.unsupervisedDeaths++;
  if (run.phase.current === "timed") run.incidents.push(what);
  stopWith(
    run,
    new StopBenchmark(
      what,
      stopKindForPhase(run),
      event.kind === "froze" ? "froze" : "died",
      event.kind === "died"
        ? oomHint
        : "the daemon stopped answering; check it with `cuzkit status` and its log",
    ),
  );
}

/** Starts the run's own watchdog (GetStatus probes), paused until the daemon first answers; none when disabled. */
export function startRunWatchdog(run: RunState): void {
  const { o } = run;
  const watchdogOptions = o.watchdog === false ? undefined : (o.watchdog ?? {});
  run.watchdog = watchdogOptions
    ? startWatchdog(
        (timeoutMs, signal) => run.client.getStatus({ timeoutMs, signal }),
        (event) => onUnresponsive(run, event),
        { ...watchdogOptions, clock: o.clock, sleep: o.sleep },
      )
    : undefined;
}

function exitHint(exit: DaemonExit): string {
  return exit.likelyOom ? oomHint : hintFor(exit.frozen ? "froze" : "died");
}

function maxRestarts(sup: Supervision): number {
  return sup.maxRestarts ?? benchDefaults.maxRestarts;
}

/** A restart failed: restart again when the daemon crashed once more (restarts remaining), else stop the run. */
function onRestartFailed(run: RunState, sup: Supervision, exit: DaemonExit, error: unknown): void {
  // The batch ended while the supervisor still waited for GetStatus (the client reached the
  // new daemon first, and it froze after): there is nothing left to restart for.
  if (run.teardown.signal.aborted) return;
  // A restarted daemon can serve proofs before the supervisor's readiness poll sees it
  // (the client reconnects on its own), and then crash again: that is another crash,
  // not a failed start. Restart again while restarts remain; a crash loop still ends
  // at --max-restarts.
  const again = error instanceof DaemonStartError ? error.exit : undefined;
  if (again !== undefined && !run.stop.signal.aborted) {
    emit(run, { type: "daemon-exit", message: again.explanation });
    if (run.phase.current === "timed") run.incidents.push(`the daemon died: ${again.explanation}`);
    if (run.restarts.used < maxRestarts(sup)) {
      restartAfterCrash(run, sup, again);
      return;
    }
  }
  const text = `the daemon could not be restarted: ${toCuzkitError(error).message}`;
  if (run.phase.current === "timed") run.incidents.push(text);
  stopWith(run, new StopBenchmark(text, stopKindForPhase(run), "died", exitHint(exit)));
}

/** Restarts the daemon after a crash with the config of the phase it crashed in. */
function restartAfterCrash(run: RunState, sup: Supervision, exit: DaemonExit): void {
  const restarts = run.restarts;
  restarts.used++;
  run.watchdog?.pause();
  const phase = run.phase.current;
  const useWarmupConfig = run.twoConfigs && (phase === "warmup" || phase === "starting-daemon");
  emit(run, {
    type: "phase",
    phase,
    message: `restarting the daemon after it ${exit.frozen ? "froze" : "died"} (${restarts.used} of ${maxRestarts(sup)})${useWarmupConfig ? " with the warmup config" : ""}`,
  });
  const ends = linkSignals(run.stop.signal, run.teardown.signal);
  restarts.pending = sup.supervisor
    .start(useWarmupConfig ? (sup.warmupConfigToml as string) : sup.configToml, `restart-${restarts.used}`, {
      signal: ends.signal,
    })
    .finally(() => ends.dispose())
    .then(
      () => run.watchdog?.resume(),
      (error: unknown) => onRestartFailed(run, sup, exit, error),
    );
}

/** Handles the supervisor's crash reports: restart (when asked to and restarts remain) or stop the run. Returns the unsubscribe function. */
export function handleCrashes(run: RunState): (() => void) | undefined {
  const { sup } = run;
  return sup?.supervisor.onCrash((exit) => {
    emit(run, { type: "daemon-exit", message: exit.explanation });
    const text = exit.frozen ? exit.explanation : `the daemon died: ${exit.explanation}`;
    if (run.phase.current === "timed") run.incidents.push(text);
    if (run.stop.signal.aborted) return;
    if ((sup.onCrash ?? "stop") === "restart" && run.restarts.used < maxRestarts(sup)) {
      restartAfterCrash(run, sup, exit);
      return;
    }
    stopWith(
      run,
      new StopBenchmark(text, stopKindForPhase(run), exit.frozen ? "froze" : "died", exitHint(exit)),
    );
  });
}
