// What `cuzkit demo` does once its flags are checked: run the tuned and the incident's config on
// the simulated machine, show their progress, and print both reports and the comparison.
import { createProgressOutput, formatReport, type ProgressOutput } from "@cuzkit/bench";
import { describeHardware, formatBytes } from "@cuzkit/core";
import { type DemoOptions, type DemoResult, defaultDemoProfile, runDemo } from "../demo.js";
import { formatRunPrediction, type RunPrediction } from "../demo-prediction.js";
import { resolveHardwareFlags, specOf } from "../hardware-flags.js";
import { type CliIO, CommandExit } from "../io.js";
import type { DemoFlags } from "./demo.js";

const gib = (bytes: number) => formatBytes(bytes);
const machineTime = "machine time";

/** "model 120.3/h over this window, 147.6/h steady". */
function modelRates(prediction: RunPrediction | undefined): string {
  if (!prediction) return "no model figure";
  return `model ${prediction.windowProofsPerHour.toFixed(1)}/h over this window, ${prediction.proofsPerHour.toFixed(1)}/h steady`;
}

/** The closing comparison: the tuned config against the incident's own, both in machine time. */
export function formatDemoSummary(result: DemoResult): string {
  const rec = result.tuned.recommendation;
  const { check, report: incident, run } = result.incident;
  const predicted = result.model.incident;
  const lines = ["", `== the incident's own config on the same machine (${machineTime})`];
  lines.push(
    `   ${run.label}`,
    `   the model predicts for this run (peak ${gib(predicted.peakBytes)} vs ${gib(predicted.usableRamBytes)} usable${predicted.oomPhase ? `: OOM kill expected in the ${predicted.oomPhase} phase` : ": fits"}):`,
  );
  for (const line of formatRunPrediction(predicted)) lines.push(`   - ${line}`);
  // The run's own phases replace the check's OOM lines, which judge the timed config without its warmup plan.
  for (const problem of check.problems.filter((p) => !p.startsWith("OOM expected")))
    lines.push(`   - ${problem}`);
  const exit = incident.daemonExits[0];
  lines.push(
    `   the simulated run: ${incident.completed} of ${incident.count} timed proofs completed${exit ? "; then the daemon process ended:" : "; the daemon never died"}`,
  );
  if (exit) {
    // What a supervisor of a real daemon sees: the exit status and the last lines it printed.
    lines.push(
      `     exit: ${exit.exitCode === null ? exit.signal : `code ${exit.exitCode}`} -> ${exit.explanation}`,
    );
    for (const line of exit.logTail.slice(-4)) lines.push(`     | ${line}`);
  }
  // The simulator runs the model's law: a disagreement is a bug to report, not a story to tell.
  if (predicted.oomPhase && !exit)
    lines.push("   (the model expected an OOM kill that the simulated run did not have: please report this)");
  if (!predicted.oomPhase && exit)
    lines.push("   (the daemon ended although the model expected no OOM kill: see the exit above)");
  lines.push(`   verdict: ${incident.verdict.status}: ${incident.verdict.reason}`);
  const tuned = result.tuned.report;
  const tunedSettings = rec.feasible
    ? `${rec.daemonConfig.dialect === "budget" ? `max_parallel_synthesis=${rec.daemonConfig.maxParallelSynthesis}` : `partition_workers=${rec.daemonConfig.partitionWorkers}`}, gpu_workers_per_device=${rec.daemonConfig.gpuWorkersPerDevice}, ${rec.bench.concurrency} in flight`
    : `no safe config: ${rec.infeasibleReason ?? ""}`;
  const incidentOutcome = exit
    ? incident.warmup.completed === 0 && incident.warmup.proofs > 0
      ? "died in its first, cache-less proof (the warmup)"
      : `died after ${incident.completed} timed proof(s)`
    : `${incident.proofsPerHour.toFixed(1)} proofs/h`;
  lines.push(
    "",
    `== side by side (${machineTime}; minimum ${result.minProofsPerHour} proofs/h, an example: the incidents' value is not stated, only that 35.9/h fell below it)`,
    `   tuned:     ${tunedSettings}; ${tuned ? `${tuned.proofsPerHour.toFixed(1)} proofs/h simulated (${modelRates(result.model.tuned)}): ${tuned.verdict.status}` : "not run"}`,
    `   incident:  ${run.label}; ${incidentOutcome}${exit ? "" : ` (${modelRates(predicted)})`}: ${incident.verdict.status}`,
    ...(result.model.whyNotTuned
      ? [`   why the tuner did not pick the hand-set config: ${result.model.whyNotTuned}`]
      : []),
    `   (model: the law the simulator runs; "window" includes the restarted daemon's parameter load and the first proofs' latency, as the ${incident.count}-proof benchmark does)`,
    "",
    "A model predicts and a benchmark decides: on a real GPU machine run `cuzkit tune --detect` and `cuzkit bench --spawn ...` (see the README).",
  );
  return lines.join("\n");
}

/** The two runs' progress on stderr: each run's header and progress lines, the first finished when the second starts. */
function createDemoProgress(io: CliIO, proofs: number) {
  const outputs: Partial<Record<"tuned" | "incident", ProgressOutput>> = {};
  const onProgress: NonNullable<DemoOptions["onProgress"]> = (run, event, snapshot, timeScale) => {
    let output = outputs[run];
    if (!output) {
      outputs.tuned?.finish();
      const header =
        run === "tuned"
          ? `\n== the tuned config on the simulated machine (${machineTime})`
          : `\n== the incident's own config on the simulated machine (${machineTime})`;
      io.stderr.write(`${header}\n`);
      output = createProgressOutput(io.stderr, proofs, { timeScale });
      outputs[run] = output;
    }
    output.update(event, snapshot);
  };
  const finish = () => {
    outputs.tuned?.finish();
    outputs.incident?.finish();
  };
  return { onProgress, finish };
}

/** --json: both reports, the incident's check and the model, machine time. */
function formatDemoJson(result: DemoResult): string {
  return JSON.stringify(
    {
      machine: result.machine,
      timeScale: result.timeScale,
      time: machineTime,
      minProofsPerHour: result.minProofsPerHour,
      tuned: result.tuned.report,
      incident: result.incident.report,
      incidentCheck: {
        oom: result.model.incident.oomPhase !== undefined,
        oomPhase: result.model.incident.oomPhase,
        peakBytes: result.model.incident.peakBytes,
        problems: result.incident.check.problems.filter((p) => !p.startsWith("OOM expected")),
      },
      model: result.model,
    },
    null,
    2,
  );
}

/** The text report: the machine, what the tuner says, the tuned benchmark, then the comparison. */
function formatDemoText(result: DemoResult): string {
  const rec = result.tuned.recommendation;
  const out = [
    `cuzkit demo: ${result.machine}`,
    `machine: ${describeHardware(result.hardware)}; simulated at ${result.timeScale.toPrecision(2)} real seconds per machine second; every time and rate below is machine time`,
    "",
    "== cuzkit tune says",
    ...rec.reasons.slice(0, 6).map((reason) => `   ${reason.about}: ${reason.text}`),
    ...rec.warnings.map((warning) => `   warning: ${warning.message}`),
    `   warmup: ${rec.warmup.steps.join(" ")}`,
    "",
    `== benchmark of the tuned config (${machineTime})`,
    result.tuned.report
      ? formatReport(result.tuned.report, { timeLabel: machineTime }).replace(/^/gm, "   ")
      : "   skipped: no safe config for this machine",
    formatDemoSummary(result),
  ];
  return out.join("\n");
}

/** `cuzkit demo`'s action: runs both, prints them, and exits 1 when the tuned run could not be judged. */
export async function runDemoCommand(io: CliIO, flags: DemoFlags): Promise<void> {
  const described = await resolveHardwareFlags(flags);
  const hardware = described === undefined ? undefined : specOf(described);
  const progress = createDemoProgress(io, flags.proofs);
  const result = await runDemo({
    profile: flags.profile ?? defaultDemoProfile,
    hardware,
    dialect: flags.dialect,
    proofs: flags.proofs,
    targetSeconds: flags.seconds,
    minProofsPerHour: flags.minProofsPerHour,
    onProgress: progress.onProgress,
  });
  progress.finish();
  if (flags.json) {
    io.stdout.write(`${formatDemoJson(result)}\n`);
    return;
  }
  io.stdout.write(`${formatDemoText(result)}\n`);
  const status = result.tuned.report?.verdict.status;
  if (status !== undefined && status !== "MET" && status !== "BELOW") throw new CommandExit(1);
}
