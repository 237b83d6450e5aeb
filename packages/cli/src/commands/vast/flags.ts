import { InvalidInputError } from "@cuzkit/core";

/** Commander collector for a repeatable option. */
export function collectValues(value: string, previous: string[]): string[] {
  return [...previous, value];
}

/** A whole number >= 1 from a flag or argument, or InvalidInputError naming it. */
export function positiveInteger(text: string, what: string): number {
  const value = Number(text);
  if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(value) || value < 1) {
    throw new InvalidInputError(`${what} must be a whole number >= 1, got "${text}"`, {
      hint: `such as ${what === "--tail" ? "200" : "1001"}`,
    });
  }
  return value;
}

/** A positive number from a flag, or InvalidInputError naming it. */
export function positiveNumber(text: string, what: string): number {
  const value = Number(text);
  if (text.trim() === "" || !Number.isFinite(value) || value <= 0) {
    throw new InvalidInputError(`${what} must be a positive number, got "${text}"`, { hint: "such as 1.5" });
  }
  return value;
}

/** Instance ids from arguments. */
export function instanceIds(texts: readonly string[]): number[] {
  return texts.map((text) => positiveInteger(text, "instance id"));
}
