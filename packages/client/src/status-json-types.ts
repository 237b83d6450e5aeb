// The typed shape of the daemon's HTTP /status JSON (see status-json.ts for how it is read).

/** Fields of a newer daemon that this client does not know, keys camelCased, values as received (nested keys camelCased too). */
export interface UnknownFields {
  readonly [field: string]: unknown;
}

/** Partition states the daemon reports. */
export type PartitionState = "pending" | "synthesizing" | "synth_done" | "gpu" | "done" | "failed";

/** One partition of a pipelined job. */
export interface StatusPartition extends UnknownFields {
  index: number;
  state: PartitionState | string;
  /** Synthesis time in ms, when done. */
  synthMs: number | undefined;
  /** GPU time in ms, when done. */
  gpuMs: number | undefined;
}

/** A partitioned job (PoRep, SnapDeals) in the pipeline; PoSt jobs are not listed. */
export interface StatusPipeline extends UnknownFields {
  jobId: string;
  /** "porep-c2" or "snap-update". */
  proofKind: string;
  startedSecsAgo: number;
  totalPartitions: number;
  partitionsDone: number;
  partitions: StatusPartition[];
}

/** A GPU worker. */
export interface StatusGpuWorker extends UnknownFields {
  workerId: number;
  gpuOrdinal: number;
  /** "idle" or "proving". */
  state: string;
  currentJob: string | undefined;
  currentPartition: number | undefined;
  busySecs: number | undefined;
}

/** A resident SRS or PCE allocation. */
export interface StatusAllocation extends UnknownFields {
  circuitId: string;
  bytes: number;
  lastUsedSecsAgo: number;
  evictable: boolean;
}

/** The pipeline's in-flight buffer counters (pipeline.rs atomics); a counter the daemon omitted is undefined. */
export interface StatusBuffers extends UnknownFields {
  synthInFlight: number | undefined;
  proversInFlight: number | undefined;
  auxInFlight: number | undefined;
  shellsInFlight: number | undefined;
  pendingHandles: number | undefined;
}

/** The daemon's HTTP /status snapshot, typed. Sections the daemon omitted are undefined; unknown fields are kept, camelCased. */
export interface DaemonStatusJson extends UnknownFields {
  uptimeSecs: number;
  /** The unified memory budget. */
  memory: ({ totalBytes: number; usedBytes: number; availableBytes: number } & UnknownFields) | undefined;
  /** max_concurrent is budget / 9 GiB, not the real worker count; active = partitions synthesizing. */
  synthesis: ({ maxConcurrent: number; active: number } & UnknownFields) | undefined;
  pipelines: StatusPipeline[] | undefined;
  gpuWorkers: StatusGpuWorker[] | undefined;
  /** SRS list is empty on a poll where the daemon's SRS lock was busy. */
  allocations: ({ srs: StatusAllocation[]; pce: StatusAllocation[] } & UnknownFields) | undefined;
  /** Counts only the partitioned PoRep/Snap path: PoSt completions are missing here. */
  counters:
    | ({
        totalCompleted: number;
        totalFailed: number;
        completedByKind: Record<string, number>;
        failedByKind: Record<string, number>;
        queueDepth: number;
      } & UnknownFields)
    | undefined;
  buffers: StatusBuffers | undefined;
  /** The parsed JSON as received. */
  raw: unknown;
}

/** Options of fetchStatusJson. */
export interface FetchStatusJsonOptions {
  /** Aborts the request. */
  signal?: AbortSignal | undefined;
  /** Deadline in ms. Default 5000 (the endpoint is built for 500 ms polling). */
  timeoutMs?: number | undefined;
}
