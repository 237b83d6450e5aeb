import { describeHardware, formatBytes } from "@cuzkit/core";
import type { Recommendation } from "../recommend.js";
import type { EmitOptions } from "./guard.js";
import { emitCuzkToml } from "./toml.js";

const sec = (seconds: number) => (Number.isFinite(seconds) ? `${Math.round(seconds)} s` : "n/a");

/** Indents every line of `text` by `by` spaces. */
function indent(text: string, by: number): string {
  const pad = " ".repeat(by);
  return text
    .split("\n")
    .map((line) => (line === "" ? line : pad + line))
    .join("\n");
}

/**
 * The recommendation explained for people: machine (with sources), verdict, each setting with
 * its reason, warmup plan, warnings and the cuzk.toml. Never throws: an infeasible result
 * explains why, and shows the config only when forced and one fits with the margin waived.
 */
export function emitText(recommendation: Recommendation, options: EmitOptions = {}): string {
  const r = recommendation;
  const p = r.predicted;
  const out: string[] = [];
  out.push(`cuzkit tune: ${r.dialect} daemon, workload ${r.workload.name}`);
  out.push(`Machine: ${describeHardware(r.hardware)}`);
  if (r.hardwareReadings) {
    const h = r.hardwareReadings;
    out.push(`  RAM (host):   ${formatBytes(h.ramBytes.value)} from ${h.ramBytes.source}`);
    out.push(`  RAM (usable): ${formatBytes(h.usableRamBytes.value)} from ${h.usableRamBytes.source}`);
    out.push(
      `  CPU threads:  ${h.cpuThreads.value} from ${h.cpuThreads.source} (host ${h.hostCpuThreads.value} from ${h.hostCpuThreads.source})`,
    );
    out.push(`  GPUs:         ${h.gpus.value.length} from ${h.gpus.source}`);
  }
  out.push("");
  if (r.feasible) {
    out.push(
      `Safe: modelled peak ${formatBytes(p.peakMemoryBytes)} (${p.governingPhase}) of ${formatBytes(p.allowedPeakBytes)} allowed ` +
        `(${formatBytes(p.usableRamBytes)} usable minus ${formatBytes(p.safetyMarginBytes)} margin).`,
    );
  } else {
    out.push(`NO SAFE CONFIG: ${r.infeasibleReason ?? "the model expects an OOM kill"}.`);
  }
  if (r.feasible) {
    out.push(
      `Predicted: ${p.proofsPerHour.toFixed(1)} proofs/hour (${sec(p.secPerProof)} per proof, bottleneck ${p.bottleneck}); ` +
        `latency ${sec(p.proofLatencySec)}, first proof ${sec(p.firstProofSec)}, worst case ${sec(p.worstCaseProofSec)}` +
        `${p.extrapolations.length > 0 ? ` (extrapolated: ${p.extrapolations.length} point(s), see "extrapolated" below)` : ""}.`,
    );
  } else {
    out.push(
      "Predicted: no throughput: the model expects every config of this dialect to be OOM-killed here.",
    );
  }
  out.push(`Bench concurrency: ${r.bench.concurrency}`);
  out.push("");
  out.push("Settings and reasons:");
  for (const reason of r.reasons) out.push(`  ${reason.about}: ${reason.text}`);
  out.push("");
  out.push(`Warmup (${r.warmup.restart ? "then restart" : "no restart"}):`);
  r.warmup.steps.forEach((step, index) => {
    out.push(`  ${index + 1}. ${step}`);
  });
  if (r.warnings.length > 0) {
    out.push("");
    out.push("Warnings:");
    for (const warning of r.warnings) out.push(`  ! ${warning.code}: ${warning.message}`);
  }
  if (r.feasible || (options.force === true && r.forceable)) {
    out.push("");
    out.push("cuzk.toml:");
    out.push(indent(emitCuzkToml(r, { force: true, reasonComments: false }).trimEnd(), 2));
  }
  return `${out.join("\n")}\n`;
}
