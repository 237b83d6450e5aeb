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

/**
 * Parses a size as people and tools write it: "256GiB", "251 GB", "125829120 KiB",
 * "1.5TiB", "512G", or a plain number of bytes. Decimal units (GB) are powers of 1000,
 * binary units (GiB) powers of 1024; a bare "G" counts as GB. Throws InvalidInputError.
 */
export function parseByteSize(text: string | number): number {
  if (typeof text === "number") {
    if (Number.isFinite(text) && text >= 0) return Math.round(text);
    throw new InvalidInputError(`invalid size ${text}`, "give a non-negative number of bytes");
  }
  const match = /^\s*(\d+(?:\.\d+)?)\s*([a-zA-Z]*)\s*$/.exec(text);
  const unit = match?.[2]?.toLowerCase() ?? "";
  const factor = unit === "" ? 1 : unitBytes[unit];
  if (!match || factor === undefined) {
    throw new InvalidInputError(
      `cannot read the size "${text}"`,
      'write a number with a unit, such as "256GiB", "251GB", "64MiB" or "125829120 KiB"',
    );
  }
  return Math.round(Number(match[1]) * factor);
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

/**
 * What cuzk's own `parse_size` makes of a size string: integer `GiB|MiB|GB|MB` or plain
 * bytes. Returns undefined for anything else; the daemon then silently uses 50 GiB.
 */
export function parseCuzkSize(text: string): number | undefined {
  const match = /^(\d+)(GiB|MiB|GB|MB)?$/.exec(text.trim());
  if (!match) return undefined;
  const value = Number(match[1]);
  switch (match[2]) {
    case "GiB":
      return value * GiB;
    case "MiB":
      return value * MiB;
    case "GB":
      return value * 1e9;
    case "MB":
      return value * 1e6;
    default:
      return value;
  }
}

/** The size the daemon falls back to, silently, for a size string it cannot parse. */
export const cuzkSizeFallbackBytes = 50 * GiB;

/**
 * Emits a size string cuzk parses exactly: whole GiB when possible ("240GiB"), else whole
 * MiB, else plain bytes. Fractions are rounded DOWN so a budget never grows by rounding.
 * Never produces a string the daemon would turn into 50 GiB.
 */
export function toCuzkSize(bytes: number): string {
  if (!Number.isFinite(bytes) || bytes < 0) {
    throw new InvalidInputError(
      `cannot express ${bytes} bytes as a cuzk size`,
      "give a non-negative byte count",
    );
  }
  const whole = Math.floor(bytes);
  if (whole >= GiB) return `${Math.floor(whole / GiB)}GiB`;
  if (whole >= MiB) return `${Math.floor(whole / MiB)}MiB`;
  return `${whole}`;
}
