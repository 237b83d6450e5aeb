import { randomBytes } from "node:crypto";
import { rename, rm, stat, writeFile } from "node:fs/promises";
import { basename, dirname, join, resolve } from "node:path";
import { InvalidInputError } from "@cuzkit/core";
import type { CliIO } from "./io.js";

/** The daemon address: --addr, else CUZK_ADDR, else the conventional 127.0.0.1:9820. */
export function resolveAddress(flag: string | undefined, io: CliIO): string {
  return flag ?? io.env.CUZK_ADDR ?? "127.0.0.1:9820";
}

/** Help text line shared by every command taking --addr. */
export const addrHelp =
  "daemon address: unix:///run/curio/cuzk.sock, 127.0.0.1:9820, [::1]:9820 (default: $CUZK_ADDR, else 127.0.0.1:9820)";

/**
 * Writes a file all at once: to a hidden temporary sibling, then renamed over the target, so a
 * reader never sees half a file and a failure leaves nothing behind. `path` is relative to io.cwd.
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  io: Pick<CliIO, "cwd">,
  flag = "--out",
): Promise<string> {
  const target = resolve(io.cwd, path);
  // A directory would otherwise fail at the rename, after a temporary file was made in its parent.
  const existing = await stat(target).catch(() => undefined);
  if (existing?.isDirectory()) {
    throw new InvalidInputError(`${flag} ${path} is a directory`, {
      hint: `give a file path, such as ${flag} ${join(path, "cuzk.toml")}`,
    });
  }
  const temporary = join(
    dirname(target),
    `.${basename(target)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`,
  );
  try {
    await writeFile(temporary, data, { mode: 0o644 });
    await rename(temporary, target);
  } catch (error) {
    await rm(temporary, { force: true });
    // The temporary name stays out of the message: the user named `target`, not it.
    const code = (error as NodeJS.ErrnoException).code;
    throw new InvalidInputError(`cannot write ${target}${code === undefined ? "" : ` (${code})`}`, {
      hint: `check that the folder of ${flag} exists and is writable`,
      cause: error,
    });
  }
  return target;
}

/** Seconds with one decimal, for people. */
export function secondsText(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}
