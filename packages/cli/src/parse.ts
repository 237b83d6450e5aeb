// The CLI's one set of value parsers: whole numbers, positive numbers, durations and sizes.
// Each reads text a person typed and throws an InvalidInputError naming the flag and giving an
// example; `asOption` binds one to a flag for commander.
import { InvalidInputError, parseSizeWithUnit } from "@cuzkit/core";

/** Where a parsed value came from and what a good one looks like, for the error. */
export interface ParseContext {
  /** The flag or argument, such as "--cores" or "instance id". */
  what: string;
  /** A valid value to suggest, such as "32". Default: the minimum, or a generic example. */
  example?: string | undefined;
}

/** A whole number of at least `min` (default 1). */
export function parseWholeNumber(text: string, context: ParseContext & { min?: number | undefined }): number {
  const min = context.min ?? 1;
  const value = Number(text);
  if (!/^\s*\d+\s*$/.test(text) || !Number.isSafeInteger(value) || value < min) {
    throw new InvalidInputError(`${context.what} must be a whole number of at least ${min}, got "${text}"`, {
      hint: `such as ${context.what} ${context.example ?? String(Math.max(min, 1))}`,
    });
  }
  return value;
}

/** A number above 0 (fractions allowed). */
export function parsePositiveNumber(text: string, context: ParseContext): number {
  const value = Number(text);
  if (text.trim() === "" || !Number.isFinite(value) || value <= 0) {
    throw new InvalidInputError(`${context.what} must be a number above 0, got "${text}"`, {
      hint: `such as ${context.what} ${context.example ?? "1.5"}`,
    });
  }
  return value;
}

const durationFactors = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 } as const;
/** The longest delay Node's timers take (2^31 - 1 ms, about 24.8 days). */
const maxTimerMs = 2 ** 31 - 1;
/** One number-and-unit part of a duration; "ms" is tried before "m". */
const durationPart = /(\d+(?:\.\d+)?)(ms|s|m|h)/y;

/** Milliseconds of "90s", "1h30m", "1m30.5s" or "1500ms", or undefined when the text is not one. */
function readDurationMs(text: string): number | undefined {
  const trimmed = text.trim();
  if (trimmed === "") return undefined;
  durationPart.lastIndex = 0;
  let total = 0;
  while (durationPart.lastIndex < trimmed.length) {
    const match = durationPart.exec(trimmed);
    if (!match) return undefined;
    total += Number(match[1]) * durationFactors[match[2] as keyof typeof durationFactors];
  }
  return Math.round(total);
}

/**
 * A duration as people write it, with a unit: "90s", "30m", "1h30m", "1500ms"; above 0. A bare
 * number is refused: "5" read as milliseconds once made `--interval 5` poll every 5 ms.
 */
export function parseDurationMs(text: string, context: ParseContext): number {
  if (/^\s*\d+(?:\.\d+)?\s*$/.test(text)) {
    throw new InvalidInputError(`${context.what} needs a unit, got "${text}"`, {
      hint: `${text.trim()}s? durations need a unit: 500ms, 5s, 2m, 1h30m`,
    });
  }
  const ms = readDurationMs(text);
  if (ms !== undefined && ms > maxTimerMs) {
    // Node fires a longer setTimeout at once (TimeoutOverflowWarning): "1000h" would mean "now".
    throw new InvalidInputError(`${context.what} ${text.trim()} is longer than the 24-day limit of a timer`, {
      hint: `give at most 596h, such as ${context.what} ${context.example ?? "30m"}`,
    });
  }
  if (ms === undefined || !(ms > 0) || !Number.isSafeInteger(ms)) {
    throw new InvalidInputError(
      `${context.what} must be a duration above 0 with a unit (500ms, 90s, 30m, 1h30m), got "${text}"`,
      { hint: `such as ${context.what} ${context.example ?? "30m"}` },
    );
  }
  return ms;
}

/** A size in bytes that must carry a unit ("256GiB", "251GB"); core's parser, named after the flag. */
export function parseSize(text: string, context: ParseContext): number {
  return parseSizeWithUnit(text, `${context.what} size`);
}

/** A duration in the short form the parsers read back ("30m", "10s", "1500ms"), for help text. */
export function durationText(ms: number): string {
  if (ms % 3_600_000 === 0 && ms >= 3_600_000) return `${ms / 3_600_000}h`;
  if (ms % 60_000 === 0 && ms >= 60_000) return `${ms / 60_000}m`;
  if (ms % 1000 === 0 && ms >= 1000) return `${ms / 1000}s`;
  return `${ms}ms`;
}

/**
 * Binds a parser to a flag for commander's `.option(flags, help, parser)`. The typed error passes
 * through commander unchanged (it only catches its own), so the CLI prints the message and hint.
 */
export function asOption<T, C extends ParseContext>(
  parse: (text: string, context: C) => T,
  context: C,
): (text: string) => T {
  return (text) => parse(text, context);
}

/** `asOption(parseWholeNumber)` for a flag, at least `min`. */
export function wholeNumberOption(what: string, min = 1, example?: string): (text: string) => number {
  return asOption(parseWholeNumber, { what, min, example });
}

/** `asOption(parsePositiveNumber)` for a flag. */
export function positiveNumberOption(what: string, example?: string): (text: string) => number {
  return asOption(parsePositiveNumber, { what, example });
}

/** `asOption(parseDurationMs)` for a flag. */
export function durationOption(what: string, example?: string): (text: string) => number {
  return asOption(parseDurationMs, { what, example });
}

/** `asOption(parseSize)` for a flag. */
export function sizeOption(what: string, example?: string): (text: string) => number {
  return asOption(parseSize, { what, example });
}
