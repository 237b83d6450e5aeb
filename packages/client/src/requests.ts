import { create } from "@bufbuild/protobuf";
import {
  curioPriority,
  inspectC1,
  type ProofKind,
  proofKindWireValue,
  registeredProof32GiB,
  sectorSizeBytes,
} from "@cuzkit/core";
import { type Priority, type SubmitProofRequest, SubmitProofRequestSchema } from "@cuzkit/proto";
import { InvalidRequestError, PayloadTooLargeError } from "./errors.js";
import { maxVanillaProofsFileBytes, readProofInputFile } from "./input-file.js";

// Friendly builders for the four proof kinds: they fill sector size (32 GiB), the registered
// proof Curio sends and Curio's priority, read input files, and take digests as bytes or hex.
// The request id stays empty unless given: `prove` derives a unique id per attempt from it.

/** A 32-byte digest as raw bytes or hex (64 characters, optional 0x). */
export type Bytes32 = Uint8Array | string;
/** Bytes in memory, or a file to read them from. */
export type BytesOrFile = Uint8Array | { path: string };
/** Vanilla proofs in memory, or a file: a JSON array of base64 strings, else the whole file as one proof. */
export type VanillaProofsInput = Uint8Array[] | { path: string };

/** Fields every builder accepts. */
export interface CommonRequestInput {
  /** Request id; leave empty to let `prove` create one per attempt. Default "". */
  requestId?: string | undefined;
  /** Miner (actor) id, without the f0 prefix. */
  minerId: number | bigint;
  /** Priority (cuzk.v1.Priority). Default: Curio's for the kind (PoRep/Snap NORMAL, WindowPoSt HIGH, WinningPoSt CRITICAL). */
  priority?: Priority | undefined;
  /** Registered proof number. Default: Curio's 32 GiB value for the kind. */
  registeredProof?: number | bigint | undefined;
  /** Sector size in bytes. Default 34359738368 (32 GiB; the daemon's pipeline proves 32 GiB only). */
  sectorSizeBytes?: number | bigint | undefined;
}

/** Input of porepRequest. */
export interface PorepRequestInput extends CommonRequestInput {
  /** The C1 wrapper JSON (about 51 MB for 32 GiB), as bytes (sent by reference, never copied) or a file path (read once). */
  c1: BytesOrFile;
  /** Sector number. Default: the C1 wrapper's SectorNum. */
  sectorNumber?: number | bigint | undefined;
}

/** Input of snapRequest. */
export interface SnapRequestInput extends CommonRequestInput {
  /** One vanilla partition proof per partition (16 for 32 GiB). */
  vanillaProofs: VanillaProofsInput;
  /** Sector number. */
  sectorNumber: number | bigint;
  /** Old sealed commitment (CommR before the update), 32 bytes. */
  commROld: Bytes32;
  /** New sealed commitment, 32 bytes. */
  commRNew: Bytes32;
  /** New data commitment, 32 bytes. */
  commDNew: Bytes32;
}

/** Input of windowPostRequest. */
export interface WindowPostRequestInput extends CommonRequestInput {
  /** One vanilla proof per sector of the partition. */
  vanillaProofs: VanillaProofsInput;
  /** Challenge randomness, 32 bytes. */
  randomness: Bytes32;
  /** Partition index. Default 0. */
  partitionIndex?: number | undefined;
}

/** Input of winningPostRequest. */
export interface WinningPostRequestInput extends CommonRequestInput {
  /** One vanilla proof per challenged sector. */
  vanillaProofs: VanillaProofsInput;
  /** Challenge randomness, 32 bytes. */
  randomness: Bytes32;
}

/** Parses a 32-byte digest given as bytes or hex; throws InvalidRequestError otherwise. */
export function parseBytes32(name: string, value: Bytes32): Uint8Array {
  if (value instanceof Uint8Array) {
    if (value.byteLength !== 32) {
      throw new InvalidRequestError(`${name} must be 32 bytes, got ${value.byteLength}`, {
        hint: `give ${name} as a raw 32-byte digest`,
      });
    }
    return value;
  }
  const hex = typeof value === "string" ? value.trim().replace(/^0x/i, "") : "";
  if (!/^[0-9a-f]{64}$/i.test(hex)) {
    throw new InvalidRequestError(
      `${name} is not 32 bytes of hex: ${JSON.stringify(String(value)).slice(0, 80)}`,
      {
        hint: `give ${name} as 64 hex characters (optionally 0x-prefixed) or 32 raw bytes; a CID must be decoded to its raw digest first`,
      },
    );
  }
  return Uint8Array.from(Buffer.from(hex, "hex"));
}

function toUint64(name: string, value: number | bigint): bigint {
  if (typeof value === "bigint") {
    if (value < 0n || value > 0xffff_ffff_ffff_ffffn) {
      throw new InvalidRequestError(`${name} is out of range: ${value}`, {
        hint: `give ${name} as a non-negative 64-bit integer`,
      });
    }
    return value;
  }
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new InvalidRequestError(`${name} is not a non-negative integer: ${value}`, {
      hint: `give ${name} as a whole number`,
    });
  }
  return BigInt(value);
}

async function readInput(name: string, path: string, limitBytes?: number): Promise<Uint8Array> {
  try {
    return await readProofInputFile(path, { label: name, limitBytes });
  } catch (cause) {
    if (cause instanceof PayloadTooLargeError) throw cause;
    throw new InvalidRequestError(`cannot read ${name} from ${path}: ${(cause as Error).message}`, {
      hint: `check the path of the ${name} file`,
      cause,
    });
  }
}

/** Reads vanilla proofs as cuzk-bench does: a JSON array of base64 strings, else the whole input as one proof. */
export function parseVanillaProofsFile(bytes: Uint8Array): Uint8Array[] {
  const first = bytes.find((b) => b !== 0x20 && b !== 0x0a && b !== 0x0d && b !== 0x09);
  if (first === 0x5b /* [ */) {
    try {
      const parsed: unknown = JSON.parse(
        Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8"),
      );
      if (Array.isArray(parsed) && parsed.every((item) => typeof item === "string")) {
        return parsed.map((item) => {
          const b = Buffer.from(item as string, "base64");
          return new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
        });
      }
    } catch {
      // Not JSON after all: fall through and send the file as one proof.
    }
  }
  return [bytes];
}

async function resolveVanillaProofs(input: VanillaProofsInput): Promise<Uint8Array[]> {
  if (Array.isArray(input)) return input;
  return parseVanillaProofsFile(await readInput("vanilla proofs", input.path, maxVanillaProofsFileBytes));
}

function common(kind: ProofKind, input: CommonRequestInput) {
  return {
    requestId: input.requestId ?? "",
    proofKind: proofKindWireValue[kind],
    sectorSize: toUint64("sectorSizeBytes", input.sectorSizeBytes ?? sectorSizeBytes["32GiB"]),
    registeredProof: toUint64("registeredProof", input.registeredProof ?? registeredProof32GiB[kind]),
    priority: input.priority ?? curioPriority[kind],
    minerId: toUint64("minerId", input.minerId),
  };
}

/**
 * Builds a PoRep C2 request from the C1 output (bytes, or a file read here once). The wrapper
 * is checked with core's inspectC1, a scan of its top-level keys that copies nothing, so a bad
 * or wrong-kind input fails here with C1InputError (code C1_INVALID) instead of minutes later
 * on the daemon.
 */
export async function porepRequest(input: PorepRequestInput): Promise<SubmitProofRequest> {
  const c1 = input.c1 instanceof Uint8Array ? input.c1 : await readInput("C1 output", input.c1.path);
  const wrapper = inspectC1(c1);
  return create(SubmitProofRequestSchema, {
    ...common("porep", input),
    sectorNumber: toUint64("sectorNumber", input.sectorNumber ?? wrapper.sectorNumber),
    vanillaProof: c1,
  });
}

/** Builds a SnapDeals update request. */
export async function snapRequest(input: SnapRequestInput): Promise<SubmitProofRequest> {
  return create(SubmitProofRequestSchema, {
    ...common("snap", input),
    sectorNumber: toUint64("sectorNumber", input.sectorNumber),
    vanillaProofs: await resolveVanillaProofs(input.vanillaProofs),
    commROld: parseBytes32("commROld", input.commROld),
    commRNew: parseBytes32("commRNew", input.commRNew),
    commDNew: parseBytes32("commDNew", input.commDNew),
  });
}

/** Builds a WindowPoSt partition request. */
export async function windowPostRequest(input: WindowPostRequestInput): Promise<SubmitProofRequest> {
  const partitionIndex = input.partitionIndex ?? 0;
  if (!Number.isInteger(partitionIndex) || partitionIndex < 0 || partitionIndex > 0xffff_ffff) {
    throw new InvalidRequestError(`partitionIndex is invalid: ${partitionIndex}`, {
      hint: "give a non-negative integer",
    });
  }
  return create(SubmitProofRequestSchema, {
    ...common("wpost", input),
    vanillaProofs: await resolveVanillaProofs(input.vanillaProofs),
    randomness: parseBytes32("randomness", input.randomness),
    partitionIndex,
  });
}

/** Builds a WinningPoSt request. */
export async function winningPostRequest(input: WinningPostRequestInput): Promise<SubmitProofRequest> {
  return create(SubmitProofRequestSchema, {
    ...common("winning", input),
    vanillaProofs: await resolveVanillaProofs(input.vanillaProofs),
    randomness: parseBytes32("randomness", input.randomness),
  });
}
