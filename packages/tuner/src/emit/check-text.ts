import { describeHardware, formatBytes } from "@cuzkit/core";
import type { CheckResult } from "../check.js";

const value = (v: string | number | boolean | undefined) => (v === undefined ? "(unset)" : JSON.stringify(v));

/** The check explained for people: verdict, phases, keys the daemon ignores or misreads, changes. */
export function formatCheckText(result: CheckResult): string {
  const out: string[] = [];
  const verdict = result.ok ? "OK" : result.oom ? `WOULD OOM (${result.oomPhase})` : "PROBLEMS";
  out.push(`cuzkit tune --check: ${verdict}`);
  out.push(`Machine: ${describeHardware(result.recommendation.hardware)}`);
  out.push(
    `Read as the ${result.dialect} daemon (--dialect; default the current daemon); checked at ${result.concurrency} proof(s) in flight (${result.concurrencySource}; set --concurrency to check yours).`,
  );
  const budget =
    result.runs.budgetBytes === undefined ? "" : `, budget ${formatBytes(result.runs.budgetBytes)}`;
  out.push(
    `It will run ${result.runs.synthesizingPartitions} partition(s) synthesizing at once (limited by ${result.runs.limitedBy}${budget}).`,
  );
  const recommended = result.recommendation.feasible
    ? `${result.recommendation.predicted.proofsPerHour.toFixed(1)} proofs/hour`
    : "none fits";
  out.push(
    result.predicted
      ? `Modelled: ${result.predicted.proofsPerHour.toFixed(1)} proofs/hour as configured; recommended config: ${recommended}.`
      : `Modelled: no throughput as configured (the model expects it to ${result.oom ? "be OOM-killed" : "stall"}); recommended config: ${recommended}.`,
  );
  out.push("");
  out.push(
    `Phases (usable ${formatBytes(result.usableRamBytes)}, ${formatBytes(result.allowedPeakBytes)} with the margin):`,
  );
  for (const phase of result.phases) {
    const mark = phase.oom ? "OOM " : phase.tight ? "tight" : "ok  ";
    out.push(
      `  [${mark}] ${phase.phase} (${phase.severity}): ${formatBytes(phase.peakBytes)} - ${phase.explanation}`,
    );
  }
  if (result.problems.length > 0) {
    out.push("");
    out.push("Problems:");
    for (const problem of result.problems) out.push(`  ! ${problem}`);
  }
  if (result.notes.length > 0) {
    out.push("");
    out.push("Notes:");
    for (const note of result.notes) out.push(`  - ${note}`);
  }
  if (result.changes.length > 0) {
    out.push("");
    out.push("Change:");
    for (const change of result.changes) {
      out.push(`  ${change.key}: ${value(change.current)} -> ${value(change.recommended)}`);
    }
  }
  return `${out.join("\n")}\n`;
}
