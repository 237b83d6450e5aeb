// Files the bench writes as it goes; its paths are checked first with checkWritablePath.
import { appendFile } from "node:fs/promises";
import { InvalidInputError } from "@cuzkit/core";

/** Appends `value` as one JSON line to `target`. */
export async function appendJsonLine(target: string, value: unknown): Promise<void> {
  try {
    await appendFile(target, `${JSON.stringify(value)}\n`);
  } catch (error) {
    throw new InvalidInputError(`cannot append the report to ${target}: ${(error as Error).message}`, {
      hint: "the report is printed above; check that the folder exists and is writable",
      cause: error,
    });
  }
}
