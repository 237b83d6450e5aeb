import { createCuzkClient, fetchStatusJson } from "@cuzkit/client";
import { InvalidInputError } from "@cuzkit/core";
import { Command } from "commander";
import { colourEnabled } from "../colour.js";
import { addrHelp, resolveAddress } from "../common.js";
import { interruptOnSignals } from "../interrupt.js";
import type { CliIO } from "../io.js";
import { durationOption, durationText } from "../parse.js";
import { formatStatus } from "./status-format.js";
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
