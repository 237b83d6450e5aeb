import { InvalidInputError } from "./errors.js";

// Byte sizes: parse what people and tools write, format for people, and emit the only
// size strings cuzk's config parser understands.

const KiB = 1024;
/** 1 MiB in bytes. */
export const MiB = 1024 * KiB;
/** 1 GiB in bytes. */
export const GiB = 1024 * MiB;
/** 1 TiB in bytes. */
export const TiB = 1024 * GiB;

const unitBytes: Record<string, number> = {
  b: 1,
  k: 1e3,
  kb: 1e3,
  m: 1e6,
  mb: 1e6,
  g: 1e9,
  gb: 1e9,
  t: 1e12,
  tb: 1e12,
  ki: KiB,
  kib: KiB,
  mi: MiB,
  mib: MiB,
  gi: GiB,
  gib: GiB,
  ti: TiB,
  tib: TiB,
};

/** Options of `parseByteSize`. */
export interface ParseByteSizeOptions {
  /**
   * Refuse a number without a unit ("24"), whose meaning people guess differently (bytes here,
   * GB in the Vast CLI). Default false: a bare number is bytes.
   */
  requireUnit?: boolean | undefined;
  /** Names the input in the error, such as "--min-gpu-ram". Default "the size". */
  what?: string | undefined;
}

/**
 * Parses a size as people and tools write it: "256GiB", "251 GB", "125829120 KiB",
 * "1.5TiB", "512G", or a plain number of bytes. Decimal units (GB) are powers of 1000,
 * binary units (GiB) powers of 1024; a bare "G" counts as GB. Throws InvalidInputError.
 */
export function parseByteSize(text: string | number, options: ParseByteSizeOptions = {}): number {
  const what = options.what ?? "the size";
  if (typeof text === "number") {
    if (Number.isFinite(text) && text >= 0) return Math.round(text);
    throw new InvalidInputError(`invalid size ${text}`, { hint: "give a non-negative number of bytes" });
  }
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(text);
  const unit = match?.[2]?.toLowerCase() ?? "";
  const factor = unit === "" ? 1 : unitBytes[unit];
  if (!match || factor === undefined) {
    throw new InvalidInputError(`cannot read ${what} "${text}"`, {
      hint: 'write a number with a unit, such as "256GiB", "251GB", "64MiB" or "125829120 KiB"',
    });
  }
  if (unit === "" && options.requireUnit === true) {
    throw new InvalidInputError(`${what} "${text}" has no unit`, {
      hint: `write the unit, such as "${match[1]}GiB" (binary) or "${match[1]}GB" (decimal); a bare number would be bytes`,
    });
  }
  return Math.round(Number(match[1]) * factor);
}

/** How a unit conversion rounds: "up" and "down" keep a bound from moving the wrong way. Default "nearest". */
export type UnitRounding = "up" | "down" | "nearest";

function roundAs(value: number, rounding: UnitRounding): number {
  if (rounding === "up") return Math.ceil(value - 1e-9);
  if (rounding === "down") return Math.floor(value + 1e-9);
  return Math.round(value);
}

/**
 * MiB (2^20 bytes) to bytes. Memory totals that nvidia-smi, /proc/meminfo and the Vast.ai API
 * report as "MB" are MiB: an RTX 4090 reports 24564, an H100 80GB 81559.
 */
export function mebibytesToBytes(mib: number): number {
  return Math.round(mib * MiB);
}

/** Bytes to MiB, rounded as `rounding` says (default nearest). */
export function bytesToMebibytes(bytes: number, rounding: UnitRounding = "nearest"): number {
  return roundAs(bytes / MiB, rounding);
}

/** Decimal GB (1e9 bytes, disk sizes as sold and as Vast.ai's disk fields mean them) to bytes. */
export function gigabytesToBytes(gb: number): number {
  return Math.round(gb * 1e9);
}

/** Bytes to decimal GB, rounded as `rounding` says (default nearest). */
export function bytesToGigabytes(bytes: number, rounding: UnitRounding = "nearest"): number {
  return roundAs(bytes / 1e9, rounding);
}

/** Formats bytes for people in binary units: "251.0 GiB", "51.2 MiB", "512 B". */
export function formatBytes(bytes: number, fractionDigits = 1): string {
  const abs = Math.abs(bytes);
  if (abs >= TiB) return `${(bytes / TiB).toFixed(fractionDigits)} TiB`;
  if (abs >= GiB) return `${(bytes / GiB).toFixed(fractionDigits)} GiB`;
  if (abs >= MiB) return `${(bytes / MiB).toFixed(fractionDigits)} MiB`;
  if (abs >= KiB) return `${(bytes / KiB).toFixed(fractionDigits)} KiB`;
  return `${bytes} B`;
}

/** What cuzk's config parser made of a size string. */
export interface CuzkSizeReading {
  /** The bytes the daemon uses. */
  bytes: number;
  /** True when the number was read as written; false when the daemon fell back to a default. */
  readAsWritten: boolean;
}

// Rust's str::trim removes Unicode White_Space, which differs from JS's \s (U+0085 in, U+FEFF out).
const rustWhiteSpace = "\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000";
const rustTrim = new RegExp(`^[${rustWhiteSpace}]+|[${rustWhiteSpace}]+$`, "g");
const u64Max = 2n ** 64n - 1n;

/** Rust's `str::parse::<u64>()`: an optional "+", then ASCII digits only, at most 2^64 - 1. */
function parseRustU64(text: string): bigint | undefined {
  if (!/^\+?[0-9]+$/.test(text)) return undefined;
  const value = BigInt(text.startsWith("+") ? text.slice(1) : text);
  return value <= u64Max ? value : undefined;
}

/**
 * What cuzk's own `parse_size` makes of a size string, exactly: it trims the text, then
 * takes a `GiB`, `MiB`, `GB` or `MB` suffix (case-sensitive, in that order), trims again
 * and parses the rest as an unsigned integer (a leading "+" is allowed); no suffix means
 * bytes. When the number does not parse it falls back silently: 50 GiB for `GiB` and for
 * plain bytes, 50 GB for `GB`, 0 for `MiB` and `MB` (so "1.5MiB" is 0, "1.5GiB" 50 GiB).
 * Products beyond 2^64 wrap, as in a release build.
 * Source: curio extern/cuzk/cuzk-core/src/config.rs `parse_size` (read at e0294b0f).
 */
export function parseCuzkSize(text: string): CuzkSizeReading {
  const trimmed = text.replace(rustTrim, "");
  const suffixes: [string, bigint, bigint][] = [
    ["GiB", 1024n ** 3n, 50n],
    ["MiB", 1024n ** 2n, 0n],
    ["GB", 1_000_000_000n, 50n],
    ["MB", 1_000_000n, 0n],
  ];
  for (const [suffix, unit, fallback] of suffixes) {
    if (!trimmed.endsWith(suffix)) continue;
    const number = parseRustU64(trimmed.slice(0, -suffix.length).replace(rustTrim, ""));
    const bytes = ((number ?? fallback) * unit) & u64Max;
    return { bytes: Number(bytes), readAsWritten: number !== undefined };
  }
  const number = parseRustU64(trimmed);
  return { bytes: number === undefined ? 50 * GiB : Number(number), readAsWritten: number !== undefined };
}

/** The size the daemon falls back to, silently, for a GiB or plain size string it cannot parse. */
export const cuzkSizeFallbackBytes = 50 * GiB;

const unitSuggestion = (value: string) =>
  `did you mean "${value}GiB"? Write a unit: GiB or TiB (binary), GB or TB (decimal)`;

/**
 * Parses a size a person typed on a command line, where a unit is required: "256GiB",
 * "251 GB", "2TiB", "64MiB". A bare number is refused with a "did you mean 256GiB?" hint
 * (it would otherwise mean bytes), and so are single-letter units such as "256G" (GB or
 * GiB?). Throws InvalidInputError.
 */
export function parseSizeWithUnit(text: string, what = "size"): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(text);
  const value = match?.[1];
  const unit = match?.[2] ?? "";
  if (value !== undefined && unit === "") {
    throw new InvalidInputError(`the ${what} "${text.trim()}" has no unit`, { hint: unitSuggestion(value) });
  }
  if (value !== undefined && /^[kmgt]$/i.test(unit)) {
    throw new InvalidInputError(`the ${what} "${text.trim()}" has an ambiguous unit "${unit}"`, {
      hint: `write ${value}${unit.toUpperCase()}iB (binary, as free and nvidia-smi print) or ${value}${unit.toUpperCase()}B (decimal, as Vast.ai offers print)`,
    });
  }
  return parseByteSize(text);
}

/**
 * Emits a size string cuzk parses exactly: whole GiB when possible ("240GiB"), else whole
 * MiB, else plain bytes. Fractions are rounded DOWN so a budget never grows by rounding.
 * Never produces a string the daemon would turn into 50 GiB.
 */
export function toCuzkSize(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) {
    throw new InvalidInputError(`cannot express ${bytes} bytes as a cuzk size`, {
      hint: "give a non-negative byte count",
    });
  }
  const whole = Math.floor(bytes);
  if (whole >= GiB) return `${Math.floor(whole / GiB)}GiB`;
  if (whole >= MiB) return `${Math.floor(whole / MiB)}MiB`;
  return `${whole}`;
}
