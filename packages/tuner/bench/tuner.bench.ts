// pnpm bench:tuner: the tuner against an independent yardstick, the measured numbers
// themselves (bench/measured-envelope.ts), not the model it searches:
//   1. the model's error at each measured point (seconds per proof and peak memory);
//   2. on a matrix of machines, the tuner's choice against the best partition count the
//      measured envelope allows there: the fraction of the achievable proofs/hour, and
//      whether the envelope's peak for the tuner's choice stays within the usable RAM.
// Exits 1 below 90% of the achievable on any machine, on any unsafe choice, or on a model
// error above 10% at a measured point.

import {
  type DaemonConfig,
  type DaemonDialect,
  defaultDaemonConfig,
  GiB,
  type HardwareSpec,
  hardwareFrom,
  incidentDaemonConfig,
  modelDaemon,
} from "@cuzkit/core";
import { resolveTuneOptions, safetyMarginBytes } from "../src/options.js";
import { recommend } from "../src/recommend.js";
import {
  envelopePeakBytes,
  envelopeProofsPerHour,
  maxMeasuredPartitions,
  measuredPeakGiB,
  measuredSecPerProof,
} from "./measured-envelope.js";

const minRatio = 0.9;
const maxModelError = 0.1;
const started = performance.now();
const pad = (text: string, width: number) =>
  text.length >= width ? text : text + " ".repeat(width - text.length);
const line = (cols: string[], widths: number[]) => cols.map((c, i) => pad(c, widths[i] ?? 10)).join(" ");
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

// 1. Model error at each measured point, on the measured box.
const box = hardwareFrom({ ram: "768GiB", cores: 192, gpus: "1xRTX5070Ti" });
const pw = (partitions: number, gw: number): DaemonConfig => ({
  ...defaultDaemonConfig("partition-workers"),
  partitionWorkers: partitions,
  gpuWorkersPerDevice: gw,
});
let worstModelError = 0;
console.log("Model vs measured (1x RTX 5070 Ti, 192 threads; partition-workers daemon, 5 proofs in flight):");
const errWidths = [12, 16, 14, 10];
console.log(line(["partitions", "measured s/proof", "model s/proof", "error"], errWidths));
for (const [p, sec] of measuredSecPerProof.filter(([p]) => p <= 12)) {
  const model = modelDaemon(box, pw(p, p >= 12 ? 2 : 1), { kind: "porep", concurrency: 5 }).timing
    .secPerProof;
  const error = (model - sec) / sec;
  worstModelError = Math.max(worstModelError, Math.abs(error));
  console.log(line([`${p}`, sec.toFixed(1), model.toFixed(1), pct(error)], errWidths));
}
console.log("");
console.log(line(["partitions", "measured GiB", "model GiB", "error"], errWidths));
// The measured points as published: 104 at 1, 69 + 20 p for 2-7, 271-310 at 10 (gw2/gw1),
// 373 (5 in flight) - 400 (20 in flight) at 12, 457 and 510 at 14 and 16 (20 in flight).
const memoryPoints: [number, number, number, number][] = [
  [1, 104, 104, 5],
  [2, 109, 110, 5],
  [7, 208, 209, 5],
  [10, 271, 310, 5],
  [12, 373, 400, 5],
  [14, 457, 457, 20],
  [16, 510, 510, 20],
];
for (const [p, low, high, inFlight] of memoryPoints) {
  const model =
    modelDaemon(box, pw(p, 2), { kind: "porep", concurrency: inFlight }).memory.steady.peakBytes / GiB;
  const error = model < low ? (model - low) / low : model > high ? (model - high) / high : 0;
  worstModelError = Math.max(worstModelError, Math.abs(error));
  console.log(
    line([`${p}`, low === high ? `${low}` : `${low}-${high}`, model.toFixed(1), pct(error)], errWidths),
  );
}
console.log(`(${measuredPeakGiB.length} envelope points; 2-7 is the measured law 69 + 20 p.)`);
console.log("");

// 2. The tuner's choice on a matrix of machines against the best the envelope allows.
interface Machine {
  name: string;
  hw: HardwareSpec;
}
function machine(
  name: string,
  ram: string,
  cores: number,
  gpus: string,
  limit?: { memory: string; hostThreads: number },
): Machine {
  const hw = hardwareFrom({ ram, cores, gpus, ...(limit ? { memoryLimit: limit.memory } : {}) });
  return { name, hw: limit ? { ...hw, hostCpuThreads: limit.hostThreads } : hw };
}
const machines: Machine[] = [
  machine("H200 VM (16 vCPU, 126G)", "126GiB", 16, "1xH200"),
  machine("BC Canada (125 GB)", "125GB", 32, "2xRTX3090"),
  machine("cuzk box 128G", "128GiB", 192, "1xRTX5070Ti"),
  machine("160G A40", "160GiB", 32, "1xA40"),
  machine("192G 2x4090", "192GiB", 64, "2xRTX4090"),
  machine("200G 3080 (10 GB VRAM)", "200GiB", 40, "1xRTX3080"),
  machine("Czechia (251 GB) 2x3090", "251GB", 32, "2xRTX3090"),
  machine("251G 48 thr 2x3090", "251GiB", 48, "2xRTX3090"),
  machine("cuzk box 256G", "256GiB", 192, "1xRTX5070Ti"),
  machine("256G 2x4090 (seed 003)", "256GiB", 64, "2xRTX4090"),
  machine("256G 4xT4", "256GiB", 48, "4xT4"),
  machine("Vast 2T, 251G low, 32/384", "2TiB", 32, "2xRTX3090", { memory: "251GiB", hostThreads: 384 }),
  machine("512G, 300G limit, 2xL40S", "512GiB", 48, "2xL40S", { memory: "300GiB", hostThreads: 96 }),
  machine("cuzk box 384G", "384GiB", 192, "1xRTX5070Ti"),
  machine("384G 2xA100", "384GiB", 96, "2xA100"),
  machine("cuzk box 512G", "512GiB", 192, "1xRTX5070Ti"),
  machine("512G 4x4090", "512GiB", 128, "4xRTX4090"),
  machine("512G 16 thr 2x4090", "512GiB", 16, "2xRTX4090"),
  machine("768G 8x3090", "768GiB", 128, "8xRTX3090"),
  machine("1T 4x5090", "1TiB", 256, "4xRTX5090"),
  machine("Vast 1T, 120G, 16/128", "1TiB", 16, "1xRTX4090", { memory: "120GiB", hostThreads: 128 }),
  machine("1.5T, 700G limit, 4xH200", "1536GiB", 128, "4xH200", { memory: "700GiB", hostThreads: 256 }),
  machine("Belgium 2T 2xA40", "2TiB", 256, "2xA40"),
  machine("2T 8xH100", "2TiB", 256, "8xH100"),
];
const dialects: DaemonDialect[] = ["budget", "partition-workers"];

interface Cell {
  text: string;
  ratio?: number;
  unsafe: boolean;
  miss: boolean;
}

function judge(hw: HardwareSpec, dialect: DaemonDialect): Cell {
  const options = resolveTuneOptions({ dialect });
  const allowed = hw.usableRamBytes - safetyMarginBytes(hw.usableRamBytes, options);
  const reExtracts = dialect === "budget";
  const minP = dialect === "budget" ? 2 : 1;
  // The best partition count the measured envelope allows here.
  let best = 0;
  let bestP = 0;
  for (let p = minP; p <= maxMeasuredPartitions; p++) {
    if (envelopePeakBytes(p, reExtracts) > allowed) break;
    const pph = envelopeProofsPerHour(hw, p);
    if (pph > best + 1e-9) {
      best = pph;
      bestP = p;
    }
  }
  const rec = recommend(hw, { dialect });
  if (!rec.feasible) {
    return best > 0
      ? { text: `tuner none, envelope p${bestP} ${best.toFixed(1)}`, ratio: 0, unsafe: false, miss: true }
      : { text: "infeasible (both)", unsafe: false, miss: false };
  }
  // What the tuner's config runs: partitions at the tuned concurrency (throughput) and with
  // Curio's MaxPending in flight (memory).
  const running = rec.predicted.synthesizingPartitions;
  const sized = modelDaemon(hw, rec.daemonConfig, {
    kind: "porep",
    concurrency: rec.predicted.sizedForProofs,
  });
  const peakP = Math.max(sized.memory[sized.governingPhase].synthesizingPartitions, running);
  const envelopePeak = envelopePeakBytes(peakP, reExtracts);
  const unsafe = envelopePeak > hw.usableRamBytes;
  const achieved = envelopeProofsPerHour(hw, running);
  if (best === 0) {
    return {
      text: `p${running}: envelope none${hw.gpus.length === 0 ? " (no GPU)" : ""}`,
      unsafe,
      miss: false,
    };
  }
  const ratio = achieved / best;
  const beyond = peakP > maxMeasuredPartitions ? "*" : "";
  return {
    text: `p${running}${beyond} ${achieved.toFixed(1)}/${best.toFixed(1)} (p${bestP}) ${pct(ratio)} env ${Math.round(envelopePeak / GiB)}G${unsafe ? " UNSAFE" : ""}`,
    ratio,
    unsafe,
    miss: ratio < minRatio,
  };
}

function fixedOom(hw: HardwareSpec, config: DaemonConfig, reExtracts: boolean): boolean {
  const model = modelDaemon(hw, config, { kind: "porep", concurrency: 6 });
  const partitions = model.memory[model.governingPhase].synthesizingPartitions;
  return envelopePeakBytes(partitions, reExtracts) > hw.usableRamBytes;
}

const widths = [27, 15, 8, 13, 44, 44];
console.log(
  "Tuner vs the measured envelope: cells are the partitions the tuner's config runs, the envelope's proofs/hour for " +
    "them / the best the envelope allows within the usable RAM minus the 10% margin (its partition count), the ratio, " +
    "and the envelope's peak for the tuner's choice (with the 14 GiB re-extraction for budget). * = beyond 16 partitions " +
    "(the envelope is then extended at 33.4 GiB per partition).",
);
console.log("");
console.log(line(["machine", "usable/host RAM", "thr", "GPUs", "budget", "partition-workers"], widths));
console.log(
  line(
    widths.map((w) => "-".repeat(w)),
    widths,
  ),
);
let minSeen = Number.POSITIVE_INFINITY;
let unsafeCount = 0;
let misses = 0;
let compared = 0;
let incidentOoms = 0;
let autoOoms = 0;
for (const { name, hw } of machines) {
  const cells = dialects.map((dialect) => judge(hw, dialect));
  for (const cell of cells) {
    if (cell.ratio !== undefined) {
      compared++;
      minSeen = Math.min(minSeen, cell.ratio);
    }
    if (cell.unsafe) unsafeCount++;
    if (cell.miss) misses++;
  }
  if (fixedOom(hw, incidentDaemonConfig(), false)) incidentOoms++;
  if (fixedOom(hw, defaultDaemonConfig("budget"), true)) autoOoms++;
  const counts = new Map<string, number>();
  for (const gpu of hw.gpus) counts.set(gpu.model, (counts.get(gpu.model) ?? 0) + 1);
  const gpus = [...counts].map(([m, n]) => `${n}x${m.replace(/\s+/g, "")}`).join(",") || "none";
  const ram =
    hw.usableRamBytes < hw.ramBytes
      ? `${Math.round(hw.usableRamBytes / GiB)}/${Math.round(hw.ramBytes / GiB)} GiB`
      : `${Math.round(hw.ramBytes / GiB)} GiB`;
  const threads =
    hw.cpuThreads < (hw.hostCpuThreads ?? hw.cpuThreads)
      ? `${hw.cpuThreads}/${hw.hostCpuThreads}`
      : `${hw.cpuThreads}`;
  console.log(line([name, ram, threads, gpus, cells[0]?.text ?? "", cells[1]?.text ?? ""], widths));
}
console.log("");
const seconds = ((performance.now() - started) / 1000).toFixed(1);
console.log(
  `Summary: model error at the measured points at most ${pct(worstModelError)} (target <= ${pct(maxModelError)}); ` +
    `${machines.length} machines x ${dialects.length} dialects, ${compared} comparable: lowest ${Number.isFinite(minSeen) ? pct(minSeen) : "n/a"} ` +
    `of the envelope's achievable (target >= ${pct(minRatio)}), ${misses} below; unsafe choices (envelope peak over the usable RAM): ${unsafeCount}. ` +
    `Under the envelope, the incidents' pw16 config at concurrency 6 would OOM on ${incidentOoms}/${machines.length} machines and ` +
    `the current daemon's auto budget on ${autoOoms}/${machines.length}. ${seconds} s.`,
);
if (misses > 0 || unsafeCount > 0 || worstModelError > maxModelError) {
  console.error(`FAIL: ${misses} below target, ${unsafeCount} unsafe, model error ${pct(worstModelError)}`);
  process.exitCode = 1;
}
