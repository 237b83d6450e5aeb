// Secrets off the command line: an argument is readable by every user of the machine (`ps`) and
// kept in shell history, so each secret option has an environment variable or a file beside it,
// and an argument is still taken but warned about. The warning never repeats the secret.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { InvalidInputError } from "@cuzkit/core";
import type { CliIO } from "./io.js";

/** Writes the warning that `flag` carried a secret on the command line, naming the safer ways. */
export function warnSecretArgument(io: Pick<CliIO, "stderr">, flag: string, saferWays: string): void {
  io.stderr.write(
    `warning: ${flag} on the command line is visible to other users (ps) and kept in shell history; ${saferWays}\n`,
  );
}

/** True when a connection URL carries a password (in its user part or `?password=`). */
export function urlHasPassword(url: string): boolean {
  try {
    const parsed = new URL(url);
    return parsed.password !== "" || parsed.searchParams.has("password");
  } catch {
    return false;
  }
}

/** A secret read from a file (trimmed), relative to io.cwd; a typed error naming the flag when unreadable or empty. */
export function readSecretFile(flag: string, path: string, io: Pick<CliIO, "cwd">): string {
  let text: string;
  try {
    text = readFileSync(resolve(io.cwd, path), "utf8").trim();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new InvalidInputError(`${flag} ${path} cannot be read${code === undefined ? "" : ` (${code})`}`, {
      hint: `give ${flag} a readable file holding only the token (mode 0600)`,
      cause: error,
    });
  }
  if (text === "") {
    throw new InvalidInputError(`${flag} ${path} is empty`, {
      hint: `write the token into the file, or leave ${flag} out`,
    });
  }
  return text;
}
