import { create } from "@bufbuild/protobuf";
import { ProofKind, SubmitProofRequestSchema } from "@cuzkit/proto";
import { describe, expect, it } from "vitest";
import { createSyntheticC1 } from "./c1-wrapper.js";
import { simulatedProofBytes } from "./proof-bytes.js";

const request = (init: Parameters<typeof create<typeof SubmitProofRequestSchema>>[1]) =>
  create(SubmitProofRequestSchema, init);

describe("simulatedProofBytes", () => {
  it("gives 192 bytes per partition", () => {
    expect(simulatedProofBytes(request({ proofKind: ProofKind.POREP_SEAL_COMMIT })).byteLength).toBe(1920);
    expect(simulatedProofBytes(request({ proofKind: ProofKind.SNAP_DEALS_UPDATE })).byteLength).toBe(3072);
    expect(simulatedProofBytes(request({ proofKind: ProofKind.WINDOW_POST_PARTITION })).byteLength).toBe(192);
    expect(simulatedProofBytes(request({ proofKind: ProofKind.WINNING_POST })).byteLength).toBe(192);
  });

  it("is a function of the input", () => {
    const a = request({
      proofKind: ProofKind.POREP_SEAL_COMMIT,
      vanillaProof: createSyntheticC1({ sectorNumber: 1 }),
    });
    const b = request({
      proofKind: ProofKind.POREP_SEAL_COMMIT,
      vanillaProof: createSyntheticC1({ sectorNumber: 2 }),
    });
    expect(simulatedProofBytes(a)).toEqual(simulatedProofBytes({ ...a }));
    expect(simulatedProofBytes(a)).not.toEqual(simulatedProofBytes(b));
    const post = (randomness: number) =>
      request({
        proofKind: ProofKind.WINNING_POST,
        vanillaProofs: [new Uint8Array([1])],
        randomness: new Uint8Array(32).fill(randomness),
      });
    expect(simulatedProofBytes(post(1))).not.toEqual(simulatedProofBytes(post(2)));
  });
});
