import {
  C1InputError,
  type C1Wrapper,
  GiB,
  InvalidInputError,
  readC1Wrapper,
  sectorSizeBytes,
} from "@cuzkit/core";
import { C1ParseError } from "./errors.js";

// The PoRep C1 input Curio and cuzk-bench send: a JSON wrapper
// {"SectorNum": n, "Phase1Out": "<base64 of the SealCommitPhase1Output JSON>", "SectorSize": bytes}
// (docs/daemon-facts.md section 5). The simulator reads it with core's readC1Wrapper, the
// same copy-free reader the CLI and the client use, and only reshapes its error as the
// daemon's "C1 parse failed".

export type { C1Wrapper };

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

/**
 * Reads a PoRep C1 wrapper as the simulated daemon does (core's readC1Wrapper). Throws
 * C1ParseError (code C1_PARSE_FAILED) for anything the daemon would fail with
 * "C1 parse failed: ...", with the reader's message.
 */
export function parseC1Wrapper(bytes: Uint8Array): C1Wrapper {
  try {
    return readC1Wrapper(bytes);
  } catch (error) {
    if (error instanceof C1InputError) throw new C1ParseError(error.message, { cause: error });
    throw error;
  }
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
