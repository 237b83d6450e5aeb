import { GiB, InvalidInputError, sectorSizeBytes } from "@cuzkit/core";
import { C1ParseError } from "./errors.js";

// The PoRep C1 input Curio and cuzk-bench send: a JSON wrapper
// {"SectorNum": n, "Phase1Out": "<base64 of the SealCommitPhase1Output JSON>", "SectorSize": bytes}
// (docs/daemon-facts.md section 5). A real one is ~51 MB, so parsing avoids
// decoding or copying Phase1Out: only its first bytes (where serde writes `registered_proof`)
// and its last bytes are decoded.

/** What the simulated daemon reads from a C1 wrapper. */
export interface C1Wrapper {
  /** SectorNum of the wrapper. */
  sectorNumber: number;
  /** SectorSize of the wrapper, in bytes. */
  sectorSizeBytes: number;
  /** `registered_proof` inside Phase1Out, e.g. "StackedDrg32GiBV1_1". */
  registeredProof: string;
  /** Sector size named by registeredProof, in bytes (undefined when the name has none). */
  registeredProofSectorBytes: number | undefined;
  /** True for inputs made by createSyntheticC1 (Phase1Out carries "synthetic": true). */
  synthetic: boolean;
  /** Length of the Phase1Out base64 text, in bytes. */
  phase1OutBase64Bytes: number;
  /** Length of the whole wrapper, in bytes. */
  wrapperBytes: number;
}

/** Options of createSyntheticC1. */
export interface SyntheticC1Options {
  /** SectorNum of the wrapper. Default 1. */
  sectorNumber?: number | undefined;
  /** Total size of the wrapper in bytes; padded to exactly this size when it is above the ~150-byte minimum. Default 1024 (1 KiB); benchmarks use 51_000_000. */
  sizeBytes?: number | undefined;
  /** SectorSize of the wrapper, in bytes; also picks registered_proof. Default 32 GiB (34359738368). */
  sectorSizeBytes?: number | undefined;
}

/** Default size of a synthetic C1 wrapper in bytes. */
export const defaultSyntheticC1Bytes = 1024;

const headCheckChars = 64 * 1024;
const quote = 0x22;
const backslash = 0x5c;

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function skipWhitespace(buf: Buffer, index: number): number {
  let i = index;
  while (i < buf.length && (buf[i] === 0x20 || buf[i] === 0x09 || buf[i] === 0x0a || buf[i] === 0x0d)) i++;
  return i;
}

/** The sector size a registered proof name such as "StackedDrg32GiBV1_1" stands for, in bytes. */
export function sectorBytesOfRegisteredProof(name: string): number | undefined {
  const match = /^StackedDrg(\d+)(KiB|MiB|GiB)V1/.exec(name);
  if (!match) return undefined;
  const unit = match[2] === "GiB" ? GiB : match[2] === "MiB" ? 1024 ** 2 : 1024;
  return Number(match[1]) * unit;
}

function parseJson(text: Buffer, what: string): unknown {
  try {
    return JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(text));
  } catch (error) {
    throw new C1ParseError(
      `${what} is not valid JSON: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

/** Finds the Phase1Out string value: [start, end) of its text inside the wrapper, or undefined when it holds escapes. */
function findPhase1Out(buf: Buffer): { start: number; end: number } | undefined {
  const key = buf.indexOf('"Phase1Out"');
  if (key < 0) throw new C1ParseError("missing field `Phase1Out`");
  let i = skipWhitespace(buf, key + '"Phase1Out"'.length);
  if (buf[i] !== 0x3a) throw new C1ParseError("expected `:` after `Phase1Out`");
  i = skipWhitespace(buf, i + 1);
  if (buf[i] !== quote) throw new C1ParseError("invalid type for `Phase1Out`: expected a base64 string");
  const start = i + 1;
  const end = buf.indexOf(quote, start);
  if (end < 0) throw new C1ParseError("EOF while parsing the `Phase1Out` string");
  const firstEscape = buf.indexOf(backslash, start);
  if (firstEscape >= 0 && firstEscape < end) return undefined;
  return { start, end };
}

function decodeBase64Slice(text: string): Buffer {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text)) throw new C1ParseError("Phase1Out is not valid base64");
  return Buffer.from(text, "base64");
}

/**
 * Parses a PoRep C1 wrapper as the simulated daemon does and returns what it read. Throws
 * C1ParseError (code C1_PARSE_FAILED) for anything the daemon would fail with
 * "C1 parse failed: ...": not JSON, a missing or mistyped field, Phase1Out that is not base64
 * of a JSON object, or a Phase1Out without `registered_proof`.
 */
export function parseC1Wrapper(bytes: Uint8Array): C1Wrapper {
  const buf = asBuffer(bytes);
  if (buf.length === 0) throw new C1ParseError("EOF while parsing a value at line 1 column 0");
  let wrapper: Record<string, unknown>;
  let phase1Out: string | { start: number; end: number };
  const located = findPhase1Out(buf);
  if (located === undefined) {
    // Escapes inside Phase1Out: rare, so the whole wrapper is parsed the slow way.
    const parsed = parseJson(buf, "the C1 wrapper");
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed)) {
      throw new C1ParseError("invalid type: expected a JSON object");
    }
    wrapper = parsed as Record<string, unknown>;
    if (typeof wrapper.Phase1Out !== "string")
      throw new C1ParseError("invalid type for `Phase1Out`: expected a string");
    phase1Out = wrapper.Phase1Out;
  } else {
    const rest = Buffer.concat([buf.subarray(0, located.start), buf.subarray(located.end)]);
    const parsed = parseJson(rest, "the C1 wrapper");
    if (parsed === null || typeof parsed !== "object" || Array.isArray(parsed) || !("Phase1Out" in parsed)) {
      throw new C1ParseError("invalid type: expected a JSON object with `Phase1Out`");
    }
    wrapper = parsed as Record<string, unknown>;
    phase1Out = located;
  }
  const { SectorNum, SectorSize } = wrapper;
  if (typeof SectorNum !== "number" || !Number.isInteger(SectorNum) || SectorNum < 0) {
    throw new C1ParseError("missing or invalid field `SectorNum`: expected a u64");
  }
  if (typeof SectorSize !== "number" || !Number.isInteger(SectorSize) || SectorSize <= 0) {
    throw new C1ParseError("missing or invalid field `SectorSize`: expected a u64");
  }
  const base64Length = typeof phase1Out === "string" ? phase1Out.length : phase1Out.end - phase1Out.start;
  const slice = (from: number, to: number) =>
    typeof phase1Out === "string"
      ? phase1Out.slice(from, to)
      : buf.toString("latin1", phase1Out.start + from, phase1Out.start + to);
  if (base64Length === 0 || base64Length % 4 !== 0) {
    throw new C1ParseError("Phase1Out is not valid base64 (empty, or its length is not a multiple of 4)");
  }
  const headChars = Math.min(base64Length, headCheckChars);
  const head = decodeBase64Slice(slice(0, headChars)).toString("utf8");
  const tail = decodeBase64Slice(slice(Math.max(0, base64Length - 8), base64Length)).toString("latin1");
  if (!/^\s*\{/.test(head) || !/\}\s*$/.test(tail)) {
    throw new C1ParseError("Phase1Out does not decode to a SealCommitPhase1Output JSON object");
  }
  let registered = /"registered_proof"\s*:\s*"([^"]+)"/.exec(head)?.[1];
  if (registered === undefined && headChars < base64Length) {
    const whole = decodeBase64Slice(slice(0, base64Length)).toString("utf8");
    registered = /"registered_proof"\s*:\s*"([^"]+)"/.exec(whole)?.[1];
  }
  if (registered === undefined) throw new C1ParseError("missing field `registered_proof` in Phase1Out");
  return {
    sectorNumber: SectorNum,
    sectorSizeBytes: SectorSize,
    registeredProof: registered,
    registeredProofSectorBytes: sectorBytesOfRegisteredProof(registered),
    synthetic: /"synthetic"\s*:\s*true/.test(head),
    phase1OutBase64Bytes: base64Length,
    wrapperBytes: buf.length,
  };
}

function registeredProofFor(sectorBytes: number): string {
  if (sectorBytes === sectorSizeBytes["64GiB"]) return "StackedDrg64GiBV1_1";
  if (sectorBytes === sectorSizeBytes["32GiB"]) return "StackedDrg32GiBV1_1";
  if (sectorBytes % GiB === 0) return `StackedDrg${sectorBytes / GiB}GiBV1_1`;
  return `StackedDrg${Math.round(sectorBytes / 1024)}KiBV1_1`;
}

/**
 * Builds a C1 wrapper the simulated daemon accepts, cheaply: the real wrapper shape, with
 * Phase1Out = base64 of {"registered_proof": "StackedDrg32GiBV1_1", "synthetic": true,
 * "padding": "aaa..."}, padded to `sizeBytes` (default 1 KiB; 51_000_000 for a realistic one).
 * The same options always give the same bytes.
 */
export function createSyntheticC1(options: SyntheticC1Options = {}): Uint8Array {
  const sectorNumber = options.sectorNumber ?? 1;
  const sizeBytes = options.sizeBytes ?? defaultSyntheticC1Bytes;
  const sectorBytes = options.sectorSizeBytes ?? sectorSizeBytes["32GiB"];
  if (!Number.isInteger(sectorNumber) || sectorNumber < 0) {
    throw new InvalidInputError(`sectorNumber must be a whole number >= 0, got ${sectorNumber}`, {
      hint: "use 1, 2, ...",
    });
  }
  if (!Number.isInteger(sizeBytes) || sizeBytes < 0) {
    throw new InvalidInputError(`sizeBytes must be a whole number of bytes, got ${sizeBytes}`, {
      hint: "use 1024 or 51000000",
    });
  }
  if (!Number.isInteger(sectorBytes) || sectorBytes <= 0) {
    throw new InvalidInputError(`sectorSizeBytes must be a whole number of bytes, got ${sectorBytes}`, {
      hint: "use 34359738368",
    });
  }
  const head = `{"SectorNum":${sectorNumber},"Phase1Out":"`;
  const tail = `","SectorSize":${sectorBytes}}`;
  const jsonHead = `{"registered_proof":"${registeredProofFor(sectorBytes)}","synthetic":true,"padding":"`;
  const jsonTail = `"}`;
  const jsonMin = jsonHead.length + jsonTail.length;
  const available = sizeBytes - head.length - tail.length;
  let jsonLength = Math.floor(Math.max(0, available) / 4) * 3;
  if (jsonLength < jsonMin) jsonLength = jsonMin;
  const json = Buffer.alloc(jsonLength, "a");
  json.write(jsonHead, 0, "latin1");
  json.write(jsonTail, jsonLength - jsonTail.length, "latin1");
  const base64 = json.toString("base64");
  const spaces = Math.max(0, sizeBytes - head.length - base64.length - tail.length);
  const total = head.length + base64.length + tail.length + spaces;
  const out = Buffer.alloc(total, " ");
  let offset = out.write(head, 0, "latin1");
  offset += out.write(base64, offset, "latin1");
  // Whitespace before the closing brace is valid JSON and makes the size exact.
  out.write(tail.slice(0, -1), offset, "latin1");
  out.write("}", total - 1, "latin1");
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}
