import { create } from "@bufbuild/protobuf";
import { GetStatusResponseSchema, GPUStatusSchema, QueueStatusSchema } from "@cuzkit/proto";
import { describe, expect, it } from "vitest";
import { defaultStuck } from "./options.js";
import { normalizeStatus } from "./status.js";
import { expectedProofMs, progressBetween, stuckSample, stuckWindow } from "./stuck.js";

// The pure part of stuck detection: what counts as progress, and the window from the model.

/** A GetStatus with `completed` proofs, the porep queue at `pending`, and GPU 0 on `onGpu` ("" = idle). */
function status(completed: number, pending: number, onGpu: string, name = "NVIDIA GeForce RTX 3090") {
  return normalizeStatus(
    create(GetStatusResponseSchema, {
      uptimeSeconds: 100n,
      totalProofsCompleted: BigInt(completed),
      gpus: [
        create(GPUStatusSchema, {
          ordinal: 0,
          name,
          currentJobId: onGpu,
          currentProofKind: onGpu ? "porep-c2" : "",
        }),
      ],
      queues:
        pending > 0 ? [create(QueueStatusSchema, { proofKind: "porep-c2", pending, inProgress: 1 })] : [],
    }),
  );
}
const sample = (completed: number, pending: number, onGpu: string, atMs = 0) =>
  stuckSample(status(completed, pending, onGpu), "mine", "porep", atMs);

describe("progressBetween", () => {
  it("counts a queued job that reaches a GPU as progress", () => {
    expect(progressBetween(sample(5, 2, "other"), sample(5, 2, "mine"))).toBe("job-on-gpu");
  });
  it("counts completed counters that move, and a queue that shrinks", () => {
    expect(progressBetween(sample(5, 2, "other"), sample(6, 2, "other"))).toBe("counters");
    expect(progressBetween(sample(5, 3, "other"), sample(5, 2, "other"))).toBe("queue");
  });
  it("once the job has been on a GPU, counts only its own movement: others completing do not hide it", () => {
    expect(progressBetween(sample(5, 0, "mine"), sample(9, 0, "mine"), true)).toBeUndefined();
    expect(progressBetween(sample(5, 3, "mine"), sample(5, 1, "mine"), true)).toBeUndefined();
    // Back onto the GPU for its next partition: that is the job moving.
    expect(progressBetween(sample(5, 0, "other"), sample(6, 0, "mine"), true)).toBe("job-on-gpu");
  });
  it("sees nothing in a job that stays on its GPU with the counters still", () => {
    expect(progressBetween(sample(5, 0, "mine"), sample(5, 0, "mine"))).toBeUndefined();
    expect(progressBetween(sample(5, 2, "other"), sample(5, 2, "other"))).toBeUndefined();
  });
});

describe("stuckWindow", () => {
  it("uses the GPU GetStatus names when the catalog knows it, else a slower default", () => {
    const known = stuckWindow(defaultStuck, "porep", ["NVIDIA GeForce RTX 4090"], false);
    const unknown = stuckWindow(defaultStuck, "porep", ["GPU 0"], false);
    expect(known).toMatchObject({ gpuKnown: true, etaMs: expectedProofMs("porep", ["RTX 4090"]) });
    expect(unknown.gpuKnown).toBe(false);
    expect(unknown.windowMs).toBeGreaterThan(known.windowMs);
    // ETA x 3, well inside the 30-minute proof deadline.
    expect(known.windowMs).toBe(known.etaMs === undefined ? 0 : known.etaMs * 3);
    expect(unknown.windowMs).toBeLessThan(30 * 60_000);
  });
  it("never goes under the floor for short proofs, and a warmup gets more time", () => {
    expect(stuckWindow(defaultStuck, "winning", ["RTX 3090"], false).windowMs).toBe(defaultStuck.minMs);
    expect(expectedProofMs("porep", ["RTX 3090"], true)).toBeGreaterThan(
      expectedProofMs("porep", ["RTX 3090"]),
    );
  });
});
