import { create } from "@bufbuild/protobuf";
import {
  type DaemonConfig,
  effectiveBudgetBytes,
  GiB,
  type HardwareSpec,
  type ProofKind,
  proofKindStatusName,
  proofKinds,
} from "@cuzkit/core";
import {
  type GetStatusResponse,
  GetStatusResponseSchema,
  GPUStatusSchema,
  QueueStatusSchema,
  SRSStatus_Tier,
  SRSStatusSchema,
} from "@cuzkit/proto";
import type { ProofCounters } from "./counters.js";
import type { PipelineSnapshot } from "./pipeline.js";

// GetStatus and the HTTP /status JSON, filled the way the daemon fills them
// (docs/daemon-facts.md sections 1 and 2), quirks included.

/** What both status views are built from. */
export interface StatusInput {
  hardware: HardwareSpec;
  config: DaemonConfig;
  snapshot: PipelineSnapshot;
  counters: ProofCounters;
  /** Counters of the partitioned PoRep/Snap path only (the /status JSON counts only these). */
  partitionedCounters: ProofCounters;
  /** Circuits loaded through PreloadSRS, in order. */
  preloaded: readonly string[];
  uptimeMs: number;
  /** Whether the GPUs have run a proof (their memory pools are then allocated). */
  gpusUsed: boolean;
}

// VRAM cuzk holds per GPU once it has proved: ~4 GiB d_a cache + ~8 GiB pooled d_b.
const vramInUseBytes = 12 * GiB;

/** The GetStatus response: one GPU row per worker (ordinals repeat), PreloadSRS'd circuits only, pinned memory 0. */
export function buildStatusResponse(input: StatusInput): GetStatusResponse {
  const { snapshot } = input;
  const runningByKind = new Map<ProofKind, number>();
  for (const worker of snapshot.gpuWorkers) {
    if (worker.kind) runningByKind.set(worker.kind, (runningByKind.get(worker.kind) ?? 0) + 1);
  }
  return create(GetStatusResponseSchema, {
    gpus: snapshot.gpuWorkers.map((worker) => {
      const gpu = input.hardware.gpus[worker.gpuOrdinal];
      const vramTotal = gpu?.vramBytes ?? 0;
      return create(GPUStatusSchema, {
        ordinal: worker.gpuOrdinal,
        name: gpu?.model ?? `GPU ${worker.gpuOrdinal}`,
        vramTotalBytes: BigInt(Math.round(vramTotal)),
        vramFreeBytes: BigInt(Math.round(Math.max(0, vramTotal - (input.gpusUsed ? vramInUseBytes : 0)))),
        currentJobId: worker.jobId ?? "",
        currentProofKind: worker.kind ? proofKindStatusName[worker.kind] : "",
      });
    }),
    loadedSrs: input.preloaded.map((circuitId) =>
      create(SRSStatusSchema, { circuitId, tier: SRSStatus_Tier.HOT, sizeBytes: 0n, refCount: 0 }),
    ),
    queues: proofKinds
      .filter((kind) => (snapshot.queued[kind] ?? 0) > 0)
      .map((kind) =>
        create(QueueStatusSchema, {
          proofKind: proofKindStatusName[kind],
          pending: snapshot.queued[kind] ?? 0,
          inProgress: runningByKind.get(kind) ?? 0,
        }),
      ),
    totalProofsCompleted: BigInt(input.counters.completed),
    totalProofsFailed: BigInt(input.counters.failed),
    uptimeSeconds: BigInt(Math.floor(input.uptimeMs / 1000)),
    pinnedMemoryBytes: 0n,
    pinnedMemoryLimitBytes: 0n,
  });
}

/** The daemon's HTTP GET /status JSON (StatusSnapshot, snake_case). */
export interface StatusJson {
  uptime_secs: number;
  memory: { total_bytes: number; used_bytes: number; available_bytes: number };
  synthesis: { max_concurrent: number; active: number };
  pipelines: {
    job_id: string;
    proof_kind: string;
    started_secs_ago: number;
    total_partitions: number;
    partitions_done: number;
    partitions: { index: number; state: string; synth_ms: number | null; gpu_ms: number | null }[];
  }[];
  gpu_workers: {
    worker_id: number;
    gpu_ordinal: number;
    state: "idle" | "proving";
    current_job: string | null;
    current_partition: number | null;
    busy_secs: number | null;
  }[];
  allocations: {
    srs: { circuit_id: string; bytes: number; last_used_secs_ago: number; evictable: boolean }[];
    pce: { circuit_id: string; bytes: number; last_used_secs_ago: number; evictable: boolean }[];
  };
  counters: {
    total_completed: number;
    total_failed: number;
    completed_by_kind: Record<string, number>;
    failed_by_kind: Record<string, number>;
    queue_depth: number;
  };
  buffers: {
    synth_in_flight: number;
    provers_in_flight: number;
    aux_in_flight: number;
    shells_in_flight: number;
    pending_handles: number;
  };
}

// SnapDeals partition reservation: the daemon divides its budget by it for max_concurrent.
const snapPartitionBudgetBytes = 9 * GiB;

/** Builds the /status JSON. `memory.total_bytes` is the daemon's budget; used is the modelled memory in use. */
export function buildStatusJson(input: StatusInput): StatusJson {
  const { snapshot } = input;
  const total = effectiveBudgetBytes(input.hardware, input.config);
  const used = Math.round(snapshot.memoryInUseBytes);
  const byKind = (table: Record<ProofKind, number>) =>
    Object.fromEntries(
      proofKinds.filter((kind) => table[kind] > 0).map((kind) => [proofKindStatusName[kind], table[kind]]),
    );
  const allocation = (a: PipelineSnapshot["srs"][number]) => ({
    circuit_id: a.circuitId,
    bytes: Math.round(a.bytes),
    last_used_secs_ago: a.lastUsedMsAgo / 1000,
    evictable: a.evictable,
  });
  return {
    uptime_secs: input.uptimeMs / 1000,
    memory: { total_bytes: total, used_bytes: used, available_bytes: Math.max(0, total - used) },
    synthesis: {
      max_concurrent: Math.floor(total / snapPartitionBudgetBytes),
      active: snapshot.synthesizing,
    },
    pipelines: snapshot.pipelines.map((p) => ({
      job_id: p.jobId,
      proof_kind: proofKindStatusName[p.kind],
      started_secs_ago: p.startedMsAgo / 1000,
      total_partitions: p.totalPartitions,
      partitions_done: p.partitionsDone,
      partitions: p.partitions.map((part) => ({
        index: part.index,
        state: part.state,
        synth_ms: part.synthMs === null ? null : Math.round(part.synthMs),
        gpu_ms: part.gpuMs === null ? null : Math.round(part.gpuMs),
      })),
    })),
    gpu_workers: snapshot.gpuWorkers.map((w) => ({
      worker_id: w.workerId,
      gpu_ordinal: w.gpuOrdinal,
      state: w.jobId === undefined ? "idle" : "proving",
      current_job: w.jobId ?? null,
      current_partition: w.partition ?? null,
      busy_secs: w.busyMs === undefined ? null : w.busyMs / 1000,
    })),
    allocations: { srs: snapshot.srs.map(allocation), pce: snapshot.pce.map(allocation) },
    counters: {
      total_completed: input.partitionedCounters.completed,
      total_failed: input.partitionedCounters.failed,
      completed_by_kind: byKind(input.partitionedCounters.completedByKind),
      failed_by_kind: byKind(input.partitionedCounters.failedByKind),
      queue_depth: snapshot.queueDepth,
    },
    buffers: {
      synth_in_flight: snapshot.synthesizing,
      provers_in_flight: snapshot.onGpu,
      aux_in_flight: 0,
      shells_in_flight: 0,
      pending_handles: snapshot.waitingForGpu,
    },
  };
}
