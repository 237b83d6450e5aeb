import { randomBytes } from "node:crypto";
import { rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { InvalidInputError } from "@cuzkit/core";
import { InvalidArgumentError } from "commander";
import type { CliIO } from "./io.js";

/** The daemon address: --addr, else CUZK_ADDR, else the conventional 127.0.0.1:9820. */
export function resolveAddress(flag: string | undefined, io: CliIO): string {
  return flag ?? io.env.CUZK_ADDR ?? "127.0.0.1:9820";
}

/** Help text line shared by every command taking --addr. */
export const addrHelp =
  "daemon address: unix:///run/curio/cuzk.sock, 127.0.0.1:9820, [::1]:9820 (default: $CUZK_ADDR, else 127.0.0.1:9820)";

/**
 * Parses a duration as people write it: "90s", "30m", "1h", "1500ms" or plain milliseconds.
 * For commander option parsers: throws commander's InvalidArgumentError.
 */
export function parseDurationMs(text: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s|m|h)?\s*$/.exec(text);
  if (!match)
    throw new InvalidArgumentError(`"${text}" is not a duration; write 90s, 30m, 1h or milliseconds`);
  const factor = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }[match[2] ?? "ms"] ?? 1;
  const ms = Number(match[1]) * factor;
  if (!(ms > 0)) throw new InvalidArgumentError("the duration must be more than 0");
  return Math.round(ms);
}

/** Parses a whole number option (for commander), at least `min`. */
export function intOption(min: number): (text: string) => number {
  return (text) => {
    const value = Number(text);
    if (!Number.isInteger(value) || value < min)
      throw new InvalidArgumentError(`"${text}" is not a whole number >= ${min}`);
    return value;
  };
}

/** Parses a positive number option (for commander). */
export function positiveNumber(text: string): number {
  const value = Number(text);
  if (!Number.isFinite(value) || value <= 0)
    throw new InvalidArgumentError(`"${text}" is not a positive number`);
  return value;
}

/**
 * Writes a file all at once: to a hidden temporary sibling, then renamed over the target, so a
 * reader never sees half a file and a failure leaves nothing behind. `path` is relative to io.cwd.
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  io: Pick<CliIO, "cwd">,
): Promise<string> {
  const target = resolve(io.cwd, path);
  const temporary = join(
    dirname(target),
    `.${basename(target)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`,
  );
  try {
    await writeFile(temporary, data, { mode: 0o644 });
    await rename(temporary, target);
  } catch (error) {
    await rm(temporary, { force: true });
    throw new InvalidInputError(
      `cannot write ${target}: ${error instanceof Error ? error.message : String(error)}`,
      { hint: "check that the folder exists and is writable", cause: error },
    );
  }
  return target;
}

/** Seconds with one decimal, for people. */
export function secondsText(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
