import type { StuckOptions } from "@cuzkit/client";
import type { Command } from "commander";
import { clientHelpDefaults } from "./help-defaults.js";
import { durationText, parseDurationMs, positiveNumberOption } from "./parse.js";

// --stuck-after and --stuck-margin, shared by `prove` and `bench`: the client's stuck-job
// detection (a job the daemon holds without progress fails with DAEMON_STUCK).

/** The flags as commander stores them. */
export interface StuckFlags {
  /** ms without progress, or Infinity for "off". */
  stuckAfter?: number;
  stuckMargin?: number;
}

/** `--stuck-after`: a duration with a unit, or `off`. */
function parseStuckAfter(text: string): number {
  if (text.trim().toLowerCase() === "off") return Number.POSITIVE_INFINITY;
  return parseDurationMs(text, { what: "--stuck-after", example: "20m" });
}

/** Adds --stuck-after and --stuck-margin to `command`. */
export function addStuckOptions(command: Command): Command {
  return command
    .option(
      "--stuck-after <duration>",
      `fail a proof with DAEMON_STUCK after this long without progress (no proof ended, the job reached no GPU), e.g. 20m; off turns it off (default: the model's ETA of one proof x --stuck-margin, at least ${durationText(clientHelpDefaults.stuckMinMs)})`,
      parseStuckAfter,
    )
    .option(
      "--stuck-margin <n>",
      `the stuck window is the model's ETA of one proof times this (default ${clientHelpDefaults.stuckMarginFactor}; ignored with --stuck-after)`,
      positiveNumberOption("--stuck-margin", "5"),
    );
}

/** The client's `stuck` option from the flags; undefined keeps the client's defaults. */
export function stuckOption(flags: StuckFlags): StuckOptions | undefined {
  if (flags.stuckAfter === undefined && flags.stuckMargin === undefined) return undefined;
  return { afterMs: flags.stuckAfter, marginFactor: flags.stuckMargin };
}
