import { create } from "@bufbuild/protobuf";
import { GetStatusResponseSchema } from "@cuzkit/proto";
import { describe, expect, it } from "vitest";
import { normalizeStatus } from "./status.js";

const GiB = 1024n ** 3n;

describe("normalizeStatus", () => {
  it("merges the daemon's per-worker GPU rows by ordinal and counts workers", () => {
    const raw = create(GetStatusResponseSchema, {
      uptimeSeconds: 3600n,
      totalProofsCompleted: 12n,
      totalProofsFailed: 1n,
      gpus: [
        {
          ordinal: 0,
          name: "NVIDIA RTX 3090",
          vramTotalBytes: 24n * GiB,
          vramFreeBytes: 20n * GiB,
          currentJobId: "j1",
          currentProofKind: "porep-c2",
        },
        { ordinal: 0, name: "NVIDIA RTX 3090", vramTotalBytes: 24n * GiB, vramFreeBytes: 20n * GiB },
        { ordinal: 1, name: "NVIDIA RTX 3090", vramTotalBytes: 24n * GiB, vramFreeBytes: 0n },
        {
          ordinal: 1,
          name: "NVIDIA RTX 3090",
          vramTotalBytes: 24n * GiB,
          vramFreeBytes: 0n,
          currentJobId: "j2",
          currentProofKind: "porep-c2",
        },
      ],
    });
    const status = normalizeStatus(raw);
    expect(status.gpus).toHaveLength(2);
    expect(status.gpuWorkers).toBe(4);
    expect(status.gpus[0]).toMatchObject({
      ordinal: 0,
      workers: 2,
      vramTotalBytes: 24 * 1024 ** 3,
      currentJobs: [{ jobId: "j1", proofKind: "porep-c2" }],
    });
    // A known total makes a free value of 0 real (the GPU is full).
    expect(status.gpus[1]).toMatchObject({
      ordinal: 1,
      workers: 2,
      vramFreeBytes: 0,
      currentJobs: [{ jobId: "j2" }],
    });
    expect(status).toMatchObject({ uptimeSeconds: 3600, totalProofsCompleted: 12, totalProofsFailed: 1 });
    expect(typeof status.uptimeSeconds).toBe("number");
    expect(status.raw).toBe(raw);
  });

  it("marks fields the daemon never fills (zeros) as unknown", () => {
    const status = normalizeStatus(
      create(GetStatusResponseSchema, {
        gpus: [{ ordinal: 3, name: "GPU 3" }],
        loadedSrs: [{ circuitId: "porep-32g" }],
        queues: [{ proofKind: "porep-c2", pending: 1, inProgress: 2 }],
      }),
    );
    expect(status.pinnedMemoryBytes).toBeUndefined();
    expect(status.pinnedMemoryLimitBytes).toBeUndefined();
    expect(status.gpus[0]).toMatchObject({
      name: "GPU 3",
      vramTotalBytes: undefined,
      vramFreeBytes: undefined,
      workers: 1,
    });
    expect(status.loadedSrs).toEqual([
      { circuitId: "porep-32g", tier: "hot", sizeBytes: undefined, refCount: undefined },
    ]);
    expect(status.queues).toEqual([{ proofKind: "porep-c2", pending: 1, inProgress: 2 }]);
  });

  it("keeps real non-zero values", () => {
    const status = normalizeStatus(
      create(GetStatusResponseSchema, {
        pinnedMemoryBytes: 5n,
        loadedSrs: [{ circuitId: "x", sizeBytes: 9n, refCount: 2, tier: 2 }],
      }),
    );
    expect(status.pinnedMemoryBytes).toBe(5);
    expect(status.loadedSrs[0]).toMatchObject({ sizeBytes: 9, refCount: 2, tier: "cold" });
  });
});
