import type { CircuitId, ProofKind } from "../vocabulary.js";

// Every constant of the daemon model, with its unit and where it comes from.
// "measured" = measured on the cuzk developers' box (RTX 5070 Ti, 96-core/192-thread Zen4,
// 512 GiB DDR5), shared/reference/cuzk-daemon.md section 4; "code" = read from the daemon's
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
    "measured: peak RSS grows ~16-20 GiB per concurrently synthesizing PoRep partition (Curio doc: 69 + 20 x pw GiB)",
  ),
  porepPartitionGpuStageBytes: c(
    4 * GiB,
    "bytes",
    "measured: ~4 GiB per partition left after prove_start, while the GPU works on it",
  ),
  inFlightProofBytes: c(
    1.5 * GiB,
    "bytes",
    "fitted: residual of the 512 GiB pw=12 j=20 peak (373-400 GiB); parsed C1 input and assembler state per proof in flight",
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
  porepSynthesisAloneSec: c(29, "s", "measured: ~29 s to synthesize one partition alone on 192 threads"),
  synthesisContentionPerPartition: c(
    0.048,
    "ratio",
    "fitted: each extra concurrent partition slows every synthesis by 4.8% (memory bandwidth); reproduces 152/53/42/38 s per proof at pw 2/7/10/12",
  ),
  porepSynthesisCpuCost: c(
    700,
    "vCPU-s",
    "derived: one PoRep synthesis costs ~7,000-7,800 vCPU-s (192 threads x ~37 s per proof at steady state; 142 cores x 54.7 s alone), i.e. ~700 per partition",
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
  gpuKernelSecAt3090: c(
    2.24,
    "s",
    "derived: 1.82 s/partition of CUDA kernels on the 5070 Ti (F=1.23), scaled to the RTX 3090 (F=1.00)",
  ),
  gpuLoadInflation: c(
    1.5,
    "ratio",
    "measured: GPU time per partition inflates ~1.5x under load (4.9 -> 7.5 s)",
  ),
  gpuHostSecPerPartition: c(
    2.4,
    "s",
    "measured: CPU critical path per partition on the GPU side (prep_msm 1.9 s + b_g2_msm 0.5 s)",
  ),
  perProofOverheadSec: c(
    3,
    "s",
    "assumed: C1 parse, proof assembly and the daemon's self-verification of one PoRep proof",
  ),
} as const satisfies Record<string, ModelConstant>;

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

/** Per-kind scale of a partition relative to a PoRep partition (constraints: PoRep 130.3M, WindowPoSt 125M, SnapDeals 81M, WinningPoSt 3.5M). Source: cuzk-daemon.md section 4. */
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
