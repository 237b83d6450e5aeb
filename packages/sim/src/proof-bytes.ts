import { createHash, type Hash } from "node:crypto";
import { grothProofBytes, partitionsPerProof, proofKindFromWire } from "@cuzkit/core";
import type { SubmitProofRequest } from "@cuzkit/proto";

// Proofs the simulator returns: 192 bytes per partition, derived from the request by SHA-256,
// so the same request always gives the same proof and tests can compare. Inputs above 1 MiB
// are sampled (length, first and last 512 KiB) to keep a 51 MB request cheap to prove.

const sampleBytes = 512 * 1024;

function updateWithInput(hash: Hash, bytes: Uint8Array): void {
  const length = Buffer.alloc(8);
  length.writeBigUInt64BE(BigInt(bytes.byteLength));
  hash.update(length);
  if (bytes.byteLength <= 2 * sampleBytes) {
    hash.update(bytes);
    return;
  }
  hash.update(bytes.subarray(0, sampleBytes));
  hash.update(bytes.subarray(bytes.byteLength - sampleBytes));
}

/** Bytes of the proof the simulator returns for `request`: 192 per partition (PoRep 1920, Snap 3072, PoSt 192). */
export function simulatedProofBytes(request: SubmitProofRequest): Uint8Array {
  const kind = proofKindFromWire(request.proofKind) ?? "porep";
  const hash = createHash("sha256");
  hash.update(
    `cuzkit-sim-proof/v1 kind=${request.proofKind} sector=${request.sectorNumber} miner=${request.minerId} partition=${request.partitionIndex}\n`,
  );
  for (const field of [
    request.randomness,
    request.commROld,
    request.commRNew,
    request.commDNew,
    request.vanillaProof,
  ]) {
    updateWithInput(hash, field);
  }
  for (const proof of request.vanillaProofs) updateWithInput(hash, proof);
  const seed = hash.digest();
  const out = Buffer.alloc(partitionsPerProof[kind] * grothProofBytes);
  for (let block = 0; block * 32 < out.length; block++) {
    createHash("sha256")
      .update(seed)
      .update(String(block))
      .digest()
      .copy(out, block * 32);
  }
  return new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
}
