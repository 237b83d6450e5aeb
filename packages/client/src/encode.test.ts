import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { ProveRequestSchema, SubmitProofRequestSchema } from "@cuzkit/proto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { encodeSubmitFrame, proveRequestBytes, submitRequestBytes } from "./encode.js";

function concat(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.byteLength, 0));
  let offset = 0;
  for (const c of chunks) {
    out.set(c, offset);
    offset += c.byteLength;
  }
  return out;
}

function frame(message: Uint8Array): Uint8Array {
  const out = new Uint8Array(5 + message.byteLength);
  new DataView(out.buffer).setUint32(1, message.byteLength);
  out.set(message, 5);
  return out;
}

/** Byte equality that stays fast on large arrays (toEqual compares element by element). */
function expectSameBytes(actual: Uint8Array, expected: Uint8Array): void {
  expect(actual.byteLength).toBe(expected.byteLength);
  expect(Buffer.compare(Buffer.from(actual), Buffer.from(expected))).toBe(0);
}

const big = new Uint8Array(300_000).map((_, i) => i % 251);

const request = create(SubmitProofRequestSchema, {
  requestId: "porep-1000-7-a1-abc123",
  proofKind: 1,
  sectorSize: 34359738368n,
  registeredProof: 8n,
  priority: 2,
  vanillaProof: big,
  sectorNumber: 7n,
  minerId: 1000n,
  randomness: new Uint8Array(32).fill(3),
  partitionIndex: 4,
  commROld: new Uint8Array(32).fill(1),
});

describe("encodeSubmitFrame", () => {
  it("produces exactly connect's bytes for SubmitProof: gRPC envelope + toBinary", () => {
    const encoded = encodeSubmitFrame(request);
    const expected = frame(toBinary(SubmitProofRequestSchema, request));
    expectSameBytes(concat(encoded.chunks), expected);
    expect(encoded.byteLength).toBe(expected.byteLength);
    expect(submitRequestBytes(request)).toBe(expected.byteLength - 5);
  });

  it("produces exactly the nested encoding for Prove", () => {
    const encoded = encodeSubmitFrame(request, true);
    const prove = create(ProveRequestSchema, { submit: request });
    const expected = frame(toBinary(ProveRequestSchema, prove));
    expectSameBytes(concat(encoded.chunks), expected);
    expect(proveRequestBytes(request)).toBe(expected.byteLength - 5);
  });

  it("sends the payload by reference: the caller's buffer is a chunk, not a copy", () => {
    const encoded = encodeSubmitFrame(request);
    expect(encoded.chunks).toContain(big);
    // Everything else together is tiny.
    const other = encoded.chunks.filter((c) => c !== big).reduce((n, c) => n + c.byteLength, 0);
    expect(other).toBeLessThan(300);
  });

  it("references each large vanilla proof and merges small pieces into few chunks", () => {
    const proofs = [
      new Uint8Array(70_000).fill(1),
      new Uint8Array(10).fill(2),
      new Uint8Array(90_000).fill(3),
    ];
    const req = create(SubmitProofRequestSchema, {
      requestId: "wdpost-1-0-a1-x",
      proofKind: 3,
      vanillaProofs: proofs,
      randomness: new Uint8Array(32),
    });
    const encoded = encodeSubmitFrame(req);
    expect(encoded.chunks).toContain(proofs[0]);
    expect(encoded.chunks).toContain(proofs[2]);
    expect(encoded.chunks).not.toContain(proofs[1]);
    expect(encoded.chunks.length).toBeLessThanOrEqual(5);
    expectSameBytes(concat(encoded.chunks), frame(toBinary(SubmitProofRequestSchema, req)));
  });

  it("matches toBinary for any request (property)", () => {
    const bytes = (max: number) => fc.uint8Array({ maxLength: max });
    fc.assert(
      fc.property(
        fc.record({
          requestId: fc.string({ maxLength: 40 }),
          proofKind: fc.integer({ min: 0, max: 4 }),
          sectorSize: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
          registeredProof: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
          priority: fc.integer({ min: 0, max: 4 }),
          vanillaProof: bytes(200),
          vanillaProofs: fc.array(bytes(100), { maxLength: 4 }),
          sectorNumber: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
          minerId: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
          randomness: bytes(40),
          partitionIndex: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
          commROld: bytes(40),
          commRNew: bytes(40),
          commDNew: bytes(40),
        }),
        fc.boolean(),
        (init, wrap) => {
          const req = create(SubmitProofRequestSchema, init);
          const expected = wrap
            ? toBinary(ProveRequestSchema, create(ProveRequestSchema, { submit: req }))
            : toBinary(SubmitProofRequestSchema, req);
          const got = concat(encodeSubmitFrame(req, wrap).chunks);
          expectSameBytes(got, frame(expected));
          const decoded = wrap
            ? fromBinary(ProveRequestSchema, got.subarray(5)).submit
            : fromBinary(SubmitProofRequestSchema, got.subarray(5));
          expect(decoded?.requestId).toBe(req.requestId);
        },
      ),
      { numRuns: 200 },
    );
  });
});
