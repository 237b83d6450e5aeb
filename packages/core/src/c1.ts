import { GiB } from "./bytes.js";
import { C1InputError } from "./errors.js";
import { daemonMaxMessageBytes, sectorSizeBytes } from "./vocabulary.js";

// The PoRep C1 input as Curio and cuzk-bench send it: a JSON wrapper
// {"SectorNum": n, "Phase1Out": "<base64 of the SealCommitPhase1Output JSON>", "SectorSize": bytes}.
// Source: docs/daemon-facts.md section 5.
//
// A real one is about 51 MB, almost all of it the Phase1Out string. The reader walks the
// wrapper's top-level keys over the bytes it is given and never parses, decodes or copies
// Phase1Out: it finds the string's end with a native byte search and decodes only its first
// and last bytes (serde writes `registered_proof` first). The bytes stay the caller's, so the
// client can send them to the daemon by reference (docs/ARCHITECTURE.md, pre-encoded request path).

/** What a PoRep C1 wrapper says, as read by readC1Wrapper. */
export interface C1Wrapper {
  /** SectorNum of the wrapper. */
  sectorNumber: number;
  /** SectorSize of the wrapper, in bytes. */
  sectorSizeBytes: number;
  /** `registered_proof` inside Phase1Out, e.g. "StackedDrg32GiBV1_1". */
  registeredProof: string;
  /** Sector size named by registeredProof, in bytes (undefined when the name has none). */
  registeredProofSectorBytes: number | undefined;
  /** True for inputs made by the simulator's createSyntheticC1 (Phase1Out carries "synthetic": true). */
  synthetic: boolean;
  /** Length of the Phase1Out base64 text, in bytes. */
  phase1OutBase64Bytes: number;
  /** Length of the decoded Phase1Out, in bytes. */
  phase1OutBytes: number;
  /** Size of the whole wrapper, in bytes. */
  wrapperBytes: number;
}

/** What inspectC1 returns: the wrapper, checked against what the daemon proves. */
export type C1Summary = C1Wrapper;

const quote = 0x22;
const backslash = 0x5c;
/** Base64 characters decoded from each end of Phase1Out to check it and find `registered_proof`. */
const edgeChars = 64 * 1024;
const registeredProofPattern = /"registered_proof"\s*:\s*"([^"]+)"/;

function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

function isWhitespace(byte: number | undefined): boolean {
  return byte === 0x20 || byte === 0x0a || byte === 0x0d || byte === 0x09;
}

/** The sector size a registered proof name such as "StackedDrg32GiBV1_1" stands for, in bytes. */
export function sectorBytesOfRegisteredProof(name: string): number | undefined {
  const match = /^StackedDrg(\d+)(KiB|MiB|GiB)V1/.exec(name);
  if (!match) return undefined;
  const unit = match[2] === "GiB" ? GiB : match[2] === "MiB" ? 1024 ** 2 : 1024;
  return Number(match[1]) * unit;
}

/** A JSON value at the top level of the wrapper: where it is and what type it has. */
interface TopLevelValue {
  type: "string" | "number" | "object" | "array" | "literal";
  start: number;
  end: number;
  /** Strings only: the text between the quotes holds a backslash escape. */
  escaped: boolean;
}

/** Walks a JSON object's top-level members without materialising their values. */
class TopLevelScanner {
  private index = 0;

  constructor(private readonly buf: Buffer) {}

  private fail(what: string): never {
    if (this.index >= this.buf.length)
      throw new C1InputError(`the C1 input ends early at byte ${this.buf.length} (truncated?): ${what}`);
    throw new C1InputError(`the C1 input is not valid JSON at byte ${this.index}: ${what}`);
  }

  private skipWhitespace(): number | undefined {
    while (isWhitespace(this.buf[this.index])) this.index++;
    return this.buf[this.index];
  }

  private expect(byte: number, what: string): void {
    if (this.skipWhitespace() !== byte) this.fail(`expected ${what}`);
    this.index++;
  }

  /** Skips a string starting at the current quote; the search for its end is native. */
  private string(): TopLevelValue {
    const start = this.index + 1;
    let from = start;
    for (;;) {
      const end = this.buf.indexOf(quote, from);
      if (end < 0) {
        this.index = this.buf.length;
        this.fail("a string is not closed");
      }
      let slashes = 0;
      while (this.buf[end - 1 - slashes] === backslash) slashes++;
      if (slashes % 2 === 0) {
        this.index = end + 1;
        return { type: "string", start, end, escaped: this.buf.subarray(start, end).includes(backslash) };
      }
      from = end + 1;
    }
  }

  /** Skips a nested object or array (strings inside are skipped as strings). */
  private nested(): TopLevelValue {
    const start = this.index;
    const type = this.buf[start] === 0x7b ? "object" : "array";
    let depth = 0;
    while (this.index < this.buf.length) {
      const byte = this.buf[this.index];
      if (byte === quote) {
        this.string();
        continue;
      }
      if (byte === 0x7b || byte === 0x5b) depth++;
      else if (byte === 0x7d || byte === 0x5d) depth--;
      this.index++;
      if (depth === 0) return { type, start, end: this.index, escaped: false };
    }
    return this.fail(`an ${type} is not closed`);
  }

  private scalar(): TopLevelValue {
    const start = this.index;
    while (this.index < this.buf.length && /[-+.\w]/.test(String.fromCharCode(this.buf[this.index] ?? 0)))
      this.index++;
    if (this.index === start) this.fail("expected a value");
    const first = this.buf[start];
    const type =
      first === 0x2d || (first !== undefined && first >= 0x30 && first <= 0x39) ? "number" : "literal";
    return { type, start, end: this.index, escaped: false };
  }

  private value(): TopLevelValue {
    const byte = this.skipWhitespace();
    if (byte === quote) return this.string();
    if (byte === 0x7b || byte === 0x5b) return this.nested();
    return this.scalar();
  }

  /** The members of the top-level object, by key; rejects anything that is not one JSON object. */
  members(): Map<string, TopLevelValue> {
    const first = this.skipWhitespace();
    if (first === 0x5b)
      throw new C1InputError(
        "the C1 input is a JSON array, not the C1 wrapper object (is it a vanilla proofs file of SnapDeals or PoSt?)",
        { reason: "wrong-kind" },
      );
    if (first !== 0x7b) this.fail("expected `{`");
    this.index++;
    const members = new Map<string, TopLevelValue>();
    if (this.skipWhitespace() === 0x7d) {
      this.index++;
    } else {
      for (;;) {
        if (this.skipWhitespace() !== quote) this.fail("expected a key");
        const keySpan = this.string();
        const key = this.text(keySpan);
        if (members.has(key)) throw new C1InputError(`the C1 input has the field \`${key}\` twice`);
        this.expect(0x3a, "`:`");
        members.set(key, this.value());
        const next = this.skipWhitespace();
        this.index++;
        if (next === 0x7d) break;
        if (next !== 0x2c) {
          this.index--;
          this.fail("expected `,` or `}`");
        }
      }
    }
    if (this.skipWhitespace() !== undefined) this.fail("more data after the wrapper object");
    return members;
  }

  /** The decoded text of a string or scalar value (small values only). */
  text(value: TopLevelValue): string {
    if (value.type !== "string") return this.buf.toString("utf8", value.start, value.end);
    if (!value.escaped) return this.buf.toString("utf8", value.start, value.end);
    try {
      return JSON.parse(this.buf.toString("utf8", value.start - 1, value.end + 1)) as string;
    } catch (cause) {
      throw new C1InputError(`the C1 input has a bad escape in a string at byte ${value.start}`, { cause });
    }
  }
}

function wholeNumberField(
  scanner: TopLevelScanner,
  members: Map<string, TopLevelValue>,
  key: string,
  positive: boolean,
): number {
  const value = members.get(key);
  if (value === undefined) throw new C1InputError(`the C1 input has no \`${key}\` field`);
  const text = scanner.text(value);
  const number = value.type === "number" ? Number(text) : Number.NaN;
  if (!Number.isSafeInteger(number) || number < (positive ? 1 : 0)) {
    throw new C1InputError(
      `the C1 input's \`${key}\` is ${value.type === "string" ? JSON.stringify(text.slice(0, 40)) : text.slice(0, 40)}, not a whole number`,
    );
  }
  return number;
}

function decodeBase64(text: string): string {
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(text)) throw new C1InputError("the C1 input's Phase1Out is not base64");
  return Buffer.from(text, "base64").toString("utf8");
}

/**
 * Reads a PoRep C1 wrapper from `bytes` by a scan of its top-level keys: no JSON parse of the
 * whole input, no copy of Phase1Out (only its first and last 64 KiB of base64 are decoded).
 * Throws C1InputError (code C1_INVALID) for anything the daemon would fail to parse: not one
 * JSON object, a truncated input, a missing or mistyped field, a JSON array (a vanilla proofs
 * file), a Phase1Out that is not base64 of a JSON object or lacks `registered_proof`. It does not
 * judge the sector size; inspectC1 does.
 */
export function readC1Wrapper(bytes: Uint8Array): C1Wrapper {
  const buf = asBuffer(bytes);
  if (buf.length === 0) throw new C1InputError("the C1 input is empty");
  const scanner = new TopLevelScanner(buf);
  const members = scanner.members();
  const sectorNumber = wholeNumberField(scanner, members, "SectorNum", false);
  const sectorBytes = wholeNumberField(scanner, members, "SectorSize", true);
  const phase1Out = members.get("Phase1Out");
  if (phase1Out === undefined) throw new C1InputError("the C1 input has no `Phase1Out` field");
  if (phase1Out.type !== "string")
    throw new C1InputError(`the C1 input's Phase1Out is a JSON ${phase1Out.type}, not a base64 string`);
  // Base64 has no characters JSON must escape; an escaped one (rare, "\/") is decoded the slow way.
  const escapedText = phase1Out.escaped ? scanner.text(phase1Out) : undefined;
  const length = escapedText?.length ?? phase1Out.end - phase1Out.start;
  const slice = (from: number, to: number) =>
    escapedText?.slice(from, to) ?? buf.toString("latin1", phase1Out.start + from, phase1Out.start + to);
  if (length === 0 || length % 4 !== 0) {
    throw new C1InputError(
      `the C1 input's Phase1Out is not base64 (${length === 0 ? "it is empty" : "its length is not a multiple of 4"})`,
    );
  }
  const edge = Math.min(length, edgeChars);
  const head = decodeBase64(slice(0, edge));
  const tail = decodeBase64(slice(length - edge, length));
  if (!/^\s*\{/.test(head) || !/\}\s*$/.test(tail)) {
    throw new C1InputError(
      "the C1 input's Phase1Out does not decode to a SealCommitPhase1Output JSON object",
    );
  }
  const registeredProof =
    registeredProofPattern.exec(head)?.[1] ??
    registeredProofPattern.exec(tail)?.[1] ??
    (length > 2 * edge ? registeredProofPattern.exec(decodeBase64(slice(0, length)))?.[1] : undefined);
  if (registeredProof === undefined)
    throw new C1InputError("the C1 input's Phase1Out has no `registered_proof`");
  const padding = slice(length - 2, length).split("=").length - 1;
  return {
    sectorNumber,
    sectorSizeBytes: sectorBytes,
    registeredProof,
    registeredProofSectorBytes: sectorBytesOfRegisteredProof(registeredProof),
    synthetic: /"synthetic"\s*:\s*true/.test(head),
    phase1OutBase64Bytes: length,
    phase1OutBytes: (length / 4) * 3 - padding,
    wrapperBytes: buf.length,
  };
}

/**
 * Reads a C1 wrapper (readC1Wrapper) and checks it against what the daemon proves: at most the
 * 128 MiB message cap, a 32 or 64 GiB SectorSize, and a registered proof of that same size.
 * Throws C1InputError; keeps no copy of `bytes`.
 */
export function inspectC1(bytes: Uint8Array): C1Summary {
  if (bytes.byteLength > daemonMaxMessageBytes) {
    throw new C1InputError(
      `the C1 input is ${(bytes.byteLength / 2 ** 20).toFixed(1)} MiB, over the daemon's 128 MiB message cap`,
      { hint: "a 32 GiB PoRep C1 output is about 51 MB; check that this is the right file" },
    );
  }
  const wrapper = readC1Wrapper(bytes);
  if (!Object.values<number>(sectorSizeBytes).includes(wrapper.sectorSizeBytes)) {
    throw new C1InputError(
      `the C1 input's SectorSize ${wrapper.sectorSizeBytes} is not 32 GiB (34359738368) or 64 GiB`,
      { hint: "the daemon proves 32 GiB sectors in its default pipeline mode", reason: "wrong-kind" },
    );
  }
  if (wrapper.registeredProofSectorBytes !== wrapper.sectorSizeBytes) {
    throw new C1InputError(
      `the C1 input's registered proof ${wrapper.registeredProof} does not match its SectorSize ${wrapper.sectorSizeBytes}`,
      { reason: "wrong-kind" },
    );
  }
  return wrapper;
}
