import type { DaemonMetrics, DaemonStatus, DaemonStatusJson } from "@cuzkit/client";
import { formatBytes, proofKindLabel, proofKinds } from "@cuzkit/core";
import { createTable } from "../table.js";

// The readable form of a daemon's status, shared by `cuzkit status` and its --watch frames.

const unknown = "unknown";
const bytesOrUnknown = (bytes: number | undefined) => (bytes === undefined ? unknown : formatBytes(bytes));

/** Seconds as people read an uptime: `2h 5m`, `3m 12s`. */
export function uptimeText(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  return h > 0 ? `${h}h ${m}m` : `${m}m ${Math.floor(seconds % 60)}s`;
}

/** The readable form: GPUs, counters, per-kind metrics and the HTTP status view. */
export function formatStatus(
  address: string,
  status: DaemonStatus,
  metrics: DaemonMetrics,
  json: DaemonStatusJson | undefined,
  colour = false,
): string {
  const out: string[] = [
    `daemon ${address}: up ${uptimeText(status.uptimeSeconds)}, ${status.totalProofsCompleted} proofs completed, ${status.totalProofsFailed} failed`,
  ];
  const gpus = createTable(["GPU", "name", "VRAM total", "VRAM free", "workers", "current jobs"], {
    colour,
    compact: false,
  });
  for (const gpu of status.gpus) {
    gpus.push([
      gpu.ordinal,
      gpu.name,
      bytesOrUnknown(gpu.vramTotalBytes),
      bytesOrUnknown(gpu.vramFreeBytes),
      gpu.workers,
      gpu.currentJobs.map((job) => `${job.jobId} (${job.proofKind})`).join(", ") || "-",
    ]);
  }
  out.push(gpus.toString());
  const kinds = createTable(["proof kind", "completed", "failed", "mean time (last <=1000)"], {
    colour,
    compact: false,
  });
  for (const kind of proofKinds) {
    const m = metrics.byKind[kind];
    if (!m) continue;
    kinds.push([
      proofKindLabel[kind],
      m.completed ?? unknown,
      m.failed ?? unknown,
      m.meanDurationSeconds === undefined ? "-" : `${m.meanDurationSeconds.toFixed(1)} s`,
    ]);
  }
  if (kinds.length > 0) out.push(kinds.toString());
  out.push(
    `running jobs ${metrics.runningJobs ?? unknown}, GPU workers ${metrics.gpuWorkers ?? unknown}, queue depth ${metrics.queueDepth ?? unknown}`,
  );
  if (status.loadedSrs.length > 0)
    out.push(`preloaded parameters: ${status.loadedSrs.map((s) => s.circuitId).join(", ")}`);
  if (json) {
    if (json.memory) {
      out.push(
        `memory budget: ${formatBytes(json.memory.usedBytes)} used of ${formatBytes(json.memory.totalBytes)} (${formatBytes(json.memory.availableBytes)} available)`,
      );
    }
    if (json.synthesis)
      out.push(
        `synthesizing partitions: ${json.synthesis.active} (budget allows ${json.synthesis.maxConcurrent})`,
      );
    for (const pipeline of json.pipelines ?? []) {
      out.push(
        `  pipeline ${pipeline.jobId} (${pipeline.proofKind}): ${pipeline.partitionsDone}/${pipeline.totalPartitions} partitions, started ${pipeline.startedSecsAgo.toFixed(0)} s ago`,
      );
    }
  } else {
    out.push(
      "(pass --status-url http://HOST:9821/status for memory, pipelines and GPU workers: the gRPC status does not carry them)",
    );
  }
  return `${out.join("\n")}\n`;
}
