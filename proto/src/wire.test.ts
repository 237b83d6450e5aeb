import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import {
  AwaitProofRequestSchema,
  AwaitProofResponse_Status,
  AwaitProofResponseSchema,
  CancelProofResponseSchema,
  EvictSrsResponseSchema,
  GetMetricsResponseSchema,
  GetStatusResponseSchema,
  GPUStatusSchema,
  PreloadSrsRequestSchema,
  PreloadSrsResponseSchema,
  Priority,
  ProofKind,
  ProveRequestSchema,
  ProveResponseSchema,
  ProvingEngine,
  QueueStatusSchema,
  SRSStatus_Tier,
  SRSStatusSchema,
  SubmitProofRequestSchema,
  SubmitProofResponseSchema,
} from "./index.js";

// Expected bytes are built by hand from the field numbers and types of the daemon's proving.proto
// (Curio extern/cuzk/cuzk-proto), so a renumbered or retyped field fails here.
const VARINT = 0;
const LEN = 2;

function varint(value: bigint | number): number[] {
  let v = BigInt(value);
  const out: number[] = [];
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v > 0n) byte |= 0x80;
    out.push(byte);
  } while (v > 0n);
  return out;
}
const tag = (field: number, wireType: number) => varint((field << 3) | wireType);
const vField = (field: number, value: bigint | number) => [...tag(field, VARINT), ...varint(value)];
const bField = (field: number, bytes: number[]) => [...tag(field, LEN), ...varint(bytes.length), ...bytes];
const sField = (field: number, text: string) => bField(field, [...new TextEncoder().encode(text)]);

describe("cuzk.v1 wire format", () => {
  it("encodes SubmitProofRequest with the spec's field numbers and types", () => {
    const msg = create(SubmitProofRequestSchema, {
      requestId: "r1",
      proofKind: ProofKind.POREP_SEAL_COMMIT,
      sectorSize: 34359738368n,
      registeredProof: 8n,
      priority: Priority.NORMAL,
      vanillaProof: new Uint8Array([1, 2]),
      vanillaProofs: [new Uint8Array([3]), new Uint8Array([4])],
      sectorNumber: 7n,
      minerId: 1000n,
      randomness: new Uint8Array([9]),
      partitionIndex: 5,
      commROld: new Uint8Array([0xa]),
      commRNew: new Uint8Array([0xb]),
      commDNew: new Uint8Array([0xc]),
    });
    const expected = [
      ...sField(1, "r1"),
      ...vField(2, 1),
      ...vField(3, 34359738368n),
      ...vField(4, 8),
      ...vField(5, 2),
      ...bField(10, [1, 2]),
      ...bField(11, [3]),
      ...bField(11, [4]),
      ...vField(20, 7),
      ...vField(21, 1000),
      ...bField(22, [9]),
      ...vField(23, 5),
      ...bField(30, [0xa]),
      ...bField(31, [0xb]),
      ...bField(32, [0xc]),
    ];
    expect([...toBinary(SubmitProofRequestSchema, msg)]).toEqual(expected);
  });

  it("encodes the response and small request messages", () => {
    expect([
      ...toBinary(
        SubmitProofResponseSchema,
        create(SubmitProofResponseSchema, { jobId: "j", queuePosition: 3, assignedGpu: "g" }),
      ),
    ]).toEqual([...sField(1, "j"), ...vField(2, 3), ...sField(3, "g")]);
    expect([
      ...toBinary(AwaitProofRequestSchema, create(AwaitProofRequestSchema, { jobId: "j", timeoutMs: 300n })),
    ]).toEqual([...sField(1, "j"), ...vField(2, 300)]);
    const result = create(AwaitProofResponseSchema, {
      jobId: "j",
      status: AwaitProofResponse_Status.FAILED,
      proof: new Uint8Array([7]),
      errorMessage: "e",
      queueWaitMs: 1n,
      srsLoadMs: 2n,
      synthesisMs: 3n,
      gpuComputeMs: 4n,
      totalMs: 5n,
    });
    const resultBytes = [
      ...sField(1, "j"),
      ...vField(2, 2),
      ...bField(3, [7]),
      ...sField(4, "e"),
      ...vField(10, 1),
      ...vField(11, 2),
      ...vField(12, 3),
      ...vField(13, 4),
      ...vField(14, 5),
    ];
    expect([...toBinary(AwaitProofResponseSchema, result)]).toEqual(resultBytes);
    expect([...toBinary(ProveResponseSchema, create(ProveResponseSchema, { result }))]).toEqual(
      bField(1, resultBytes),
    );
    const submit = create(SubmitProofRequestSchema, { requestId: "x" });
    expect([...toBinary(ProveRequestSchema, create(ProveRequestSchema, { submit }))]).toEqual(
      bField(1, sField(1, "x")),
    );
    expect([
      ...toBinary(CancelProofResponseSchema, create(CancelProofResponseSchema, { wasRunning: true })),
    ]).toEqual(vField(1, 1));
    expect([
      ...toBinary(PreloadSrsRequestSchema, create(PreloadSrsRequestSchema, { circuitId: "porep-32g" })),
    ]).toEqual(sField(1, "porep-32g"));
    expect([
      ...toBinary(
        PreloadSrsResponseSchema,
        create(PreloadSrsResponseSchema, { alreadyLoaded: true, loadTimeMs: 9n }),
      ),
    ]).toEqual([...vField(1, 1), ...vField(2, 9)]);
    expect([
      ...toBinary(
        EvictSrsResponseSchema,
        create(EvictSrsResponseSchema, { wasLoaded: true, freedBytes: 6n }),
      ),
    ]).toEqual([...vField(1, 1), ...vField(2, 6)]);
    expect([
      ...toBinary(GetMetricsResponseSchema, create(GetMetricsResponseSchema, { prometheusText: "m" })),
    ]).toEqual(sField(1, "m"));
  });

  it("encodes GetStatusResponse and its sub-messages", () => {
    const gpu = create(GPUStatusSchema, {
      ordinal: 1,
      name: "n",
      vramTotalBytes: 2n,
      vramFreeBytes: 3n,
      currentJobId: "j",
      currentProofKind: "k",
    });
    const gpuBytes = [
      ...vField(1, 1),
      ...sField(2, "n"),
      ...vField(3, 2),
      ...vField(4, 3),
      ...sField(5, "j"),
      ...sField(6, "k"),
    ];
    expect([...toBinary(GPUStatusSchema, gpu)]).toEqual(gpuBytes);
    const srs = create(SRSStatusSchema, {
      circuitId: "c",
      tier: SRSStatus_Tier.COLD,
      sizeBytes: 4n,
      refCount: 5,
    });
    const srsBytes = [...sField(1, "c"), ...vField(2, 2), ...vField(3, 4), ...vField(4, 5)];
    expect([...toBinary(SRSStatusSchema, srs)]).toEqual(srsBytes);
    const queue = create(QueueStatusSchema, { proofKind: "p", pending: 1, inProgress: 2 });
    const queueBytes = [...sField(1, "p"), ...vField(2, 1), ...vField(3, 2)];
    const status = create(GetStatusResponseSchema, {
      gpus: [gpu],
      loadedSrs: [srs],
      queues: [queue],
      totalProofsCompleted: 6n,
      totalProofsFailed: 7n,
      uptimeSeconds: 8n,
      pinnedMemoryBytes: 9n,
      pinnedMemoryLimitBytes: 10n,
    });
    expect([...toBinary(GetStatusResponseSchema, status)]).toEqual([
      ...bField(1, gpuBytes),
      ...bField(2, srsBytes),
      ...bField(3, queueBytes),
      ...vField(4, 6),
      ...vField(5, 7),
      ...vField(6, 8),
      ...vField(7, 9),
      ...vField(8, 10),
    ]);
  });

  it("keeps the spec's enum values", () => {
    expect([
      ProofKind.PROOF_KIND_UNSPECIFIED,
      ProofKind.POREP_SEAL_COMMIT,
      ProofKind.SNAP_DEALS_UPDATE,
    ]).toEqual([0, 1, 2]);
    expect([ProofKind.WINDOW_POST_PARTITION, ProofKind.WINNING_POST]).toEqual([3, 4]);
    expect([
      Priority.PRIORITY_UNSPECIFIED,
      Priority.LOW,
      Priority.NORMAL,
      Priority.HIGH,
      Priority.CRITICAL,
    ]).toEqual([0, 1, 2, 3, 4]);
    expect([
      AwaitProofResponse_Status.UNKNOWN,
      AwaitProofResponse_Status.COMPLETED,
      AwaitProofResponse_Status.FAILED,
      AwaitProofResponse_Status.CANCELLED,
      AwaitProofResponse_Status.TIMEOUT,
    ]).toEqual([0, 1, 2, 3, 4]);
    expect([SRSStatus_Tier.HOT, SRSStatus_Tier.WARM, SRSStatus_Tier.COLD]).toEqual([0, 1, 2]);
  });

  it("names the service and methods as the daemon does", () => {
    expect(ProvingEngine.typeName).toBe("cuzk.v1.ProvingEngine");
    expect(ProvingEngine.methods.map((m) => m.name)).toEqual([
      "SubmitProof",
      "AwaitProof",
      "Prove",
      "CancelProof",
      "GetStatus",
      "GetMetrics",
      "PreloadSRS",
      "EvictSRS",
    ]);
    expect(ProvingEngine.method.preloadSRS.input.typeName).toBe("cuzk.v1.PreloadSrsRequest");
    expect(ProvingEngine.method.evictSRS.output.typeName).toBe("cuzk.v1.EvictSrsResponse");
  });

  it("decodes bytes written by another encoder", () => {
    const bytes = new Uint8Array([...sField(1, "abc"), ...vField(2, 4)]);
    const msg = fromBinary(SubmitProofRequestSchema, bytes);
    expect(msg.requestId).toBe("abc");
    expect(msg.proofKind).toBe(ProofKind.WINNING_POST);
  });
});
