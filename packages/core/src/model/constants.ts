import type { CircuitId, ProofKind } from "../vocabulary.js";

// Every constant of the daemon model, with its unit and where it comes from.
// "measured" = measured on the cuzk developers' box (RTX 5070 Ti, 96-core/192-thread Zen4,
// 512 GiB DDR5), docs/daemon-facts.md section 4; "code" = read from the daemon's
// source; "derived" = arithmetic on those; "fitted" = chosen so the model reproduces the
// calibration points listed in model.test.ts.

/** One constant: its value, unit and source. */
export interface ModelConstant {
  readonly value: number;
  readonly unit: "bytes" | "s" | "vCPU-s" | "ratio" | "count";
  readonly source: string;
}

const GiB = 1024 ** 3;
const c = (value: number, unit: ModelConstant["unit"], source: string): ModelConstant => ({
  value,
  unit,
  source,
});

/** Scalar constants of the model. */
export const modelConstants = {
  // Memory
  porepPartitionSynthesisBytes: c(
    20 * GiB,
    "bytes",
    "measured: peak RSS grows ~20 GiB per concurrently synthesizing PoRep partition from 2 to 7 partitions (69 + 20 x pw GiB); the slope of the envelope there",
  ),
  porepEnvelopeSlopeAboveMeasuredBytes: c(
    ((510 - 209) / 9) * GiB,
    "bytes",
    "derived, extrapolated: above the 16 partitions measured, the average measured slope from 7 to 16 ((510 - 209) / 9 GiB per partition)",
  ),
  porepEnvelopeInFlightBaseline: c(
    5,
    "count",
    "measured: the envelope points were taken with 5 proofs in flight (pw 12-16 with up to 20); more proofs add their per-proof state",
  ),
  porepPartitionGpuStageBytes: c(
    0,
    "bytes",
    "derived: nothing beyond the envelope. A partition on a GPU holds ~4 GiB after prove_start (measured), but the envelope's 20 GiB per synthesizing partition was measured with partitions flowing through the GPU stage, so it includes them; at pw10, 2 GPU workers peaked lower (271 GiB) than 1 (310 GiB)",
  ),
  inFlightProofBytes: c(
    1.5 * GiB,
    "bytes",
    "measured: 373 GiB with 5 and 400 GiB with 20 proofs in flight at pw 12 (~1.8 GiB per proof); parsed C1 input and assembler state",
  ),
  pceExtractionTransientBytes: c(
    14 * GiB,
    "bytes",
    "code: memory.rs reserves 14 GiB while a PCE is extracted after the first proof of a kind",
  ),
  budgetPorepPartitionBytes: c(
    14 * GiB,
    "bytes",
    "code: the current daemon reserves 14 GiB per PoRep partition (measured use is ~20 GiB)",
  ),
  budgetDivisorBytes: c(
    14 * GiB,
    "bytes",
    "code: synthesis worker pool W = max(2, min(floor(B / 14 GiB), max_parallel_synthesis))",
  ),
  budgetDefaultMaxParallelSynthesis: c(
    18,
    "count",
    "code: pipeline.max_parallel_synthesis default (0 means 18)",
  ),
  budgetMinimumWorkers: c(2, "count", "code: W is never below 2"),
  batchPorepPeakBytes: c(
    360 * GiB,
    "bytes",
    "measured: a 2-sector PoRep batch peaked at ~360 GiB (scheduler.max_batch_size = 2)",
  ),
  // Timing (PoRep 32 GiB, per partition)
  porepSynthesisAloneSec: c(
    29,
    "s",
    "measured: ~29 s to synthesize one partition alone; pw1 = 10 x 29 s = 290 s per proof exactly",
  ),
  synthesisContentionPerPartition: c(
    0.038,
    "ratio",
    "fitted: each extra concurrent partition slows every synthesis by 3.8% (DDR5 bandwidth); with the GPU floor it reproduces 290/152/68.4/53.3/45.4/42.5 s per proof at pw 1/2/5/7/10/12 within 2%",
  ),
  partitionThreads: c(
    1,
    "count",
    "code: synthesize_partition passes one circuit and bellperson parallelises only across circuits, so one partition synthesizes on about one thread",
  ),
  smtThreadsPerCore: c(
    2,
    "count",
    "assumed: two hardware threads per physical core; about one physical core per synthesizing partition is the working limit (gpu-throughput.md section 1)",
  ),
  porepCpuSecPerPartition: c(
    90,
    "vCPU-s",
    "derived: ~29-37 vCPU-s synthesis + prep_msm ~1.9 s + b_g2_msm ~1.7 s on a 32-thread pool; 60-100 vCPU-s per partition (gpu-throughput.md section 1)",
  ),
  coldSynthesisFactor: c(1.42, "ratio", "measured: synthesis without a PCE cache 50.4 s vs 35.5 s with it"),
  pceExtractionSec: c(
    47,
    "s",
    "measured: PoRep PCE extraction takes ~47 s, in the background after the first proof",
  ),
  srsLoadSec: c(
    60,
    "s",
    "measured: loading the PoRep parameters takes 15 s (cuzk box) to 30-90 s (Curio doc); 60 s assumed",
  ),
  gpuKernelSecAtAnchor: c(
    3.7,
    "s",
    "fitted to the measured curve: GPU stage per partition on the RTX 5070 Ti under load with 2 workers (Phase 8 measured 3.75 s; pw 12-16 gave nothing more than ~37.5-42.5 s per proof)",
  ),
  gpuAnchorSpeedFactor: c(
    1.23,
    "ratio",
    "derived: speed factor of the RTX 5070 Ti, the only GPU cuzk was measured on (gpu-throughput.md section 4); other GPUs scale by this / F",
  ),
  gpuHostSecPerPartition: c(
    0.7,
    "s",
    "fitted: CPU part of the GPU stage not hidden with one GPU worker per device (pw7 53.3 s with gw1 vs 51.2 s with gw2; pw10 45.4 vs 42.5); a second worker hides half, more workers were not measured",
  ),
  boundSharpness: c(
    8,
    "ratio",
    "fitted: seconds per proof = (synthesis^n + GPU^n + CPU^n)^(1/n) with n = 8: partitions reach the GPU in bursts, so the curve bends into the GPU floor instead of meeting it at a corner",
  ),
  perProofOverheadSec: c(
    3,
    "s",
    "assumed: C1 parse, proof assembly and the daemon's self-verification of one PoRep proof",
  ),
} as const satisfies Record<string, ModelConstant>;

/**
 * Peak RSS of the daemon by concurrently synthesizing PoRep partitions, measured on the cuzk
 * developers' box (1x RTX 5070 Ti, 192 threads, PoRep parameters and PCE resident, 5-20
 * proofs in flight; docs/daemon-facts.md section 4). Where the source gives a range, the upper end
 * (pw 10: 271 with gw=2 / 310 with gw=1; pw 12: 373 with 5 / 400 with 20 in flight). Between
 * the points the model interpolates linearly; 2-7 is the measured law 69 + 20 x pw GiB.
 */
export const porepMeasuredPeakGiB: readonly (readonly [partitions: number, peakGiB: number])[] = [
  [1, 104],
  [2, 109],
  [7, 209],
  [10, 310],
  [12, 400],
  [14, 457],
  [16, 510],
];

/** Seconds per PoRep proof measured on the same box, by partition_workers (cuzk-project.md ~l.1797-1812). */
export const porepMeasuredSecPerProof: readonly (readonly [partitions: number, secPerProof: number])[] = [
  [1, 290],
  [2, 152],
  [5, 68.4],
  [7, 53.3],
  [10, 45.4],
  [12, 42.5],
];

/** The measured box: the only hardware every measured figure comes from. */
export const measuredBox = { cpuThreads: 192, gpuModel: "RTX 5070 Ti", gpus: 1, ramGiB: 512 } as const;

/** Parameter (SRS) file size per circuit, resident while a kind runs. Source: srs_manager.rs comments, `ls -lh` of the files. */
export const srsBytes: Record<CircuitId, number> = {
  "porep-32g": 44 * GiB,
  "porep-64g": 44 * GiB,
  "wpost-32g": 57 * GiB,
  "winning-32g": 0.18 * GiB,
  "snap-32g": 33 * GiB,
  "snap-64g": 33 * GiB,
};

/** Resident PCE (pre-compiled constraint evaluator) per circuit. Source: cuzk-memory-manager.md 1.4; PoRep fitted to the measured 69 GiB idle RSS with SRS+PCE. */
export const pceBytes: Record<CircuitId, number> = {
  "porep-32g": 25 * GiB,
  "porep-64g": 25 * GiB,
  "wpost-32g": 26 * GiB,
  "winning-32g": 0.4 * GiB,
  "snap-32g": 17 * GiB,
  "snap-64g": 17 * GiB,
};

/** Per-kind scale of a partition relative to a PoRep partition (constraints: PoRep 130.3M, WindowPoSt 125M, SnapDeals 81M, WinningPoSt 3.5M). Source: docs/daemon-facts.md section 4. */
export const partitionScale: Record<ProofKind, number> = {
  porep: 1,
  wpost: 125 / 130.3,
  snap: 81 / 130.3,
  winning: 3.5 / 130.3,
};

/** What the current daemon reserves from its budget per partition of each kind (code: memory.rs). */
export const budgetPartitionBytes: Record<ProofKind, number> = {
  porep: 14 * GiB,
  wpost: 14 * GiB,
  snap: 9 * GiB,
  winning: 0.5 * GiB,
};

/** Measured WinningPoSt end to end: synthesis 52 ms, GPU 666 ms (cuzk-project.md section 14). */
export const winningPostSec = { synthesis: 0.052, gpu: 0.666 } as const;
