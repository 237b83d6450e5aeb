import { type GetStatusResponse, SRSStatus_Tier } from "@cuzkit/proto";

// GetStatus made honest (docs/daemon-facts.md section 1): the daemon lists one GPU row per worker
// with duplicated ordinals, and leaves several fields at zero because it never fills them.
// Zero there means "unknown", so those fields become undefined here.

/** One GPU, de-duplicated from the daemon's per-worker rows. */
export interface GpuStatus {
  /** GPU ordinal. */
  ordinal: number;
  /** Name from nvidia-smi ("GPU <n>" when the daemon could not run it). */
  name: string;
  /** Total VRAM in bytes; undefined when the daemon reported 0 (nvidia-smi unavailable). */
  vramTotalBytes: number | undefined;
  /** Free VRAM in bytes; undefined when the daemon reported 0 with an unknown total. */
  vramFreeBytes: number | undefined;
  /** Daemon GPU workers on this GPU (rows with this ordinal; gpu_workers_per_device). */
  workers: number;
  /** Jobs the workers report as current (may flicker: the daemon clears them asynchronously). */
  currentJobs: { jobId: string; proofKind: string }[];
}

/** A parameter set loaded with PreloadSRS (on-demand loads are not listed by the daemon). */
export interface LoadedSrs {
  /** Circuit id, e.g. "porep-32g". */
  circuitId: string;
  /** Tier name; the daemon always reports "hot". */
  tier: "hot" | "warm" | "cold" | "unknown";
  /** Size in bytes; undefined because the daemon always reports 0 (never filled in upstream). */
  sizeBytes: number | undefined;
  /** Reference count; undefined when 0 (never filled upstream). */
  refCount: number | undefined;
}

/** A scheduler queue (only kinds with pending items are listed; pending is ~always 0 in pipeline mode). */
export interface QueueStatus {
  /** Kind name as the daemon writes it ("porep-c2", ...). */
  proofKind: string;
  /** Jobs not yet taken by the dispatcher. */
  pending: number;
  /** Workers busy with this kind. */
  inProgress: number;
}

/** The daemon's status with duplicates merged and unfilled fields marked unknown. */
export interface DaemonStatus {
  /** Seconds since the daemon started (resets on restart). */
  uptimeSeconds: number;
  /** Proofs completed since start. */
  totalProofsCompleted: number;
  /** Proofs failed since start. */
  totalProofsFailed: number;
  /** GPUs, one entry per ordinal, sorted by ordinal. */
  gpus: GpuStatus[];
  /** Total GPU worker rows the daemon reported. */
  gpuWorkers: number;
  /** Parameters loaded via PreloadSRS. */
  loadedSrs: LoadedSrs[];
  /** Scheduler queues. */
  queues: QueueStatus[];
  /** Pinned memory in bytes; undefined because the daemon hard-codes 0. */
  pinnedMemoryBytes: number | undefined;
  /** Pinned memory limit in bytes; undefined because the daemon hard-codes 0. */
  pinnedMemoryLimitBytes: number | undefined;
  /** The response as received. */
  raw: GetStatusResponse;
}

/** Converts a uint64 to a number (exact up to 2^53; beyond that, the nearest double). */
export function toNumber(value: bigint): number {
  return Number(value);
}

/** A uint64 the daemon leaves at 0 when it does not know: 0 becomes undefined. */
export function zeroAsUnknown(value: bigint | number): number | undefined {
  const n = typeof value === "bigint" ? Number(value) : value;
  return n === 0 ? undefined : n;
}

const tierNames: Record<number, LoadedSrs["tier"]> = {
  [SRSStatus_Tier.HOT]: "hot",
  [SRSStatus_Tier.WARM]: "warm",
  [SRSStatus_Tier.COLD]: "cold",
};

/** Normalises a GetStatus response: GPUs merged by ordinal, zeros that mean "unknown" as undefined. */
export function normalizeStatus(raw: GetStatusResponse): DaemonStatus {
  const byOrdinal = new Map<number, GpuStatus>();
  for (const row of raw.gpus) {
    let gpu = byOrdinal.get(row.ordinal);
    if (gpu === undefined) {
      gpu = {
        ordinal: row.ordinal,
        name: row.name,
        vramTotalBytes: zeroAsUnknown(row.vramTotalBytes),
        vramFreeBytes: undefined,
        workers: 0,
        currentJobs: [],
      };
      byOrdinal.set(row.ordinal, gpu);
    }
    gpu.workers += 1;
    if (gpu.vramTotalBytes === undefined) gpu.vramTotalBytes = zeroAsUnknown(row.vramTotalBytes);
    // Free VRAM of 0 is real only when the total is known.
    if (gpu.vramTotalBytes !== undefined && gpu.vramFreeBytes === undefined)
      gpu.vramFreeBytes = toNumber(row.vramFreeBytes);
    if (row.currentJobId !== "")
      gpu.currentJobs.push({ jobId: row.currentJobId, proofKind: row.currentProofKind });
  }
  return {
    uptimeSeconds: toNumber(raw.uptimeSeconds),
    totalProofsCompleted: toNumber(raw.totalProofsCompleted),
    totalProofsFailed: toNumber(raw.totalProofsFailed),
    gpus: [...byOrdinal.values()].sort((a, b) => a.ordinal - b.ordinal),
    gpuWorkers: raw.gpus.length,
    loadedSrs: raw.loadedSrs.map((srs) => ({
      circuitId: srs.circuitId,
      tier: tierNames[srs.tier] ?? "unknown",
      sizeBytes: zeroAsUnknown(srs.sizeBytes),
      refCount: zeroAsUnknown(srs.refCount),
    })),
    queues: raw.queues.map((q) => ({ proofKind: q.proofKind, pending: q.pending, inProgress: q.inProgress })),
    pinnedMemoryBytes: zeroAsUnknown(raw.pinnedMemoryBytes),
    pinnedMemoryLimitBytes: zeroAsUnknown(raw.pinnedMemoryLimitBytes),
    raw,
  };
}
