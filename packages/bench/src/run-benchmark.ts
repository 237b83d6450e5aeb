import { type BenchmarkOptions, resolveBenchmarkOptions } from "./options.js";
import type { BenchmarkReport } from "./report.js";
import { buildReport, runVerdict } from "./run/build-report.js";
import { enterPhase, startHeartbeat, writeStatus } from "./run/phases.js";
import { handleCrashes, startRunWatchdog } from "./run/restarts.js";
import { runPhases } from "./run/sequence.js";
import { createRunState, since } from "./run/state.js";
import { followCallerSignal, stopOnError } from "./run/stop.js";

// The run is a state object (run/state.ts) that step modules act on: the phases in order
// (run/sequence.ts), phase bookkeeping and events (run/phases.ts), one proof (run/prove-one.ts),
// daemon restarts and crashes (run/restarts.ts), stops and errors (run/stop.ts), and the report
// (run/build-report.ts).

/**
 * Runs a benchmark against a cuzk daemon: an optional warmup (untimed, with the long warmup
 * deadline), then `count` timed proofs with `concurrency` in flight, through @cuzkit/client, so a
 * broken connection is resumed or classified rather than ending the run. A watchdog of its own
 * (GetStatus probes) ends or restarts the run when the daemon dies or freezes. Always resolves
 * with a report and a verdict (MET, BELOW, UNSTABLE, FAILED); it rejects only for bad options
 * (before any daemon work).
 */
export async function runBenchmark(options: BenchmarkOptions): Promise<BenchmarkReport> {
  const run = createRunState(resolveBenchmarkOptions(options), options);
  const unfollow = followCallerSignal(run);
  run.phase.startMs = since(run);
  const stopHeartbeat = startHeartbeat(run);
  startRunWatchdog(run);
  const unsubscribe = handleCrashes(run);
  try {
    await runPhases(run);
  } catch (caught) {
    stopOnError(run, caught);
  } finally {
    run.phase.workEndMs = since(run);
    stopHeartbeat();
    run.phase.deadline?.abort();
    run.watchdog?.stop();
    unsubscribe?.();
    unfollow();
    await run.client.close();
    run.teardown.abort();
    if (run.restarts.pending) await run.restarts.pending.catch(() => {});
    if (run.sup) await run.sup.supervisor.stop();
  }
  const verdict = runVerdict(run);
  enterPhase(run, "done", `done: ${verdict.status}`);
  const report = buildReport(run, verdict);
  await writeStatus(run, verdict);
  return report;
}
