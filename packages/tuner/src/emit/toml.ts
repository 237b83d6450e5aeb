import { describeHardware, formatBytes } from "@cuzkit/core";
import { stringify } from "smol-toml";
import type { Recommendation } from "../recommend.js";
import { assertEmittable, type EmitOptions, forcedNotice } from "./guard.js";
import { wrapComment } from "./wrap.js";

/** Options of emitCuzkToml(). */
export interface TomlEmitOptions extends EmitOptions {
  /** Write each setting's reason as a comment above the keys. Default true. */
  reasonComments?: boolean | undefined;
}

/**
 * cuzk.toml for the recommendation: only the keys its dialect reads, sizes in integer GiB,
 * with the reasons as comments. Throws UnsafeConfigError when infeasible unless `force`.
 */
export function emitCuzkToml(recommendation: Recommendation, options: TomlEmitOptions = {}): string {
  assertEmittable(recommendation, options);
  const p = recommendation.predicted;
  const header = [
    `cuzk.toml for the ${recommendation.dialect} daemon, written by cuzkit tune (workload ${recommendation.workload.name}).`,
    `Machine: ${describeHardware(recommendation.hardware)}.`,
    `Predicted: ${p.proofsPerHour.toFixed(1)} proofs/hour, peak ${formatBytes(p.peakMemoryBytes)} (${p.governingPhase}) of ${formatBytes(p.allowedPeakBytes)} allowed. A model predicts; a benchmark decides.`,
    `Run the benchmark at concurrency ${recommendation.bench.concurrency}; warmup: ${recommendation.warmup.steps.join(" ")}`,
  ];
  const forced = forcedNotice(recommendation);
  if (forced) header.unshift(forced);
  const reasons = (options.reasonComments === false ? [] : recommendation.reasons)
    .filter((reason) => reason.about.includes("."))
    .map((reason) => `${reason.about} = ${reason.text}`);
  const comments = [...header, ...(reasons.length > 0 ? ["", ...reasons] : [])].flatMap((line) =>
    line === "" ? ["#"] : wrapComment(line),
  );
  return `${comments.join("\n")}\n\n${stringify(recommendation.config)}\n`;
}
