import { create } from "@bufbuild/protobuf";
import { type AwaitProofResponse, AwaitProofResponseSchema } from "@cuzkit/proto";
import { describe, expect, it } from "vitest";
import { createJobTracker } from "./job-tracker.js";

const result = (jobId: string, errorMessage: string): AwaitProofResponse =>
  create(AwaitProofResponseSchema, { jobId, errorMessage });

describe("createJobTracker", () => {
  it("does not know an id that was never submitted", () => {
    expect(createJobTracker().await("nope")).toBeUndefined();
  });

  it("delivers the first completion of an id to every waiter and caches the last one", async () => {
    const tracker = createJobTracker();
    tracker.submitted("x");
    tracker.submitted("x"); // a duplicate: the daemon runs it a second time
    const proveWaiter = new Promise<AwaitProofResponse>((resolve) => tracker.addWaiter("x", resolve));
    const awaiter = tracker.await("x");
    tracker.complete("x", result("x", "first"));
    expect((await proveWaiter).errorMessage).toBe("first");
    expect((await awaiter!).errorMessage).toBe("first");
    tracker.complete("x", result("x", "second"));
    expect((await tracker.await("x")!).errorMessage).toBe("second");
  });

  it("answers AwaitProof with the old result after a resubmission, while Prove gets the new one", async () => {
    const tracker = createJobTracker();
    tracker.submitted("y");
    tracker.complete("y", result("y", "old"));
    tracker.submitted("y");
    const prove = new Promise<AwaitProofResponse>((resolve) => tracker.addWaiter("y", resolve));
    expect((await tracker.await("y")!).errorMessage).toBe("old");
    tracker.complete("y", result("y", "new"));
    expect((await prove).errorMessage).toBe("new");
    expect(tracker.finishedCount()).toBe(1);
  });
});
