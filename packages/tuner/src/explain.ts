import {
  type DaemonModel,
  formatBytes,
  gpuSecPerPartition,
  type HardwareSpec,
  type MemoryEstimate,
  modelConstants,
  partitionScale,
  partitionsPerProof,
  proofKindLabel,
  slowestGpuFactor,
  synthesisSlots,
} from "@cuzkit/core";
import type { HardwareReadings } from "./detect/types.js";
import type { Knobs } from "./knobs.js";
import type { ResolvedTuneOptions } from "./options.js";
import { type SearchOutcome, type TimedEvaluation, throughputStep } from "./search.js";
import type { WarmupPlan } from "./warmup.js";

// Human sentences, with numbers, for every choice the tuner makes.

/** Why one setting has its value. */
export interface Reason {
  /** The setting: a cuzk.toml key (`pipeline.max_parallel_synthesis`) or `bench.concurrency`, `warmup`, `predicted`, `curio`. */
  about: string;
  /** The explanation, in sentences with numbers. */
  text: string;
}

const gib = (bytes: number) => formatBytes(bytes);
const sec = (seconds: number) => (Number.isFinite(seconds) ? `${seconds.toFixed(1)} s` : "n/a (no GPU)");

/** "44.0 GiB parameters + 25.0 GiB PCE + working set of 7 partitions 140.0 GiB (measured envelope) + ... = 209.0 GiB". */
export function memoryBreakdown(memory: MemoryEstimate, proofsInFlight: number): string {
  const parts: string[] = [`${gib(memory.srsBytes)} parameters`];
  const warmup = memory.phase === "warmup";
  if (!warmup && memory.pceBytes > 0) parts.push(`${gib(memory.pceBytes)} PCE`);
  if (!warmup && memory.transientBytes > 0) parts.push(`${gib(memory.transientBytes)} PCE extraction`);
  if (memory.synthesizingPartitions > 0) {
    parts.push(
      `working set of ${memory.synthesizingPartitions} partition(s) ${gib(memory.synthesisBytes)} (${memory.extrapolated ? "extrapolated beyond the measured envelope" : "measured envelope"})`,
    );
  }
  if (memory.gpuStageBytes > 0) {
    parts.push(`${gib(memory.gpuStageBytes)} GPU stage`);
  }
  if (memory.inFlightBytes > 0) {
    parts.push(
      `${gib(memory.inFlightBytes)} for proofs in flight beyond 5 (${Math.max(1, proofsInFlight)} in all)`,
    );
  }
  const total =
    memory.srsBytes +
    (warmup ? 0 : memory.pceBytes + memory.transientBytes) +
    memory.synthesisBytes +
    memory.gpuStageBytes +
    memory.inFlightBytes;
  const note =
    memory.peakBytes > total + 1
      ? ` (the peak, ${gib(memory.peakBytes)}, is ${warmup ? "the PCE extraction after the proof" : "a cross-sector batch"})`
      : "";
  return `${parts.join(" + ")} = ${gib(total)}${note}`;
}

/** Inputs of the explanation. */
export interface ExplainContext {
  hw: HardwareSpec;
  readings: HardwareReadings | undefined;
  options: ResolvedTuneOptions;
  outcome: SearchOutcome;
  chosen: TimedEvaluation;
  model: DaemonModel;
  warmup: WarmupPlan;
  curio: { maxPending: number; postSlots: number; proveTimeoutSec: number };
  /** Where the prediction leaves the measured range. */
  extrapolations: string[];
  /** The calibration applied to proofs/hour, when given. */
  calibration: ThroughputCalibrationLike | undefined;
}

/** The calibration fields the explanation reads. */
interface ThroughputCalibrationLike {
  proofsPerHourFactor: number;
  samples: number;
  source?: string | undefined;
}

function allowedText(ctx: ExplainContext, peakBytes: number): string {
  const source = ctx.readings ? ` (${ctx.readings.usableRamBytes.source})` : "";
  return (
    `${peakBytes <= ctx.outcome.allowedPeakBytes ? "under" : "OVER"} the ${gib(ctx.outcome.allowedPeakBytes)} allowed ` +
    `(${gib(ctx.hw.usableRamBytes)} usable${source} minus a ${gib(ctx.outcome.marginBytes)} safety margin)`
  );
}

/** What one more of a knob would do, in a sentence. */
function neighbourText(ctx: ExplainContext, knobs: Knobs, what: string): string {
  const next = ctx.outcome.evaluator.timed(knobs);
  if (!next.safe) {
    return `${what} would peak at ${gib(Math.max(next.peakBytes, next.memory.warmup.peakBytes))}, over the allowed ${gib(ctx.outcome.allowedPeakBytes)}.`;
  }
  const more = next.peakBytes - ctx.chosen.peakBytes;
  const memory = more > 0 ? ` and would hold ${gib(more)} more` : "";
  if (next.objective > ctx.chosen.objective * (1 + 1e-9)) {
    return throughputStep(next.objective) > throughputStep(ctx.chosen.objective)
      ? `${what} would be faster but is not chosen (${next.objective.toFixed(1)} proofs/hour).`
      : `${what} would give ${next.objective.toFixed(1)} proofs/hour, within the model's 2% resolution, so the smaller setting is kept.`;
  }
  return `${what} would not be faster (${bottleneckText(ctx)})${memory}.`;
}

function bottleneckText(ctx: ExplainContext): string {
  const t = ctx.chosen.timing;
  switch (t.bottleneck) {
    case "synthesis":
      return `the partitions synthesizing at once limit it (each on about one thread; memory caps how many): ${sec(t.synthesisSecPerProof)} per proof vs ${sec(t.gpuSecPerProof)} on the GPUs`;
    case "cpu":
      return `the CPU cores limit it (less than one physical core per partition, or all CPU work of a proof over the threads: ${sec(t.cpuSecPerProof)}): ${t.effectivePartitions} partition(s) at full speed`;
    case "gpu":
      return `the GPUs limit it: ${sec(t.gpuSecPerProof)} per proof vs ${sec(t.synthesisSecPerProof)} for the synthesis, so more partitions stop paying`;
    case "concurrency":
      return `too few proofs in flight limit it: one proof alone takes ${sec(t.singleProofSec)}`;
    case "no-gpu":
      return "there is no GPU";
    default:
      return "the daemon cannot schedule a partition";
  }
}

function synthesisReason(ctx: ExplainContext): Reason {
  const { chosen, options, hw } = ctx;
  const kind = options.workload.kind;
  const label = proofKindLabel[kind];
  const s = chosen.knobs.synthesisParallelism;
  const governing = chosen.memory[chosen.governingPhase];
  const partitions = governing.synthesizingPartitions;
  const next = neighbourText(ctx, { ...chosen.knobs, synthesisParallelism: s + 1 }, `${s + 1}`);
  const peak = `Modelled ${chosen.governingPhase} peak: ${memoryBreakdown(governing, chosen.knobs.concurrency)}, ${allowedText(ctx, governing.peakBytes)}.`;
  if (options.dialect === "partition-workers") {
    return {
      about: "synthesis.partition_workers",
      text: `${s}: up to ${s} ${label} partitions synthesize at once (${partitions} with ${chosen.knobs.concurrency} proof(s) in flight). ${peak} ${next}`,
    };
  }
  const uncapped = synthesisSlots(
    hw,
    { ...chosen.config, maxParallelSynthesis: modelConstants.budgetDefaultMaxParallelSynthesis.value },
    chosen.workload,
    chosen.knobs.concurrency,
    false,
  );
  return {
    about: "pipeline.max_parallel_synthesis",
    text:
      `${s}: caps the synthesis workers at ${s} partitions at once (${partitions} synthesize with ${chosen.knobs.concurrency} proof(s) in flight). ` +
      `Without the cap the daemon would run ${uncapped.partitions} (its default of ${modelConstants.budgetDefaultMaxParallelSynthesis.value} workers, ` +
      `${gib(modelConstants.budgetPorepPartitionBytes.value)} reserved per PoRep partition while ~${gib(modelConstants.porepPartitionSynthesisBytes.value)} and more above 7 is measured). ` +
      `This daemon re-extracts its PCE at every start, so the cold-start phase decides. ${peak} ${next}`,
  };
}

function budgetReason(ctx: ExplainContext): Reason | undefined {
  const { chosen, hw, readings } = ctx;
  if (ctx.options.dialect !== "budget" || chosen.config.totalBudgetBytes === "auto") return undefined;
  const host =
    hw.usableRamBytes < hw.ramBytes
      ? ` ("auto" would take the host's MemTotal, ${gib(hw.ramBytes)}${readings ? ` from ${readings.ramBytes.source}` : ""}, minus 5 GiB)`
      : "";
  return {
    about: "memory.total_budget",
    text:
      `${gib(chosen.config.totalBudgetBytes)}: the usable RAM minus the safety margin, rounded down to whole GiB, ` +
      `written explicitly so the daemon never sizes itself from the host RAM${host}. ` +
      "The budget alone does not keep the daemon safe: it reserves 14 GiB per partition while ~20 GiB is measured, so the cap on parallel synthesis does.",
  };
}

function gpuWorkersReason(ctx: ExplainContext): Reason {
  const { chosen, hw, options } = ctx;
  const g = chosen.knobs.gpuWorkersPerDevice;
  if (hw.gpus.length === 0) {
    return {
      about: "gpus.gpu_workers_per_device",
      text: `${g}: no GPU was found, so the value does not matter yet.`,
    };
  }
  const factor = slowestGpuFactor(hw);
  const scale = partitionScale[options.workload.kind];
  const at = (workers: number) => gpuSecPerPartition(factor, workers, scale);
  const compare =
    g > 1
      ? `the CPU part of the GPU stage (${modelConstants.gpuHostSecPerPartition.value} s per partition) overlaps the kernels: ${sec(at(g))} per partition instead of ${sec(at(g - 1))} with ${g - 1}`
      : `one worker per GPU takes ${sec(at(1))} per partition; ${sec(at(2))} with two`;
  const next = neighbourText(ctx, { ...chosen.knobs, gpuWorkersPerDevice: g + 1 }, `${g + 1} workers`);
  return {
    about: "gpus.gpu_workers_per_device",
    text: `${g}: ${compare}. Partitions on the GPUs are inside the measured memory envelope (at pw10, 2 workers peaked lower than 1). ${next}`,
  };
}

function threadReasons(ctx: ExplainContext): Reason[] {
  const { chosen, hw, readings } = ctx;
  const host = hw.hostCpuThreads ?? hw.cpuThreads;
  const source = readings ? ` (${readings.cpuThreads.source})` : "";
  const gpuThreads: Reason = {
    about: "gpus.gpu_threads",
    text:
      `${chosen.config.gpuThreads}: the C++ prover's thread pool (prep_msm, b_g2_msm, ~2.4 s of CPU per partition on the GPU side). ` +
      `cuzk's example uses 32 (b_g2_msm measured ~1.7 s with 32 threads); 0 would mean every CPU of the host (${host}), ` +
      `competing with synthesis${hw.cpuThreads < host ? ` on a container that may use ${hw.cpuThreads}` : ""}.`,
  };
  const synthesis: Reason =
    chosen.config.synthesisThreads > 0
      ? {
          about: "synthesis.threads",
          text: `${chosen.config.synthesisThreads}: this container may use ${hw.cpuThreads} CPU threads${source} of the host's ${host}; 0 would size the synthesis pool for the host and oversubscribe the quota.`,
        }
      : {
          about: "synthesis.threads",
          text: `0 (all CPUs): this process may use all ${hw.cpuThreads} CPU threads${source}; each partition synthesizes on about one thread, ~${modelConstants.porepCpuSecPerPartition.value} vCPU-s of CPU work per PoRep partition in all.`,
        };
  return [gpuThreads, synthesis];
}

function fixedReasons(): Reason[] {
  return [
    {
      about: "pipeline.synthesis_concurrency",
      text:
        "1: the dispatcher parses C1 inputs and loads parameters one job at a time. The model sees no gain from more, and with more, " +
        "two whole-proof jobs waiting for a GPU can collide in the daemon's GPU queue and one is silently lost (cuzk-daemon.md, gotcha 6).",
    },
    {
      about: "scheduler.max_batch_size",
      text:
        "1 (no cross-sector batching): a PoRep batch reserves a flat 136 GiB and peaked at ~360 GiB for 2 sectors (measured), " +
        "at 62.7 s per proof, slower than per-partition pipelining (37.7 s per proof); a SnapDeals batch of 2 or more fails outright.",
    },
    {
      about: "pipeline.enabled",
      text: "true: per-partition pipelining (a PoRep proof flows through synthesis and the GPUs as 10 partitions); monolithic mode runs one whole proof per GPU and sets CUDA_VISIBLE_DEVICES racily.",
    },
  ];
}

function concurrencyReason(ctx: ExplainContext): Reason {
  const { chosen, options } = ctx;
  const c = chosen.knobs.concurrency;
  const partitions = chosen.memory.steady.synthesizingPartitions;
  const perProof = partitionsPerProof[options.workload.kind];
  if (options.concurrency !== undefined) {
    return {
      about: "bench.concurrency",
      text: `${c}: fixed by the caller; the other settings are sized for ${c} proof(s) in flight.`,
    };
  }
  const next = neighbourText(ctx, { ...chosen.knobs, concurrency: c + 1 }, `${c + 1} proofs in flight`);
  const fewer =
    c > 1
      ? ` ${c - 1} would give ${ctx.outcome.evaluator.timed({ ...chosen.knobs, concurrency: c - 1 }).objective.toFixed(1)} proofs/hour.`
      : "";
  return {
    about: "bench.concurrency",
    text:
      `${c}: ${c} proof(s) in flight keep ${partitions} partition(s) synthesizing (${perProof} per proof) and hide a proof's own latency ` +
      `(${sec(chosen.timing.singleProofSec)} alone).${fewer} ${next} Use it as the benchmark's concurrency; Curio's MaxPending adds ${options.postSlots} for PoSt.`,
  };
}

function warmupReason(ctx: ExplainContext): Reason {
  const { warmup, model, outcome } = ctx;
  const cold = model.memory["cold-start"].peakBytes;
  const fits = cold <= outcome.allowedPeakBytes ? "within" : "over";
  const text = warmup.restart
    ? `run the first, cache-less proof alone with partition_workers = ${warmup.synthesisParallelism} (modelled peak ${gib(warmup.peakMemoryBytes)}, ` +
      `about ${Math.round(warmup.firstProofSec)} s), let the PCE file be written, then restart with the full setting so the daemon loads the PCE from disk. ` +
      `Without the restart the first proofs would overlap the PCE extraction: modelled cold-start peak ${gib(cold)}, ${fits} the ${gib(outcome.allowedPeakBytes)} allowed.`
    : `send one proof alone first (modelled peak ${gib(warmup.peakMemoryBytes)}, about ${Math.round(warmup.firstProofSec)} s, parameter load included) and keep the daemon running: ` +
      "it re-extracts the PCE at every start, which the config is already sized for.";
  return { about: "warmup", text };
}

function predictedReason(ctx: ExplainContext): Reason {
  const t = ctx.chosen.timing;
  const perProof = partitionsPerProof[ctx.options.workload.kind];
  const gpus = ctx.hw.gpus.length;
  if (gpus === 0) {
    return {
      about: "predicted",
      text: `0 proofs/hour without a GPU; the CPU side alone would manage ${ctx.chosen.objective.toFixed(1)} proofs/hour (${sec(t.cpuSideSecPerProof)} per proof).`,
    };
  }
  const calibration = ctx.calibration;
  const calibrated = calibration
    ? ` Calibrated: x${calibration.proofsPerHourFactor.toFixed(2)} from ${calibration.samples} benchmark run(s) (${calibration.source ?? "calibration"}), so ${(t.proofsPerHour * calibration.proofsPerHourFactor).toFixed(1)} proofs/hour.`
    : "";
  return {
    about: "predicted",
    text:
      `${t.proofsPerHour.toFixed(1)} proofs/hour modelled (${sec(t.secPerProof)} per proof); ${bottleneckText(ctx)}. ` +
      `Synthesis: ${perProof} partitions x ${sec(t.synthesisSecPerPartition)} / ${t.effectivePartitions} at once (each on about one thread) = ${sec(t.synthesisSecPerProof)}; ` +
      `GPU: ${perProof} x ${sec(t.gpuSecPerPartition)} / ${gpus} GPU(s) = ${sec(t.gpuSecPerProof)}; CPU work over ${ctx.hw.cpuThreads} threads: ${sec(t.cpuSecPerProof)}. ` +
      `One proof alone takes ${sec(t.singleProofSec)}, each proof ` +
      `${sec(t.proofLatencySec)} at this concurrency, the first after a start ${sec(t.firstProofSec)} and the worst, the last of the first ` +
      `${ctx.chosen.knobs.concurrency} after a cold start, ${sec(t.worstCaseProofSec)}.${calibrated} A model predicts; a benchmark decides.`,
  };
}

function extrapolatedReason(ctx: ExplainContext): Reason {
  return {
    about: "extrapolated",
    text:
      ctx.extrapolations.length === 0
        ? "nothing: this machine and setting are within what was measured (1x RTX 5070 Ti, 192 threads, 1-16 partitions)."
        : `${ctx.extrapolations.length} part(s) of this prediction go beyond the measurements (1x RTX 5070 Ti, 192 threads, 1-16 partitions): ${ctx.extrapolations.join("; ")}.`,
  };
}

function curioReason(ctx: ExplainContext): Reason {
  const { maxPending, postSlots, proveTimeoutSec } = ctx.curio;
  const minutes = proveTimeoutSec / 60;
  const c = ctx.chosen.knobs.concurrency;
  const worst = ctx.chosen.timing.worstCaseProofSec;
  const floor = Math.round(ctx.options.minProveTimeoutSec / 60);
  const why = Number.isFinite(worst)
    ? `the larger of ${ctx.options.proveTimeoutFactor} x the modelled worst case of ${sec(worst)} and ${floor} min`
    : `${floor} min: without a GPU the model has no worst case`;
  const slots =
    postSlots > 0
      ? `the tuned concurrency ${c} + ${postSlots}: MaxPending is ONE limiter shared by every cuzk task type (PoRep, SnapDeals, WindowPoSt and WinningPoSt, which is time-critical with MaxFailures 1), so the ${postSlots} extra slot(s) leave room for a PoSt while PoRep holds ${c}. Curio does not reserve them: PoRep may take them when they are free, so the memory is sized for ${maxPending} proofs in flight`
      : `the tuned concurrency ${c} with no slot left for PoSt (postSlots = 0): PoRep work can hold every slot while a WinningPoSt waits`;
  return {
    about: "curio",
    text:
      `[Cuzk] MaxPending = ${maxPending}: ${slots}. ProveTimeout = ${minutes} min (${why}): on a timeout Curio retries the task with the same ` +
      "deterministic request id, which the daemon runs again as a duplicate, so the timeout must not cut a slow but healthy proof short.",
  };
}

/** Every reason, in the order people read a config. */
export function explainChoice(ctx: ExplainContext): Reason[] {
  const reasons: Reason[] = [synthesisReason(ctx)];
  const budget = budgetReason(ctx);
  if (budget) reasons.push(budget);
  reasons.push(gpuWorkersReason(ctx), ...threadReasons(ctx), ...fixedReasons());
  reasons.push(
    concurrencyReason(ctx),
    warmupReason(ctx),
    predictedReason(ctx),
    extrapolatedReason(ctx),
    curioReason(ctx),
  );
  return reasons;
}
