import { proofKinds, proofKindWireValue } from "@cuzkit/core";
import { Priority, ProofKind } from "@cuzkit/proto";
import { describe, expect, it } from "vitest";

// core has no dependency on proto; this cross-check keeps their numbers in step.
describe("core vocabulary matches the proto enums", () => {
  it("maps every proof kind to its ProofKind value", () => {
    expect(proofKinds.map((kind) => proofKindWireValue[kind])).toEqual([
      ProofKind.POREP_SEAL_COMMIT,
      ProofKind.SNAP_DEALS_UPDATE,
      ProofKind.WINDOW_POST_PARTITION,
      ProofKind.WINNING_POST,
    ]);
    expect(Priority.CRITICAL).toBe(4);
  });
});
