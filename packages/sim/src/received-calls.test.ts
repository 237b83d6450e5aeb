import { ProofKind } from "@cuzkit/proto";
import { status } from "@grpc/grpc-js";
import { afterEach, describe, expect, it } from "vitest";
import { createSyntheticC1 } from "./c1-wrapper.js";
import { createReceivedCalls, jobIdOfRequest } from "./received-calls.js";
import { createManualScheduler } from "./scheduler.js";
import { grpcError } from "./testing/grpc-test-client.js";
import { createTracker } from "./testing/track.js";

const track = createTracker();
afterEach(() => track.cleanup());

/** Settles `promise` into "resolved", "rejected" or "pending" after every queued microtask. */
async function stateOf(promise: Promise<unknown>): Promise<string> {
  let state = "pending";
  promise.then(
    () => {
      state = "resolved";
    },
    () => {
      state = "rejected";
    },
  );
  await new Promise((resolve) => setImmediate(resolve));
  return state;
}

describe("the received-calls ledger", () => {
  it("resolves a wait when the counted calls arrive, per method and per job", async () => {
    const calls = createReceivedCalls();
    const second = calls.whenReceived("AwaitProof", { jobId: "a", count: 2 });
    const other = calls.whenReceived("AwaitProof", { jobId: "b" });
    calls.record("AwaitProof", "a");
    calls.record("SubmitProof", "a");
    expect(await stateOf(second)).toBe("pending");
    calls.record("AwaitProof", "a");
    expect(await stateOf(second)).toBe("resolved");
    expect(await stateOf(other)).toBe("pending");
    expect(calls.count("AwaitProof")).toBe(2);
    expect(calls.count("AwaitProof", "a")).toBe(2);
    expect(calls.counts()).toEqual({ AwaitProof: 2, SubmitProof: 1 });
    calls.close();
    await expect(other).rejects.toMatchObject({ code: "SIM_STOPPED" });
  });

  it("counts calls received before the wait began", async () => {
    const calls = createReceivedCalls();
    calls.record("GetStatus", undefined);
    await expect(calls.whenReceived("GetStatus")).resolves.toBeUndefined();
    expect(await stateOf(calls.whenReceived("GetStatus", { count: 2 }))).toBe("pending");
  });

  it("gives up on abort, removing its listener, and refuses a bad count", async () => {
    const calls = createReceivedCalls();
    const controller = new AbortController();
    const waiting = calls.whenReceived("Prove", { signal: controller.signal });
    controller.abort(new Error("test gave up"));
    await expect(waiting).rejects.toThrow("test gave up");
    // An abort after the call arrived changes nothing, and a resolved wait leaves no listener.
    const resolved = new AbortController();
    let added = 0;
    let removed = 0;
    const { signal } = resolved;
    const add = signal.addEventListener.bind(signal);
    const remove = signal.removeEventListener.bind(signal);
    signal.addEventListener = ((...args: Parameters<typeof add>) => {
      added++;
      add(...args);
    }) as typeof add;
    signal.removeEventListener = ((...args: Parameters<typeof remove>) => {
      removed++;
      remove(...args);
    }) as typeof remove;
    const done = calls.whenReceived("Prove", { signal });
    calls.record("Prove", "p");
    await done;
    expect({ added, removed }).toEqual({ added: 1, removed: 1 });
    await expect(calls.whenReceived("Prove", { count: 0 })).rejects.toMatchObject({ code: "INVALID_INPUT" });
  });

  it.each([
    [{ jobId: "j1", timeoutMs: 0n }, "j1"],
    [{ requestId: "r1" }, "r1"],
    [{ submit: { requestId: "s1" } }, "s1"],
    [{ requestId: "" }, undefined],
    [{ circuitId: "porep-32g" }, undefined],
  ])("takes the job of %o as %s", (request, jobId) => {
    expect(jobIdOfRequest(request)).toBe(jobId);
  });
});

describe("SimDaemon.whenReceived", () => {
  const porep = (requestId: string) => ({
    requestId,
    proofKind: ProofKind.POREP_SEAL_COMMIT,
    sectorSize: 34359738368n,
    vanillaProof: createSyntheticC1({ sectorNumber: 1 }),
  });

  it("resolves once the daemon holds the AwaitProof, so a drop then hits the call in flight", async () => {
    const scheduler = createManualScheduler();
    const daemon = await track.daemon({ proofTimeMs: 60_000, scheduler });
    const client = track.client(daemon.address);
    await client.submitProof(porep("held-1"));
    const held = daemon.whenReceived("AwaitProof", { jobId: "held-1" });
    expect(await stateOf(held)).toBe("pending");
    const awaiting = grpcError(client.awaitProof({ jobId: "held-1" }));
    await held;
    expect(daemon.stats().callsReceived).toMatchObject({ SubmitProof: 1, AwaitProof: 1 });
    daemon.dropConnections();
    expect((await awaiting).grpcCode).toBe(status.UNAVAILABLE);
    // Counts outlive a restart (the ledger is the daemon object's, not one run's).
    daemon.crash();
    await daemon.restart();
    await grpcError(track.client(daemon.address).awaitProof({ jobId: "held-1" }));
    await daemon.whenReceived("AwaitProof", { jobId: "held-1", count: 2 });
    expect(daemon.stats().callsReceived.AwaitProof).toBe(2);
  });

  it("rejects a pending wait with SIM_STOPPED when the daemon stops", async () => {
    const daemon = await track.daemon({ proofTimeMs: 0 });
    const never = daemon.whenReceived("Prove");
    await daemon.stop();
    await expect(never).rejects.toMatchObject({ code: "SIM_STOPPED" });
    await expect(daemon.whenReceived("Prove")).rejects.toMatchObject({ code: "SIM_STOPPED" });
  });
});
