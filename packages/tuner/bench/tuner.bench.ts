// pnpm bench:tuner: the tuner against an exhaustive search over the same model, and against
// the settings the incidents ran, on a fixed matrix of machines. Prints a table and a
// summary; exits 1 when the tuner is below 97% of the optimum anywhere or unsafe anywhere.

import {
  type DaemonConfig,
  type DaemonDialect,
  defaultDaemonConfig,
  formatBytes,
  GiB,
  type HardwareSpec,
  hardwareFrom,
  incidentDaemonConfig,
  modelDaemon,
} from "@cuzkit/core";
import { resolveTuneOptions, safetyMarginBytes } from "../src/options.js";
import { recommend } from "../src/recommend.js";
import { bruteForce, type Grid } from "./brute-force.js";

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
  machine("small 3090", "64GiB", 16, "1xRTX3090"),
  machine("96G 4090", "96GiB", 24, "1xRTX4090"),
  machine("BC Canada (125 GB)", "125GB", 32, "2xRTX3090"),
  machine("cuzk box 128G", "128GiB", 192, "1xRTX5070Ti"),
  machine("160G A40", "160GiB", 32, "1xA40"),
  machine("192G 2x4090", "192GiB", 64, "2xRTX4090"),
  machine("Czechia (251 GB)", "251GB", 32, "2xRTX3090"),
  machine("cuzk box 256G", "256GiB", 192, "1xRTX5070Ti"),
  machine("256G 2x4090 (seed 003)", "256GiB", 64, "2xRTX4090"),
  machine("cuzk box 384G", "384GiB", 192, "1xRTX5070Ti"),
  machine("cuzk box 512G", "512GiB", 192, "1xRTX5070Ti"),
  machine("512G 4x4090", "512GiB", 128, "4xRTX4090"),
  machine("768G 8x3090", "768GiB", 128, "8xRTX3090"),
  machine("1T 4x5090", "1TiB", 256, "4xRTX5090"),
  machine("Vast 2T, 251G low, 32/384", "2TiB", 32, "2xRTX3090", { memory: "251GiB", hostThreads: 384 }),
  machine("Belgium 2T 2xA40", "2TiB", 256, "2xA40"),
  machine("2T 8xH100", "2TiB", 256, "8xH100"),
  machine("Vast 1T, 120G, 16/128", "1TiB", 16, "1xRTX4090", { memory: "120GiB", hostThreads: 128 }),
  machine("512G, 300G limit, 2xL40S", "512GiB", 48, "2xL40S", { memory: "300GiB", hostThreads: 96 }),
  machine("256G 4xT4", "256GiB", 48, "4xT4"),
  machine("384G 2xA100", "384GiB", 96, "2xA100"),
  machine("64G no GPU", "64GiB", 16, "none"),
  machine("1.5T, 700G limit, 4xH200", "1536GiB", 128, "4xH200", { memory: "700GiB", hostThreads: 256 }),
  machine("200G 3080 (10 GB VRAM)", "200GiB", 40, "1xRTX3080"),
];

const grid: Grid = { maxSynthesisParallelism: 64, maxGpuWorkersPerDevice: 6, maxConcurrency: 16 };
const dialects: DaemonDialect[] = ["budget", "partition-workers"];
const minRatio = 0.97;
const incidentConcurrency = 6;

interface Cell {
  text: string;
  ok: boolean;
  ratio?: number;
  unsafe: boolean;
}

function tunerVsExhaustive(hw: HardwareSpec, dialect: DaemonDialect): Cell {
  const rec = recommend(hw, { dialect });
  const best = bruteForce(hw, dialect, {}, grid);
  const options = resolveTuneOptions({ dialect });
  const allowed = hw.usableRamBytes - safetyMarginBytes(hw.usableRamBytes, options);
  let unsafe = false;
  if (rec.feasible) {
    const model = modelDaemon(hw, rec.daemonConfig, {
      ...options.workload,
      concurrency: rec.bench.concurrency,
    });
    unsafe =
      Math.max(model.peakBytes, model.memory.warmup.peakBytes) > allowed ||
      rec.warmup.peakMemoryBytes > allowed;
  }
  if (!rec.feasible && !best) return { text: "infeasible (both)", ok: true, unsafe };
  if (!rec.feasible) return { text: `tuner none, best ${best?.proofsPerHour.toFixed(1)}`, ok: false, unsafe };
  const tuner = rec.predicted.proofsPerHour;
  const reference = best?.proofsPerHour ?? 0;
  const ratio = reference > 0 ? tuner / reference : tuner > 0 ? Number.POSITIVE_INFINITY : 1;
  const knobs =
    dialect === "budget"
      ? `mps${rec.daemonConfig.maxParallelSynthesis}`
      : `pw${rec.daemonConfig.partitionWorkers}`;
  return {
    text: `${tuner.toFixed(1)} / ${reference.toFixed(1)} ${(ratio * 100).toFixed(1)}% ${knobs} gw${rec.daemonConfig.gpuWorkersPerDevice} c${rec.bench.concurrency}${unsafe ? " UNSAFE" : ""}`,
    ok: ratio >= minRatio && !unsafe,
    ratio,
    unsafe,
  };
}

function fixedConfig(hw: HardwareSpec, config: DaemonConfig): { text: string; oom: boolean } {
  const model = modelDaemon(hw, config, { kind: "porep", concurrency: incidentConcurrency });
  const peak = Math.max(model.peakBytes, model.memory.warmup.peakBytes);
  const oom = peak > hw.usableRamBytes;
  return {
    text: oom
      ? `OOM ${formatBytes(peak, 0)}`
      : `${model.timing.proofsPerHour.toFixed(1)} (${formatBytes(peak, 0)})`,
    oom,
  };
}

function pad(text: string, width: number): string {
  return text.length >= width ? text : text + " ".repeat(width - text.length);
}

const started = performance.now();
const header = [
  "machine",
  "usable/host RAM",
  "thr",
  "GPUs",
  "budget: tuner / exhaustive p/h",
  "partition-workers: tuner / exhaustive p/h",
  "pw16 gw2 gt32 c6",
  "auto budget c6",
];
const widths = [26, 17, 8, 12, 36, 36, 18, 18];
const rows: string[][] = [];
let misses = 0;
let unsafeCount = 0;
let cells = 0;
let minSeen = Number.POSITIVE_INFINITY;
let incidentOoms = 0;
let autoOoms = 0;
let infeasible = 0;

for (const { name, hw } of machines) {
  const results = dialects.map((dialect) => tunerVsExhaustive(hw, dialect));
  for (const cell of results) {
    cells++;
    if (!cell.ok) misses++;
    if (cell.unsafe) unsafeCount++;
    if (cell.ratio !== undefined) minSeen = Math.min(minSeen, cell.ratio);
    if (cell.text.startsWith("infeasible")) infeasible++;
  }
  const incident = fixedConfig(hw, incidentDaemonConfig());
  const auto = fixedConfig(hw, defaultDaemonConfig("budget"));
  if (incident.oom) incidentOoms++;
  if (auto.oom) autoOoms++;
  const gpuCounts = new Map<string, number>();
  for (const gpu of hw.gpus) gpuCounts.set(gpu.model, (gpuCounts.get(gpu.model) ?? 0) + 1);
  const gpus =
    gpuCounts.size === 0 ? "none" : [...gpuCounts].map(([m, n]) => `${n}x${m.replace(/\s+/g, "")}`).join(",");
  const ram =
    hw.usableRamBytes < hw.ramBytes
      ? `${Math.round(hw.usableRamBytes / GiB)}/${Math.round(hw.ramBytes / GiB)} GiB`
      : `${Math.round(hw.ramBytes / GiB)} GiB`;
  const threads =
    hw.cpuThreads < (hw.hostCpuThreads ?? hw.cpuThreads)
      ? `${hw.cpuThreads}/${hw.hostCpuThreads}`
      : `${hw.cpuThreads}`;
  rows.push([name, ram, threads, gpus, results[0]!.text, results[1]!.text, incident.text, auto.text]);
}

const line = (cols: string[]) => cols.map((c, i) => pad(c, widths[i] ?? 10)).join(" ");
console.log(
  `Tuner vs exhaustive search over the same model (grid: parallelism 1..${grid.maxSynthesisParallelism}, GPU workers 1..${grid.maxGpuWorkersPerDevice}, concurrency 1..${grid.maxConcurrency}; margin 10% of usable RAM, >= 4 GiB).`,
);
console.log(
  "Cells: tuner proofs/hour / exhaustive proofs/hour, ratio, chosen settings. Fixed configs: proofs/hour (modelled peak) or OOM.",
);
console.log("");
console.log(line(header));
console.log(line(widths.map((w) => "-".repeat(w))));
for (const row of rows) console.log(line(row));
console.log("");
const seconds = ((performance.now() - started) / 1000).toFixed(1);
console.log(
  `Summary: ${cells - misses}/${cells} machine-dialects at >= ${minRatio * 100}% of the exhaustive optimum ` +
    `(lowest ${Number.isFinite(minSeen) ? `${(minSeen * 100).toFixed(1)}%` : "n/a"}; ${infeasible} infeasible in both); ` +
    `unsafe: ${unsafeCount}; the incidents' hand-set config (pw16 gw2 gt32, concurrency ${incidentConcurrency}) would OOM on ` +
    `${incidentOoms}/${machines.length} machines, the current daemon's auto budget (mps 18, concurrency ${incidentConcurrency}) on ` +
    `${autoOoms}/${machines.length}. ${seconds} s.`,
);
if (misses > 0 || unsafeCount > 0) {
  console.error(`FAIL: ${misses} below target, ${unsafeCount} unsafe`);
  process.exitCode = 1;
}
