import { rm } from "node:fs/promises";
import { CuzkitError } from "@cuzkit/core";
import { listenRun } from "./daemon-listen.js";
import { createRun, endRun, type Run } from "./daemon-run.js";
import { addressOf, type DaemonState } from "./daemon-state.js";
import { SimStoppedError } from "./errors.js";
import { resolveSimFaults } from "./options.js";
import type { SimRestartOptions } from "./sim-daemon-types.js";

// The simulated daemon's life: a run starts (listening at once, or after its start delay), a
// restart ends the current run and starts a new one on the same address, stop ends it for good.

/** Starts `run`, the daemon's current one: it listens at once, or once faults.startDelayMs has passed. */
export function startRun(d: DaemonState, run: Run): void {
  const { faults } = run;
  d.state = "starting";
  if (faults.startDelayMs > 0) {
    d.resolved.logger.info("loading parameters before listening", {
      address: addressOf(d),
      delayMs: faults.startDelayMs,
    });
    run.ready = new Promise<void>((resolve, reject) => {
      run.abortStart = () =>
        reject(
          new CuzkitError("the simulated daemon ended before it listened", {
            code: "SIM_START_ABORTED",
            hint: "it was stopped, crashed or restarted during its start delay",
          }),
        );
      run.timers.add(
        d.resolved.scheduler.setTimer(() => listenAfterDelay(d, run, resolve, reject), faults.startDelayMs),
      );
    });
  } else {
    run.binding = listenRun(d, run);
    run.ready = run.binding;
  }
  // A failure is reported through ready(); never as an unhandled rejection.
  run.ready.catch(() => {});
}

/** The start delay is over: binds, and settles `ready` with the outcome. */
function listenAfterDelay(
  d: DaemonState,
  run: Run,
  resolve: () => void,
  reject: (error: unknown) => void,
): void {
  run.abortStart = undefined;
  run.binding = listenRun(d, run);
  run.binding.then(resolve, (error: unknown) => {
    if (d.current === run) d.state = "stopped";
    d.resolved.logger.error("could not listen", {
      error: error instanceof Error ? error.message : String(error),
    });
    reject(error);
  });
}

/** Closes every connection and the listeners and removes the socket file; idempotent. */
export function stopDaemon(d: DaemonState): Promise<void> {
  d.stopping ??= (async () => {
    endRun(d.current);
    d.state = "stopped";
    d.received.close();
    d.pceFilesWritten.close();
    await d.current.closing;
    if (d.listen.kind === "unix") await rm(d.listen.path, { force: true });
    d.resolved.logger.info("stopped", { address: addressOf(d) });
  })();
  return d.stopping;
}

/** Comes back on the same address with a new run (also after a crash); resolves once listening. */
export async function restartDaemon(d: DaemonState, restartOptions: SimRestartOptions = {}): Promise<void> {
  if (d.stopping) {
    throw new SimStoppedError("the simulated daemon was stopped and cannot restart", {
      hint: "start a new one with startSimDaemon()",
    });
  }
  const previous = d.current;
  endRun(previous);
  await previous.closing;
  d.totals.restarts++;
  d.memoryNow = 0;
  const faults = restartOptions.faults === undefined ? d.baseFaults : resolveSimFaults(restartOptions.faults);
  d.current = createRun(faults);
  startRun(d, d.current);
  d.resolved.logger.info("restarting", { address: addressOf(d) });
  await d.current.ready;
}
