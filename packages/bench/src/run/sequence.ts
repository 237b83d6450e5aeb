import { readdir } from "node:fs/promises";
import { benchDefaults } from "../options.js";
import { classifyFailure } from "../records.js";
import { emit, enterPhase } from "./phases.js";
import { proveOne } from "./prove-one.js";
import { noteDaemonStart } from "./restarts.js";
import type { RunState } from "./state.js";
import { StopBenchmark, throwIfStopped } from "./stop.js";

type Supervision = NonNullable<RunState["sup"]>;

/** Starts the daemon (supervised) and waits until it answers. */
async function startDaemon(run: RunState): Promise<void> {
  const { sup, twoConfigs, stop, client } = run;
  if (sup) {
    enterPhase(run, "starting-daemon", `starting the daemon${twoConfigs ? " with the warmup config" : ""}`);
    await sup.supervisor.start(
      twoConfigs ? (sup.warmupConfigToml as string) : sup.configToml,
      twoConfigs ? "warmup" : "full",
      { signal: stop.signal },
    );
  }
  throwIfStopped(stop.signal);
  enterPhase(
    run,
    "waiting-for-daemon",
    `waiting for the daemon at ${client.address} to answer (it may be loading parameters)`,
  );
  const status = await client.waitForReady({
    timeoutMs: run.deadlines["waiting-for-daemon"] ?? run.o.readyTimeoutMs,
    signal: stop.signal,
  });
  noteDaemonStart(run, status.uptimeSeconds);
  run.watchdog?.resume();
}

/** The untimed warmup proofs, one at a time; fails the run when none completed. */
async function warmup(run: RunState): Promise<void> {
  const { o, stop } = run;
  enterPhase(run, "warmup", `warmup: ${o.warmupProofs} untimed proof(s) with the warmup deadline`);
  const warmupStart = o.clock.now();
  for (let i = 0; i < o.warmupProofs && !stop.signal.aborted; i++) {
    await proveOne(run, 0, true);
    if (run.restarts.pending) await run.restarts.pending;
  }
  run.counts.warmupDurationMs = o.clock.now() - warmupStart;
  throwIfStopped(stop.signal);
  if (run.counts.warmupCompleted === 0) {
    const last = run.failures.at(-1);
    throw new StopBenchmark(
      `the warmup failed${last ? `: ${last.code}: ${last.message}` : ""}`,
      "failed",
      last ? classifyFailure(last.code) : "other",
      last?.hint ?? "",
    );
  }
}

/** Waits for a PCE file in the param cache, up to the phase deadline; says so when it gives up. */
async function waitForPceFile(run: RunState, dir: string): Promise<void> {
  const { o } = run;
  const deadlineMs = run.deadlines["waiting-for-pce"] ?? benchDefaults.pceWaitMs;
  const until = o.clock.now() + deadlineMs;
  for (;;) {
    const names = await readdir(dir).catch(() => [] as string[]);
    const file = names.find((name) => /^pce-.*\.bin$/.test(name));
    if (file) {
      emit(run, { type: "note", message: `the PCE file ${file} is in ${dir}` });
      return;
    }
    if (o.clock.now() >= until) {
      const text = `no PCE file (pce-*.bin) appeared in ${dir} within ${(deadlineMs / 1000).toFixed(0)} s; restarted anyway, so the first timed proofs may run without a PCE`;
      run.notes.push(text);
      emit(run, { type: "note", message: text });
      return;
    }
    await o.sleep(Math.min(1000, Math.max(10, deadlineMs / 50)), run.stop.signal).catch(() => {});
    throwIfStopped(run.stop.signal);
  }
}

/** After a warmup on its own config: waits for the PCE file (when asked) and restarts with the full config. */
async function restartWithFullConfig(run: RunState, sup: Supervision): Promise<void> {
  const { client, stop } = run;
  if (sup.pceWait) {
    enterPhase(run, "waiting-for-pce", `waiting for the PCE file in ${sup.pceWait.dir} before the restart`);
    await waitForPceFile(run, sup.pceWait.dir);
  }
  enterPhase(run, "restarting-daemon", "restarting the daemon with the full config");
  run.watchdog?.pause();
  await sup.supervisor.stop();
  await sup.supervisor.start(sup.configToml, "full", { signal: stop.signal });
  const restarted = await client.waitForReady({
    timeoutMs: run.deadlines["restarting-daemon"] ?? run.o.readyTimeoutMs,
    signal: stop.signal,
  });
  noteDaemonStart(run, restarted.uptimeSeconds);
  run.watchdog?.resume();
}

/** The timed batch: `count` proofs, `concurrency` workers (slots 1..concurrency). */
async function timedBatch(run: RunState): Promise<void> {
  const { o, stop } = run;
  enterPhase(run, "timed", `timed batch: ${o.count} proofs, ${o.concurrency} in flight`);
  let next = 1;
  const worker = async (slot: number) => {
    while (!stop.signal.aborted && next <= o.count) await proveOne(run, next++, false, slot);
  };
  await Promise.all(Array.from({ length: o.concurrency }, (_, i) => worker(i + 1)));
  throwIfStopped(stop.signal);
}

/** The run's phases in order; throws (a StopBenchmark or the error) when the run ends early. */
export async function runPhases(run: RunState): Promise<void> {
  await startDaemon(run);
  if (run.o.warmupProofs > 0) await warmup(run);
  if (run.sup && run.twoConfigs) await restartWithFullConfig(run, run.sup);
  await timedBatch(run);
}
