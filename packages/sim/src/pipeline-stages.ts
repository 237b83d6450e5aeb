import { circuitForKind } from "@cuzkit/core";
import { ensureSrs, extractPce } from "./pipeline-resources.js";
import {
  after,
  type Job,
  type Partition,
  type PipelineState,
  pceResident,
  realMs,
  setSynthesizing,
  updateMemory,
} from "./pipeline-state.js";
import type { PartitionState, PipelineJobSpec, ProofOutcome } from "./pipeline-types.js";

// The stages a proof goes through: dispatch (at most synthesis_concurrency at once; loads the
// circuit's parameters on first use) -> its partitions wait for a synthesis slot -> synthesis ->
// a GPU worker -> assembly -> done. Each pump moves what its stage can take now.

/** Queues a proof by priority (higher first, then submission order) and dispatches what it can. */
export function submitJob(
  s: PipelineState,
  spec: PipelineJobSpec,
  onDone: (outcome: ProofOutcome) => void,
): void {
  const figures = s.deps.model.kinds[spec.kind];
  const job: Job = {
    seq: s.seq++,
    spec,
    submittedAt: s.deps.scheduler.now(),
    registeredAt: undefined,
    finishedAt: undefined,
    partitions: [],
    partitionsDone: 0,
    onDone,
  };
  job.partitions = Array.from({ length: figures.partitions }, (_, index) => ({
    job,
    index,
    state: "pending" as PartitionState,
    synthMs: null,
    gpuMs: null,
  }));
  if (spec.kind === "porep" || spec.kind === "snap") s.jobs.add(job);
  s.inFlight.add(job);
  if (!updateMemory(s)) return;
  // Higher priority first, then submission order.
  const at = s.dispatchQueue.findIndex((queued) => queued.spec.priority < spec.priority);
  if (at < 0) s.dispatchQueue.push(job);
  else s.dispatchQueue.splice(at, 0, job);
  pumpDispatch(s);
}

/** Ends a proof: it leaves memory in use, its PCE is extracted after a success, `onDone` is told. */
function finish(s: PipelineState, job: Job, outcome: ProofOutcome): void {
  job.finishedAt = s.deps.scheduler.now();
  // /status keeps a finished partitioned proof for a while; one that never started is dropped.
  if (job.registeredAt === undefined) s.jobs.delete(job);
  s.inFlight.delete(job);
  updateMemory(s);
  if (outcome.status === "completed") extractPce(s, job.spec.kind, () => pumpSynthesis(s));
  job.onDone(outcome);
}

/** Dispatches queued proofs while a dispatch slot is free; a bad input fails here. */
function pumpDispatch(s: PipelineState): void {
  while (
    !s.disposed &&
    s.activeDispatch < Math.max(1, s.deps.dispatchConcurrency) &&
    s.dispatchQueue.length > 0
  ) {
    const job = s.dispatchQueue.shift()!;
    if (job.spec.inputFailure !== undefined) {
      finish(s, job, { status: "failed", errorMessage: job.spec.inputFailure });
      continue;
    }
    s.activeDispatch++;
    ensureSrs(s, circuitForKind[job.spec.kind], () => {
      s.activeDispatch--;
      job.registeredAt = s.deps.scheduler.now();
      s.synthQueue.push(...job.partitions);
      pumpSynthesis(s);
      pumpDispatch(s);
    });
  }
}

/** Starts queued partitions while the model's synthesis slots allow. */
function pumpSynthesis(s: PipelineState): void {
  while (!s.disposed && s.synthQueue.length > 0) {
    const head = s.synthQueue[0]!;
    const kind = head.job.spec.kind;
    if (s.synthesizing >= s.deps.model.synthesisSlots(kind, pceResident(s, kind))) return;
    s.synthQueue.shift();
    startSynthesis(s, head);
  }
}

/** Synthesizes one partition (slower while cold), then queues it for a GPU worker. */
function startSynthesis(s: PipelineState, partition: Partition): void {
  const { model } = s.deps;
  const kind = partition.job.spec.kind;
  const figures = model.kinds[kind];
  const warm = pceResident(s, kind);
  setSynthesizing(s, kind, 1);
  partition.state = "synthesizing";
  if (!updateMemory(s)) return;
  let sameKind = 0;
  for (const job of s.inFlight) if (job.spec.kind === kind) sameKind++;
  const synthesisSec = model.synthesisSecAt(kind, warm, sameKind) * (warm ? 1 : model.coldSynthesisFactor);
  after(s, synthesisSec, () => {
    setSynthesizing(s, kind, -1);
    partition.state = "synth_done";
    // The modelled duration, not the timer's: a late timer on a busy machine is not the daemon's time.
    partition.synthMs = realMs(s, synthesisSec);
    s.gpuStageBytes += figures.gpuStageBytes;
    if (!updateMemory(s)) return;
    insertByJobOrder(s.gpuQueue, partition);
    pumpGpu(s);
    pumpSynthesis(s);
  });
}

/** Hands queued partitions to idle GPU workers; the last partition of a proof leads to assembly. */
function pumpGpu(s: PipelineState): void {
  for (const worker of s.workers) {
    if (s.disposed || s.gpuQueue.length === 0) return;
    if (worker.partition) continue;
    const partition = s.gpuQueue.shift()!;
    worker.partition = partition;
    worker.busySince = s.deps.scheduler.now();
    partition.state = "gpu";
    const figures = s.deps.model.kinds[partition.job.spec.kind];
    after(s, figures.gpuWorkerSec, () => {
      worker.partition = undefined;
      partition.state = "done";
      partition.gpuMs = realMs(s, figures.gpuWorkerSec);
      s.gpuStageBytes -= figures.gpuStageBytes;
      updateMemory(s);
      const job = partition.job;
      job.partitionsDone++;
      if (job.partitionsDone === job.partitions.length) after(s, figures.overheadSec, () => complete(s, job));
      pumpGpu(s);
    });
  }
}

/** Assembly done: the proof completes with its timings, or fails with an injected failure. */
function complete(s: PipelineState, job: Job): void {
  if (job.spec.injectedFailure !== undefined) {
    finish(s, job, { status: "failed", errorMessage: job.spec.injectedFailure });
    return;
  }
  const now = s.deps.scheduler.now();
  const totalMs = now - job.submittedAt;
  const synthesisMs = job.partitions.reduce((sum, p) => sum + (p.synthMs ?? 0), 0);
  const gpuComputeMs = job.partitions.reduce((sum, p) => sum + (p.gpuMs ?? 0), 0);
  // Partitioned proofs: wait = total minus time since the assembler was registered (after
  // C1 parse and parameter load); others: total minus synthesis and GPU time.
  const partitioned = job.partitions.length > 1 || job.spec.kind === "porep" || job.spec.kind === "snap";
  const queueWaitMs = partitioned
    ? totalMs - (now - (job.registeredAt ?? job.submittedAt))
    : totalMs - synthesisMs - gpuComputeMs;
  finish(s, job, {
    status: "completed",
    timings: {
      queueWaitMs: Math.max(0, Math.round(queueWaitMs)),
      synthesisMs: Math.round(synthesisMs),
      gpuComputeMs: Math.round(gpuComputeMs),
      totalMs: Math.round(totalMs),
    },
  });
}

/** Queues a partition behind every partition of earlier jobs (and earlier ones of its own job). */
function insertByJobOrder(queue: Partition[], partition: Partition): void {
  const at = queue.findIndex(
    (queued) =>
      queued.job.seq > partition.job.seq ||
      (queued.job.seq === partition.job.seq && queued.index > partition.index),
  );
  if (at < 0) queue.push(partition);
  else queue.splice(at, 0, partition);
}
