import { parseWholeNumber } from "../../parse.js";

/** Commander collector for a repeatable option. */
export function collectValues(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** Instance ids from arguments. */
export function instanceIds(texts: readonly string[]): number[] {
  return texts.map((text) => parseWholeNumber(text, { what: "instance id", example: "1001" }));
}
