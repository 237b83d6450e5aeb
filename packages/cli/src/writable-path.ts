// The one check of an output path, made before any daemon work so that a proof, a benchmark or a
// tuning run is never computed only to be lost at the write.
import { constants } from "node:fs";
import { access, stat } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { InvalidInputError } from "@cuzkit/core";
import type { CliIO } from "./io.js";

/**
 * Checks, before any daemon work, that `path` (relative to io.cwd) can be written: its folder
 * exists and is writable, and the file, if it exists, is a writable file. Returns the full path.
 * `exampleFile` names a file in the hint when `path` is a directory (default "out.json").
 */
export async function checkWritablePath(
  flag: string,
  path: string,
  io: Pick<CliIO, "cwd">,
  exampleFile = "out.json",
): Promise<string> {
  const target = resolve(io.cwd, path);
  const fail = (why: string, error?: unknown): never => {
    throw new InvalidInputError(`${flag} ${path}: ${why}`, {
      hint: `give ${flag} a file in a folder that exists and is writable`,
      cause: error,
    });
  };
  const existing = await stat(target).catch(() => undefined);
  if (existing?.isDirectory()) {
    throw new InvalidInputError(`${flag} ${path} is a directory`, {
      hint: `give a file path, such as ${flag} ${join(path, exampleFile)}`,
    });
  }
  try {
    await access(existing ? target : dirname(target), constants.W_OK);
  } catch (error) {
    fail(
      existing ? "cannot be written" : `its folder ${dirname(target)} does not exist or is not writable`,
      error,
    );
  }
  return target;
}
