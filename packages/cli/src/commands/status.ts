import {
  createCuzkClient,
  type DaemonMetrics,
  type DaemonStatus,
  type DaemonStatusJson,
  fetchStatusJson,
} from "@cuzkit/client";
import { formatBytes, InvalidInputError, proofKindLabel, proofKinds } from "@cuzkit/core";
import { Command } from "commander";
import { colourEnabled } from "../colour.js";
import { addrHelp, resolveAddress } from "../common.js";
import { interruptOnSignals } from "../interrupt.js";
import type { CliIO } from "../io.js";
import { durationOption, durationText } from "../parse.js";
import { createTable } from "../table.js";
import { defaultWatchIntervalMs, type WatchOptions, watchStatus } from "./status-watch.js";

interface StatusFlags {
  addr?: string;
  statusUrl?: string;
  json?: boolean;
  watch?: boolean;
  interval?: number;
}

/** What tests give the status command: the end of a watch, and each frame as it is written. */
export interface StatusCommandDeps {
  /** Ends `--watch` (instead of SIGINT/SIGTERM). Default: the process's signals. */
  stopSignal?: AbortSignal | undefined;
  /** Called with each `--watch` frame after it is written. Default: none. */
  onFrame?: WatchOptions["onFrame"];
}

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

/** `cuzkit status`: gRPC status and metrics, plus the daemon's HTTP /status JSON when given. */
export function createStatusCommand(io: CliIO, deps: StatusCommandDeps = {}): Command {
  return new Command("status")
    .description(
      "show the daemon's status: GPUs (one row per GPU, not per worker), counters, metrics, memory",
    )
    .option("--addr <address>", addrHelp)
    .option(
      "--status-url <url>",
      "the daemon's HTTP status endpoint (daemon.status_listen), e.g. http://127.0.0.1:9821/status",
    )
    .option("--json", "print everything as JSON")
    .option("--watch", "refresh until Ctrl-C, saying whether the daemon is up, frozen, down or cut off")
    .option(
      "--interval <duration>",
      `between --watch refreshes (default ${durationText(defaultWatchIntervalMs)})`,
      durationOption("--interval"),
    )
    .addHelpText(
      "after",
      "\nExamples:\n  cuzkit status --addr 127.0.0.1:9820\n  cuzkit status --addr unix:///run/curio/cuzk.sock --status-url http://127.0.0.1:9821/status --json\n  cuzkit status --watch --interval 1s --status-url 127.0.0.1:9821",
    )
    .action(async (flags: StatusFlags) => {
      if (flags.watch && flags.json) {
        throw new InvalidInputError("--watch and --json do not go together", {
          hint: "leave --json out to watch, or --watch out for one JSON snapshot",
        });
      }
      if (flags.interval !== undefined && !flags.watch) {
        throw new InvalidInputError("--interval is for --watch", {
          hint: "add --watch, or leave --interval out",
        });
      }
      const client = createCuzkClient({ address: resolveAddress(flags.addr, io) });
      if (flags.watch) {
        const shutdown = deps.stopSignal
          ? { signal: deps.stopSignal, dispose() {} }
          : interruptOnSignals(["SIGINT", "SIGTERM"]);
        try {
          await watchStatus({
            client,
            statusUrl: flags.statusUrl,
            io,
            intervalMs: flags.interval,
            colour: colourEnabled(io.stdout, io.env),
            signal: shutdown.signal,
            onFrame: deps.onFrame,
          });
        } finally {
          shutdown.dispose();
          await client.close();
        }
        return;
      }
      try {
        const [status, metrics, json] = await Promise.all([
          client.getStatus(),
          client.getMetrics(),
          flags.statusUrl === undefined ? Promise.resolve(undefined) : fetchStatusJson(flags.statusUrl),
        ]);
        if (flags.json) {
          const { raw: _rawStatus, ...statusView } = status;
          const { families: _families, text: _text, ...metricsView } = metrics;
          io.stdout.write(
            `${JSON.stringify({ address: client.address, status: statusView, metrics: metricsView, statusJson: json ? { ...json, raw: undefined } : undefined }, null, 2)}\n`,
          );
        } else {
          io.stdout.write(
            formatStatus(client.address, status, metrics, json, colourEnabled(io.stdout, io.env)),
          );
        }
      } finally {
        await client.close();
      }
    });
}
