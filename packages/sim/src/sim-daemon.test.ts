import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { GiB, isCircuitId } from "@cuzkit/core";
import {
  AwaitProofResponse_Status,
  ProofKind,
  SRSStatus_Tier,
  type SubmitProofRequest,
  SubmitProofRequestSchema,
} from "@cuzkit/proto";
import { status } from "@grpc/grpc-js";
import { afterEach, describe, expect, it } from "vitest";
import { createSyntheticC1 } from "./c1-wrapper.js";
import { defaultSimConfig } from "./options.js";
import { simulatedProofBytes } from "./proof-bytes.js";
import { createManualScheduler } from "./scheduler.js";
import { grpcError } from "./testing/grpc-test-client.js";
import { createTracker } from "./testing/track.js";

const track = createTracker();
afterEach(() => track.cleanup());

type SubmitInit = MessageInitShape<typeof SubmitProofRequestSchema>;
const porep = (requestId: string, extra: SubmitInit = {}): SubmitInit => ({
  requestId,
  proofKind: ProofKind.POREP_SEAL_COMMIT,
  sectorSize: 34359738368n,
  vanillaProof: createSyntheticC1({ sectorNumber: 1 }),
  ...extra,
});
const post = (kind: ProofKind, requestId: string, extra: SubmitInit = {}): SubmitInit => ({
  requestId,
  proofKind: kind,
  vanillaProofs: [new Uint8Array([1, 2, 3])],
  randomness: new Uint8Array(32).fill(9),
  ...extra,
});

describe("SubmitProof and AwaitProof", () => {
  it("uses the request id as job id and returns a deterministic proof with upstream timings", async () => {
    const daemon = await track.daemon();
    const client = track.client(daemon.address);
    const request = porep("porep-1000-1");
    const submitted = await client.submitProof(request);
    expect(submitted).toMatchObject({ jobId: "porep-1000-1", queuePosition: 0, assignedGpu: "" });
    const result = await client.awaitProof({ jobId: "porep-1000-1", timeoutMs: 1n });
    expect(result.status).toBe(AwaitProofResponse_Status.COMPLETED);
    expect(result.jobId).toBe("porep-1000-1");
    expect(result.proof).toEqual(simulatedProofBytes(create(SubmitProofRequestSchema, request)));
    expect(result.proof.byteLength).toBe(1920);
    expect(result.srsLoadMs).toBe(0n);
    expect(result.synthesisMs).toBeGreaterThan(0n);
    expect(result.gpuComputeMs).toBeGreaterThan(0n);
    // Partitions run in parallel, so the summed synthesis time exceeds the wall time.
    expect(result.synthesisMs).toBeGreaterThan(result.totalMs);
    expect(result.totalMs).toBeGreaterThanOrEqual(result.queueWaitMs);
    // A finished result is kept: awaiting it again returns the same answer.
    expect(await client.awaitProof({ jobId: "porep-1000-1" })).toEqual(result);
  });

  it("generates a UUID for an empty request id", async () => {
    const daemon = await track.daemon({ proofTimeMs: 0 });
    const client = track.client(daemon.address);
    const { jobId } = await client.submitProof(porep(""));
    expect(jobId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect((await client.awaitProof({ jobId })).status).toBe(AwaitProofResponse_Status.COMPLETED);
  });

  it("answers NOT_FOUND for an unknown job", async () => {
    const daemon = await track.daemon();
    const error = await grpcError(track.client(daemon.address).awaitProof({ jobId: "never-submitted" }));
    expect(error.grpcCode).toBe(status.NOT_FOUND);
    expect(error.details).toBe("job not found: never-submitted");
  });

  it.each([0, 5])("refuses proof_kind %i with INVALID_ARGUMENT", async (kind) => {
    const daemon = await track.daemon();
    const error = await grpcError(
      track.client(daemon.address).submitProof({ requestId: "x", proofKind: kind }),
    );
    expect(error.grpcCode).toBe(status.INVALID_ARGUMENT);
    expect(error.details).toBe(`invalid proof_kind: ${kind}`);
  });

  it("does not deduplicate: a repeated request id runs twice", async () => {
    // Both in flight at once (the case a deduplicating daemon would merge): proofs end only
    // when the manual scheduler says, after the daemon has received both.
    const scheduler = createManualScheduler();
    const daemon = await track.daemon({ proofTimeMs: 60_000, scheduler });
    const client = track.client(daemon.address);
    const both = Promise.all([
      client.prove({ submit: porep("dup") }),
      client.prove({ submit: porep("dup") }),
    ]);
    await daemon.whenReceived("Prove", { jobId: "dup", count: 2 });
    expect(daemon.stats().submissionsByRequestId).toEqual({ dup: 2 });
    expect(daemon.stats().proofsCompleted).toBe(0);
    scheduler.advance(60_000);
    await both;
    expect(daemon.stats().proofsCompleted).toBe(2);
  });
});

describe("Prove", () => {
  it("returns the result with job_id as requested, and '' for an empty request id", async () => {
    const daemon = await track.daemon({ proofTimeMs: 0 });
    const client = track.client(daemon.address);
    const named = await client.prove({ submit: porep("named") });
    expect(named.result).toMatchObject({ jobId: "named", status: AwaitProofResponse_Status.COMPLETED });
    const anonymous = await client.prove({ submit: porep("") });
    expect(anonymous.result).toMatchObject({ jobId: "", status: AwaitProofResponse_Status.COMPLETED });
    expect(Object.keys(daemon.stats().submissionsByRequestId)).toHaveLength(2);
  });

  it("answers INVALID_ARGUMENT for a missing submit or a bad kind", async () => {
    const daemon = await track.daemon();
    const client = track.client(daemon.address);
    const missing = await grpcError(client.prove({}));
    expect([missing.grpcCode, missing.details]).toEqual([status.INVALID_ARGUMENT, "missing submit field"]);
    const bad = await grpcError(client.prove({ submit: { requestId: "x", proofKind: 7 as ProofKind } }));
    expect([bad.grpcCode, bad.details]).toEqual([status.INVALID_ARGUMENT, "invalid proof_kind: 7"]);
  });

  it("proves every kind with 192 bytes per partition", async () => {
    const daemon = await track.daemon();
    const client = track.client(daemon.address);
    const sizes = await Promise.all([
      client.prove({ submit: post(ProofKind.SNAP_DEALS_UPDATE, "snap") }),
      client.prove({ submit: post(ProofKind.WINDOW_POST_PARTITION, "wpost") }),
      client.prove({ submit: post(ProofKind.WINNING_POST, "winning") }),
    ]);
    expect(sizes.map((r) => [r.result?.status, r.result?.proof.byteLength])).toEqual([
      [AwaitProofResponse_Status.COMPLETED, 3072],
      [AwaitProofResponse_Status.COMPLETED, 192],
      [AwaitProofResponse_Status.COMPLETED, 192],
    ]);
  });

  it.each<[string, SubmitInit, RegExp]>([
    [
      "an unparseable C1",
      porep("c1", { vanillaProof: new TextEncoder().encode("not json") }),
      /^C1 parse failed: /,
    ],
    [
      "a 64 GiB sector",
      porep("c64", { vanillaProof: createSyntheticC1({ sectorSizeBytes: 64 * GiB }) }),
      /^pipelined synthesis currently supports only 32 GiB sectors$/,
    ],
    [
      "a SnapDeals update without partition proofs",
      post(ProofKind.SNAP_DEALS_UPDATE, "s", { vanillaProofs: [] }),
      /^SnapDeals parse failed/,
    ],
    [
      "a WindowPoSt without vanilla proofs",
      post(ProofKind.WINDOW_POST_PARTITION, "w", { vanillaProofs: [] }),
      /no vanilla proofs/,
    ],
    [
      "a WinningPoSt with 31 bytes of randomness",
      post(ProofKind.WINNING_POST, "r", { randomness: new Uint8Array(31) }),
      /randomness must be 32 bytes, got 31/,
    ],
  ])("answers OK with a FAILED result (timings 0) for %s", async (_name, submit, message) => {
    const daemon = await track.daemon();
    const { result } = await track.client(daemon.address).prove({ submit });
    expect(result?.status).toBe(AwaitProofResponse_Status.FAILED);
    expect(result?.errorMessage).toMatch(message);
    expect([result?.totalMs, result?.synthesisMs, result?.gpuComputeMs, result?.queueWaitMs]).toEqual([
      0n,
      0n,
      0n,
      0n,
    ]);
    expect(daemon.stats().proofsFailed).toBe(1);
  });

  it("fails the next N proofs with the given message (failNextProofs)", async () => {
    const daemon = await track.daemon({ proofTimeMs: 0 });
    const client = track.client(daemon.address);
    daemon.failNextProofs(2, "partition 3 synthesis failed: disk on fire");
    const results = [];
    for (const id of ["a", "b", "c"]) results.push((await client.prove({ submit: porep(id) })).result);
    expect(results.map((r) => [r?.status, r?.errorMessage])).toEqual([
      [AwaitProofResponse_Status.FAILED, "partition 3 synthesis failed: disk on fire"],
      [AwaitProofResponse_Status.FAILED, "partition 3 synthesis failed: disk on fire"],
      [AwaitProofResponse_Status.COMPLETED, ""],
    ]);
  });

  it("takes failNextProofs from the options too", async () => {
    const daemon = await track.daemon({ proofTimeMs: 0, faults: { failNextProofs: { count: 1 } } });
    const { result } = await track.client(daemon.address).prove({ submit: porep("a") });
    expect(result?.errorMessage).toMatch(/injected failure/);
  });

  it("takes at least proofTimeMs per proof in fixed-time mode", async () => {
    const daemon = await track.daemon({ proofTimeMs: 120 });
    const { result } = await track.client(daemon.address).prove({ submit: porep("fixed") });
    expect(result?.totalMs).toBeGreaterThanOrEqual(120n);
    expect(daemon.stats().memoryInUseBytes).toBe(0);
  });
});

describe("CancelProof, PreloadSRS, EvictSRS", () => {
  it("CancelProof does nothing and answers was_running=false", async () => {
    const daemon = await track.daemon({ proofTimeMs: 50 });
    const client = track.client(daemon.address);
    await client.submitProof(porep("c"));
    expect((await client.cancelProof({ jobId: "c" })).wasRunning).toBe(false);
    expect((await client.awaitProof({ jobId: "c" })).status).toBe(AwaitProofResponse_Status.COMPLETED);
  });

  it("EvictSRS does nothing and answers was_loaded=false, freed_bytes=0", async () => {
    const daemon = await track.daemon();
    const answer = await track.client(daemon.address).evictSrs({ circuitId: "porep-32g" });
    expect([answer.wasLoaded, answer.freedBytes]).toEqual([false, 0n]);
  });

  it("PreloadSRS loads once, then reports already_loaded; unknown ids are INTERNAL", async () => {
    const daemon = await track.daemon({ timeScale: 0.001 });
    const client = track.client(daemon.address);
    const first = await client.preloadSrs({ circuitId: "winning-32g" });
    expect(first.alreadyLoaded).toBe(false);
    expect(first.loadTimeMs).toBeGreaterThanOrEqual(59n); // 60 modelled seconds x 0.001
    expect(await client.preloadSrs({ circuitId: "winning-32g" })).toMatchObject({
      alreadyLoaded: true,
      loadTimeMs: 0n,
    });
    const unknown = await grpcError(client.preloadSrs({ circuitId: "porep-2k" }));
    expect([unknown.grpcCode, unknown.details]).toEqual([status.INTERNAL, "unknown circuit ID: porep-2k"]);
    expect(isCircuitId("porep-2k")).toBe(false);
  });
});

describe("GetStatus and GetMetrics", () => {
  it("lists one GPU row per worker, only preloaded circuits, real counters and zeroed pinned memory", async () => {
    const daemon = await track.daemon({
      proofTimeMs: 0,
      config: { ...defaultSimConfig(), gpuWorkersPerDevice: 2 },
    });
    const client = track.client(daemon.address);
    await client.prove({ submit: porep("one") });
    await client.prove({ submit: porep("two", { vanillaProof: new Uint8Array([1]) }) });
    await client.preloadSrs({ circuitId: "snap-32g" });
    const state = await client.getStatus();
    expect(state.gpus.map((gpu) => gpu.ordinal)).toEqual([0, 0, 1, 1]);
    expect(state.gpus[0]).toMatchObject({ name: "RTX 3090", vramTotalBytes: 24_000_000_000n });
    expect(state.loadedSrs.map((s) => [s.circuitId, s.tier, s.sizeBytes])).toEqual([
      ["snap-32g", SRSStatus_Tier.HOT, 0n],
    ]);
    expect([state.totalProofsCompleted, state.totalProofsFailed]).toEqual([1n, 1n]);
    expect([state.pinnedMemoryBytes, state.pinnedMemoryLimitBytes]).toEqual([0n, 0n]);
    expect(state.queues).toEqual([]);
  });

  it("reports the daemon's metric names", async () => {
    const daemon = await track.daemon({ proofTimeMs: 0 });
    const client = track.client(daemon.address);
    await client.prove({ submit: post(ProofKind.WINNING_POST, "w") });
    const { prometheusText } = await client.getMetrics();
    expect(prometheusText).toContain(
      "# TYPE cuzk_proofs_completed_total counter\ncuzk_proofs_completed_total 1\n",
    );
    expect(prometheusText).toContain('cuzk_proofs_completed{proof_kind="winning_post"} 1');
    expect(prometheusText).toContain('cuzk_proof_duration_seconds_count{proof_kind="winning_post"} 1');
    expect(prometheusText).toContain("cuzk_gpu_workers 2");
  });
});

describe("simulatedProofBytes through the wire", () => {
  it("gives different proofs for different inputs", async () => {
    const daemon = await track.daemon({ proofTimeMs: 0 });
    const client = track.client(daemon.address);
    const one = await client.prove({
      submit: porep("a", { vanillaProof: createSyntheticC1({ sectorNumber: 1 }) }),
    });
    const two = await client.prove({
      submit: porep("b", { vanillaProof: createSyntheticC1({ sectorNumber: 2 }) }),
    });
    expect(one.result?.proof).not.toEqual(two.result?.proof);
    const request: SubmitProofRequest = create(SubmitProofRequestSchema, porep("a"));
    expect(one.result?.proof).toEqual(simulatedProofBytes(request));
  });
});
