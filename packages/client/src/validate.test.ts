import { create } from "@bufbuild/protobuf";
import { daemonMaxMessageBytes } from "@cuzkit/core";
import { SubmitProofRequestSchema } from "@cuzkit/proto";
import { describe, expect, it } from "vitest";
import { InvalidRequestError, PayloadTooLargeError } from "./errors.js";
import { validateSubmitRequest } from "./validate.js";

const d32 = new Uint8Array(32).fill(7);
const base = { maxRequestBytes: daemonMaxMessageBytes };

function check(init: Parameters<typeof create<typeof SubmitProofRequestSchema>>[1], options = {}) {
  return () => validateSubmitRequest(create(SubmitProofRequestSchema, init), { ...base, ...options });
}

describe("validateSubmitRequest", () => {
  it("accepts well-formed requests of every kind and returns kind and encoded size", () => {
    expect(check({ requestId: "a", proofKind: 1, vanillaProof: new Uint8Array(10) })()).toMatchObject({
      kind: "porep",
    });
    expect(
      check({
        requestId: "a",
        proofKind: 2,
        vanillaProofs: [new Uint8Array(1)],
        commROld: d32,
        commRNew: d32,
        commDNew: d32,
      })(),
    ).toMatchObject({ kind: "snap" });
    expect(
      check({ requestId: "a", proofKind: 3, vanillaProofs: [new Uint8Array(1)], randomness: d32 })(),
    ).toMatchObject({
      kind: "wpost",
    });
    const result = check({
      requestId: "a",
      proofKind: 4,
      vanillaProofs: [new Uint8Array(1)],
      randomness: d32,
    })();
    expect(result.kind).toBe("winning");
    expect(result.sizeBytes).toBeGreaterThan(32);
  });

  it.each([
    [
      "an unknown proof kind",
      { requestId: "a", proofKind: 0, vanillaProof: new Uint8Array(1) },
      /unknown proof kind/,
    ],
    [
      "an out-of-range proof kind",
      { requestId: "a", proofKind: 9, vanillaProof: new Uint8Array(1) },
      /unknown proof kind/,
    ],
    [
      "a missing request id",
      { requestId: "", proofKind: 1, vanillaProof: new Uint8Array(1) },
      /request id is empty/,
    ],
    [
      "a blank request id",
      { requestId: "  ", proofKind: 1, vanillaProof: new Uint8Array(1) },
      /request id is empty/,
    ],
    ["an empty PoRep input", { requestId: "a", proofKind: 1 }, /C1 output .* empty/],
    ["PoSt without vanilla proofs", { requestId: "a", proofKind: 4, randomness: d32 }, /none/],
    [
      "an empty vanilla proof",
      { requestId: "a", proofKind: 3, randomness: d32, vanillaProofs: [new Uint8Array(0)] },
      /empty/,
    ],
    [
      "PoSt without randomness",
      { requestId: "a", proofKind: 3, vanillaProofs: [new Uint8Array(1)] },
      /randomness must be 32/,
    ],
    [
      "short randomness",
      { requestId: "a", proofKind: 4, vanillaProofs: [new Uint8Array(1)], randomness: new Uint8Array(31) },
      /randomness must be 32 bytes, got 31/,
    ],
    [
      "PoRep randomness that is not 32 bytes",
      { requestId: "a", proofKind: 1, vanillaProof: new Uint8Array(1), randomness: new Uint8Array(8) },
      /randomness/,
    ],
    [
      "Snap without commitments",
      { requestId: "a", proofKind: 2, vanillaProofs: [new Uint8Array(1)] },
      /commROld must be 32/,
    ],
    [
      "a 33-byte commitment",
      {
        requestId: "a",
        proofKind: 2,
        vanillaProofs: [new Uint8Array(1)],
        commROld: d32,
        commRNew: new Uint8Array(33),
        commDNew: d32,
      },
      /commRNew must be 32 bytes, got 33/,
    ],
  ])("rejects %s with InvalidRequestError", (_name, init, why) => {
    expect(check(init)).toThrow(InvalidRequestError);
    expect(check(init)).toThrow(why);
  });

  it("lets prove go without a request id (it creates one per attempt)", () => {
    expect(
      check({ proofKind: 1, vanillaProof: new Uint8Array(1) }, { requireRequestId: false })(),
    ).toMatchObject({
      kind: "porep",
    });
  });

  it("rejects a request over the cap with PayloadTooLargeError, counting the encoded size", () => {
    const payload = new Uint8Array(1000);
    const init = { requestId: "a", proofKind: 1, vanillaProof: payload };
    const { sizeBytes } = check(init)();
    expect(check(init, { maxRequestBytes: sizeBytes })()).toMatchObject({ sizeBytes });
    const tooLarge = check(init, { maxRequestBytes: sizeBytes - 1 });
    expect(tooLarge).toThrow(PayloadTooLargeError);
    try {
      tooLarge();
    } catch (error) {
      expect((error as PayloadTooLargeError).sizeBytes).toBe(sizeBytes);
      expect((error as PayloadTooLargeError).limitBytes).toBe(sizeBytes - 1);
      expect((error as PayloadTooLargeError).hint).toMatch(/128 MiB/);
    }
    // As a Prove the same request is a few bytes larger.
    expect(check(init, { maxRequestBytes: sizeBytes, asProve: true })).toThrow(PayloadTooLargeError);
  });
});
