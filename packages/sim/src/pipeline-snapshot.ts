import { type CircuitId, circuitForKind, type ProofKind } from "@cuzkit/core";
import type { PipelineState } from "./pipeline-state.js";
import {
  type AllocationView,
  type GpuWorkerView,
  type PipelineSnapshot,
  type PipelineView,
  pipelineRetentionMs,
} from "./pipeline-types.js";

// What the pipeline looks like now, for /status, GetStatus and the metrics. Taking a snapshot
// also forgets the partitioned proofs finished longer than the retention ago.

/** The pipeline's state as status reports show it, at scheduler time now. */
export function snapshotPipeline(s: PipelineState): PipelineSnapshot {
  const now = s.deps.scheduler.now();
  const queued: Partial<Record<ProofKind, number>> = {};
  for (const job of s.dispatchQueue) queued[job.spec.kind] = (queued[job.spec.kind] ?? 0) + 1;
  for (const job of s.jobs) {
    if (job.finishedAt !== undefined && now - job.finishedAt > pipelineRetentionMs) s.jobs.delete(job);
  }
  const { srs, pce } = allocationViews(s, now);
  return {
    memoryInUseBytes: s.memory,
    synthesizing: s.synthesizing,
    waitingForGpu: s.gpuQueue.length,
    onGpu: s.workers.filter((w) => w.partition).length,
    queued,
    queueDepth: s.dispatchQueue.length,
    gpuWorkers: gpuWorkerViews(s, now),
    pipelines: pipelineViews(s, now),
    srs,
    pce,
  };
}

/** The loaded parameters and resident PCEs; evictable unless a GPU worker is on their circuit. */
function allocationViews(s: PipelineState, now: number): { srs: AllocationView[]; pce: AllocationView[] } {
  const { model } = s.deps;
  const allocation = (circuit: CircuitId, bytes: number, lastUsedAt: number): AllocationView => ({
    circuitId: circuit,
    bytes,
    lastUsedMsAgo: Math.max(0, now - lastUsedAt),
    evictable: ![...s.workers].some(
      (w) => w.partition && circuitForKind[w.partition.job.spec.kind] === circuit,
    ),
  });
  const srsViews: AllocationView[] = [];
  for (const [circuit, state] of s.srs) {
    if (state.state === "loaded")
      srsViews.push(allocation(circuit, model.srsBytes[circuit], state.lastUsedAt));
  }
  const pceViews: AllocationView[] = [];
  for (const [circuit, state] of s.pce) {
    if (state === "resident") {
      const used = s.srs.get(circuit);
      pceViews.push(
        allocation(circuit, model.pceBytes[circuit], used?.state === "loaded" ? used.lastUsedAt : now),
      );
    }
  }
  return { srs: srsViews, pce: pceViews };
}

function gpuWorkerViews(s: PipelineState, now: number): GpuWorkerView[] {
  return s.workers.map((w) => ({
    workerId: w.workerId,
    gpuOrdinal: w.gpuOrdinal,
    jobId: w.partition?.job.spec.jobId,
    kind: w.partition?.job.spec.kind,
    partition: w.partition?.index,
    busyMs: w.partition ? now - w.busySince : undefined,
  }));
}

/** The partitioned proofs dispatched (in flight or finished within the retention). */
function pipelineViews(s: PipelineState, now: number): PipelineView[] {
  return [...s.jobs]
    .filter((job) => job.registeredAt !== undefined)
    .map((job) => ({
      jobId: job.spec.jobId,
      kind: job.spec.kind,
      startedMsAgo: now - (job.registeredAt ?? job.submittedAt),
      totalPartitions: job.partitions.length,
      partitionsDone: job.partitionsDone,
      partitions: job.partitions.map((p) => ({
        index: p.index,
        state: p.state,
        synthMs: p.synthMs,
        gpuMs: p.gpuMs,
      })),
    }));
}
