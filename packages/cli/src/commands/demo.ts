import { createProgressOutput, formatReport, type ProgressOutput, toMachineTime } from "@cuzkit/bench";
import { daemonDialects, describeHardware, formatBytes } from "@cuzkit/core";
import { Command, Option } from "commander";
import { intOption, positiveNumber } from "../common.js";
import { type DemoResult, demoProfiles, incidentConcurrency, runDemo } from "../demo.js";
import { addHardwareOptions, type HardwareFlags, resolveHardwareFlags } from "../hardware-flags.js";
import { type CliIO, CommandExit } from "../io.js";

interface DemoFlags extends HardwareFlags {
  profile: string;
  dialect: "partition-workers" | "budget";
  proofs: number;
  seconds: number;
  json?: boolean;
}

const gib = (bytes: number) => formatBytes(bytes);
/** Proofs/hour of a scaled run, converted back to the simulated machine's time. */

/** The closing comparison: the tuned config against the incidents' hand-set one. */
export function formatDemoSummary(result: DemoResult): string {
  const rec = result.tuned.recommendation;
  const check = result.incident.check;
  const incident = result.incident.report;
  const lines = ["", "== what the incidents' hand-set config does on the same machine"];
  lines.push(
    `   partition_workers=16, gpu_workers_per_device=2, gpu_threads=32, ${incidentConcurrency} proofs in flight`,
    `   model: peak ${gib(check.peakBytes)} vs ${gib(check.usableRamBytes)} usable${check.oomPhase ? ` (${check.oomPhase})` : ""}: ${check.oom ? "OOM-KILL EXPECTED" : "fits"}`,
  );
  for (const problem of check.problems) lines.push(`   - ${problem}`);
  const exit = incident.daemonExits[0];
  lines.push(
    `   simulated run: ${incident.completed} of ${incident.count} proofs completed${exit ? `; the daemon was ${exit.explanation}` : ""}`,
    `   verdict: ${incident.verdict.status.toUpperCase()}: ${incident.verdict.reason}`,
    "",
    "== side by side",
    `   tuned:     ${rec.feasible ? `${rec.daemonConfig.dialect === "budget" ? `max_parallel_synthesis=${rec.daemonConfig.maxParallelSynthesis}` : `partition_workers=${rec.daemonConfig.partitionWorkers}`}, gpu_workers_per_device=${rec.daemonConfig.gpuWorkersPerDevice}, ${rec.bench.concurrency} in flight; peak ${gib(rec.predicted.peakMemoryBytes)}; ${result.tuned.report ? `${toMachineTime(result.tuned.report, result.timeScale).proofsPerHour.toFixed(1)} proofs/h simulated (model ${rec.predicted.proofsPerHour.toFixed(1)})` : "not run"}` : `no safe config: ${rec.infeasibleReason ?? ""}`}`,
    `   hand-set:  partition_workers=16, gpu_workers_per_device=2, ${incidentConcurrency} in flight; peak ${gib(check.peakBytes)}; ${incident.completed} proofs before the daemon died`,
    "",
    "A model predicts and a benchmark decides: on a real GPU machine run `cuzkit tune --detect` and `cuzkit bench --spawn ...` (see the README).",
  );
  return lines.join("\n");
}

/** `cuzkit demo`: the README's main command; needs no GPU, network or files. */
export function createDemoCommand(io: CliIO): Command {
  const command = new Command("demo")
    .description(
      "tune a machine from the incidents, benchmark it on the simulated daemon, and show the hand-set config's OOM",
    )
    .option("--profile <name>", `machine: ${Object.keys(demoProfiles).join(", ")}`, "czechia-2x3090")
    .addOption(
      new Option("--dialect <dialect>", "daemon dialect to tune for")
        .choices(daemonDialects)
        .default("partition-workers"),
    )
    .option("--proofs <n>", "timed proofs", intOption(1), 12)
    .option("--seconds <n>", "about how long the tuned run should take, in real seconds", positiveNumber, 25)
    .option("--json", "print both reports as JSON");
  addHardwareOptions(command)
    .addHelpText(
      "after",
      "\nExamples:\n  cuzkit demo\n  cuzkit demo --profile bc-canada-125gb\n  cuzkit demo --ram 512GiB --cores 64 --gpus 2xRTX4090 --dialect budget",
    )
    .action(async (flags: DemoFlags) => {
      const hardware = await resolveHardwareFlags(flags);
      const outputs: Partial<Record<"tuned" | "incident", ProgressOutput>> = {};
      const header = (text: string) => io.stderr.write(`${text}\n`);
      const result = await runDemo({
        profile: flags.profile,
        ...(hardware ? { hardware } : {}),
        dialect: flags.dialect,
        proofs: flags.proofs,
        targetSeconds: flags.seconds,
        onProgress: (run, event, snapshot, timeScale) => {
          let output = outputs[run];
          if (!output) {
            outputs.tuned?.finish();
            header(
              run === "tuned"
                ? "\n== the tuned config on the simulated machine"
                : "\n== the incidents' hand-set config on the simulated machine",
            );
            output = createProgressOutput(io.stderr, flags.proofs, { timeScale });
            outputs[run] = output;
          }
          output.update(event, snapshot);
        },
      });
      outputs.tuned?.finish();
      outputs.incident?.finish();
      if (flags.json) {
        io.stdout.write(
          `${JSON.stringify({ machine: result.machine, timeScale: result.timeScale, tuned: result.tuned.report, incident: result.incident.report, incidentCheck: { oom: result.incident.check.oom, peakBytes: result.incident.check.peakBytes, problems: result.incident.check.problems } }, null, 2)}\n`,
        );
        return;
      }
      const rec = result.tuned.recommendation;
      const out = [
        `cuzkit demo: ${result.machine}`,
        `machine: ${describeHardware(result.hardware)}; simulated at ${result.timeScale.toPrecision(2)} real seconds per machine second`,
        "",
        "== cuzkit tune says",
        ...rec.reasons.slice(0, 6).map((reason) => `   ${reason.about}: ${reason.text}`),
        ...rec.warnings.map((warning) => `   warning: ${warning.message}`),
        `   warmup: ${rec.warmup.steps.join(" ")}`,
        "",
        "== benchmark of the tuned config (times in the simulated machine's time)",
        result.tuned.report
          ? formatReport(toMachineTime(result.tuned.report, result.timeScale)).replace(/^/gm, "   ")
          : "   skipped: no safe config for this machine",
        formatDemoSummary(result),
      ];
      io.stdout.write(`${out.join("\n")}\n`);
      if (result.tuned.report && result.tuned.report.verdict.status !== "MET") throw new CommandExit(1);
    });
  return command;
}
