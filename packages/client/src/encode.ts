import { create, type MessageInitShape, toBinary } from "@bufbuild/protobuf";
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { ProveRequestSchema, type SubmitProofRequest, SubmitProofRequestSchema } from "@cuzkit/proto";

// Encodes the big requests (SubmitProof, Prove) straight into gRPC frames without copying
// the payload. protobuf-es copies every bytes field into one buffer (twice for Prove: the
// nested message is joined, then the outer one), and connect copies it once more into the
// gRPC envelope. Here the small fields are encoded with protobuf-es as usual and the large
// bytes fields (the 51 MB C1, the vanilla proofs) are passed by reference as their own
// chunks; HTTP/2 writes them from the caller's buffer. The bytes on the wire are identical
// to toBinary's (fields in number order), which the tests check.

/** A request encoded as a list of chunks whose concatenation is the wire bytes. */
export interface EncodedChunks {
  /** The chunks, in order; large payloads are the caller's own buffers, not copies. */
  chunks: Uint8Array[];
  /** Total length in bytes of the chunks. */
  byteLength: number;
}

/** Payload fields at least this large are sent by reference instead of copied. */
const referenceMinBytes = 64 * 1024;

// Field numbers come from the descriptors, so a renumbered .proto cannot silently diverge.
const vanillaProofField = SubmitProofRequestSchema.field.vanillaProof.number;
const vanillaProofsField = SubmitProofRequestSchema.field.vanillaProofs.number;
const proveSubmitField = ProveRequestSchema.field.submit.number;

/** The tag and length of a length-delimited field whose `length` bytes of content follow separately. */
function lengthDelimitedHeader(fieldNumber: number, length: number): Uint8Array {
  return new BinaryWriter().tag(fieldNumber, WireType.LengthDelimited).uint32(length).finish();
}

/** Collects pieces, merging small ones into one chunk and keeping large ones by reference. */
function createChunkBuilder() {
  const chunks: Uint8Array[] = [];
  let small: Uint8Array[] = [];
  let smallBytes = 0;
  let byteLength = 0;
  const flush = () => {
    if (small.length === 0) return;
    if (small.length === 1) {
      chunks.push(small[0]!);
    } else {
      const merged = new Uint8Array(smallBytes);
      let offset = 0;
      for (const piece of small) {
        merged.set(piece, offset);
        offset += piece.byteLength;
      }
      chunks.push(merged);
    }
    small = [];
    smallBytes = 0;
  };
  return {
    add(piece: Uint8Array) {
      if (piece.byteLength === 0) return;
      byteLength += piece.byteLength;
      if (piece.byteLength >= referenceMinBytes) {
        flush();
        chunks.push(piece);
      } else {
        small.push(piece);
        smallBytes += piece.byteLength;
      }
    },
    finish(): EncodedChunks {
      flush();
      return { chunks, byteLength };
    },
  };
}

function splitRequest(request: SubmitProofRequest) {
  // Fields numbered below the payload fields, and those above, are small; toBinary writes
  // each group in field-number order.
  const head = toBinary(
    SubmitProofRequestSchema,
    create(SubmitProofRequestSchema, {
      requestId: request.requestId,
      proofKind: request.proofKind,
      sectorSize: request.sectorSize,
      registeredProof: request.registeredProof,
      priority: request.priority,
    }),
  );
  const tail = toBinary(
    SubmitProofRequestSchema,
    create(SubmitProofRequestSchema, {
      sectorNumber: request.sectorNumber,
      minerId: request.minerId,
      randomness: request.randomness,
      partitionIndex: request.partitionIndex,
      commROld: request.commROld,
      commRNew: request.commRNew,
      commDNew: request.commDNew,
    }),
  );
  const pieces: Uint8Array[] = [head];
  if (request.vanillaProof.byteLength > 0) {
    pieces.push(
      lengthDelimitedHeader(vanillaProofField, request.vanillaProof.byteLength),
      request.vanillaProof,
    );
  }
  for (const proof of request.vanillaProofs) {
    pieces.push(lengthDelimitedHeader(vanillaProofsField, proof.byteLength), proof);
  }
  pieces.push(tail);
  return pieces;
}

function sumBytes(pieces: Uint8Array[]): number {
  return pieces.reduce((total, piece) => total + piece.byteLength, 0);
}

/** Normalises an init object or message into a full SubmitProofRequest without copying bytes. */
export function toSubmitRequest(
  request: SubmitProofRequest | MessageInitShape<typeof SubmitProofRequestSchema>,
): SubmitProofRequest {
  return create(SubmitProofRequestSchema, request as MessageInitShape<typeof SubmitProofRequestSchema>);
}

/** Encoded size in bytes of a SubmitProofRequest (the size the daemon's 128 MiB cap applies to). */
export function submitRequestBytes(request: SubmitProofRequest): number {
  return sumBytes(splitRequest(request));
}

/** Encoded size in bytes of a ProveRequest wrapping this SubmitProofRequest. */
export function proveRequestBytes(request: SubmitProofRequest): number {
  const inner = submitRequestBytes(request);
  return lengthDelimitedHeader(proveSubmitField, inner).byteLength + inner;
}

/**
 * The gRPC frame (5-byte envelope + protobuf message) of a SubmitProof request, or of a Prove
 * request when `wrapInProve`, as chunks. Payload buffers are referenced, not copied.
 */
export function encodeSubmitFrame(request: SubmitProofRequest, wrapInProve = false): EncodedChunks {
  const pieces = splitRequest(request);
  const inner = sumBytes(pieces);
  const prefix = wrapInProve ? lengthDelimitedHeader(proveSubmitField, inner) : new Uint8Array(0);
  const messageBytes = prefix.byteLength + inner;
  const envelope = new Uint8Array(5);
  new DataView(envelope.buffer).setUint32(1, messageBytes);
  const builder = createChunkBuilder();
  builder.add(envelope);
  builder.add(prefix);
  for (const piece of pieces) builder.add(piece);
  return builder.finish();
}
