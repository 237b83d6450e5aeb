import { InvalidInputError } from "@cuzkit/core";
import { Command } from "commander";
import { addrHelp } from "../common.js";
import type { CliIO } from "../io.js";
import { durationOption, durationText } from "../parse.js";
import type { WatchOptions } from "./status-watch.js";

/** How often `cuzkit status --watch` refreshes by default, ms. */
export const defaultWatchIntervalMs = 2_000;

/** The flags of `cuzkit status`, as commander parses them. */
export interface StatusFlags {
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
      // The client (gRPC) loads only once the flags are known to go together.
      await (await import("./status-run.js")).runStatus(io, deps, flags);
    });
}
