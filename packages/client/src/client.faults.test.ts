import { join } from "node:path";
import type { SimDaemon } from "@cuzkit/sim";
import { startSimProcess } from "@cuzkit/sim/testing";
import { describe, expect, it } from "vitest";
import type { CuzkClient } from "./client.js";
import {
  ConnectionLostError,
  DaemonFrozenError,
  DeadlineExceededError,
  RequestIdReusedError,
} from "./errors.js";
import { windowPostRequest } from "./requests.js";
import { awaitInFlight, faultWhenInFlight, porep, recorder, useClientTestKit } from "./test-support.js";

// The failures of issue 9, end to end over real sockets: a proxy in front of the simulator
// resets, refuses (a forwarded port that went away) or drops (a black hole), and a simulator
// in its own process is frozen with SIGSTOP. Each test asserts what a user relies on: the
// error code and hint, how many SubmitProof calls the daemon saw, and that the same client
// works for the next call. Faults are triggered from the client's own events.

const { sim, proxyTo, client, defer, tempDir } = useClientTestKit();

const wpost = () =>
  windowPostRequest({ vanillaProofs: [new Uint8Array(256)], randomness: "11".repeat(32), minerId: 1000 });
const submissions = (daemon: SimDaemon) => daemon.stats().submissionsByRequestId;

/** Keepalive and probe settings that find a silent daemon in well under a second (200 + 200 ms, one 300 ms probe). */
const quickFreezeDetection = {
  keepalive: { pingIntervalMs: 200, pingTimeoutMs: 200 },
  reconnect: { probeTimeoutMs: 300 },
};

/** Proves on `c`, running `freeze` once `daemon` holds the AwaitProof; the error and the events. */
async function proveAndFreeze(c: CuzkClient, daemon: Pick<SimDaemon, "whenReceived">, freeze: () => void) {
  const rec = faultWhenInFlight(daemon, freeze);
  const error = await c.prove(await porep(), { onEvent: rec.onEvent }).catch((e) => e);
  return { error, rec };
}

describe("a client whose upload was cut stays healthy", () => {
  it("after a 120 MB submit cut by its deadline: not accepted, then status and prove work on the same client", async () => {
    const daemon = await sim({ proofTimeMs: 0 });
    const c = client(daemon.address);
    const big = await porep(120_000_000);
    const error = await c.submitProof({ ...big, requestId: "cut-1" }, { timeoutMs: 30 }).catch((e) => e);
    expect(error).toBeInstanceOf(DeadlineExceededError);
    expect(error.message).toMatch(/not accepted; nothing is running/);
    expect(error.retryable).toBe(true);
    expect(error.hint).toMatch(/submitPerMiBMs/);
    await expect(c.getStatus()).resolves.toMatchObject({ uptimeSeconds: expect.any(Number) });
    const result = await c.prove(await porep());
    // The first attempt went through: the cut upload left nothing that a retry had to get past.
    expect(result).toMatchObject({ attempts: 1, resubmits: 0, resumes: 0 });
    expect(result.proof.byteLength).toBe(1920);
    // Nothing ran under the cut id, so it may be sent again.
    expect(submissions(daemon)["cut-1"]).toBeUndefined();
    await expect(c.submitProof({ ...(await porep()), requestId: "cut-1" })).resolves.toMatchObject({
      jobId: "cut-1",
    });
    expect(submissions(daemon)["cut-1"]).toBe(1);
  });

  it("reports a caller's AbortSignal.timeout() as DEADLINE_EXCEEDED and keeps working", async () => {
    const daemon = await sim({ proofTimeMs: 0 });
    const c = client(daemon.address);
    const big = await porep(120_000_000);
    const error = await c
      .submitProof({ ...big, requestId: "cut-2" }, { signal: AbortSignal.timeout(30) })
      .catch((e) => e);
    expect(error).toBeInstanceOf(DeadlineExceededError);
    expect(error.code).toBe("DEADLINE_EXCEEDED");
    await expect(c.getStatus()).resolves.toBeDefined();
    await expect(c.prove(await porep())).resolves.toMatchObject({ attempts: 1 });
  });

  it("re-sends a prove whose upload a proxy reset mid-way, under a new id: one SubmitProof reaches the daemon", async () => {
    const daemon = await sim({ proofTimeMs: 0 });
    const proxy = await proxyTo(daemon);
    const c = client(proxy.address, { reconnect: { initialDelayMs: 20 } });
    const rec = recorder((event) => {
      if (event.type === "attempt" && event.attempt === 1) {
        // The upload stalls in the black hole, then the connection is reset under it.
        proxy.drop();
        void proxy.whenHolding().then(async () => {
          proxy.reset();
          await proxy.restore();
        });
      }
    });
    const result = await c.prove(await porep(60_000_000), { onEvent: rec.onEvent });
    expect(result).toMatchObject({ attempts: 2, resubmits: 0 });
    expect(rec.events.find((e) => e.type === "resubmitted")).toMatchObject({ reason: "not-accepted" });
    expect(submissions(daemon)).toEqual({ [result.jobId]: 1 });
  });
});

describe("a forwarded port that goes away and comes back", () => {
  it.each([
    ["WindowPoSt", wpost],
    ["PoRep", () => porep()],
  ])("resumes the same %s job after refusals (exactly 1 SubmitProof)", async (_kind, build) => {
    const daemon = await sim({ proofTimeMs: 1_500 });
    const proxy = await proxyTo(daemon);
    const c = client(proxy.address, { reconnect: { initialDelayMs: 50, maxDelayMs: 200 } });
    const rec = recorder((event) => {
      if (event.type === "submitted") void awaitInFlight(daemon, event).then(() => proxy.refuse());
      if (event.type === "reconnecting" && event.probe === 3) void proxy.restore();
    });
    const result = await c.prove(await build(), { onEvent: rec.onEvent });
    expect(result).toMatchObject({ attempts: 1, resubmits: 0, resumes: 1 });
    expect(rec.types()).toEqual(
      expect.arrayContaining(["connection-lost", "reconnecting", "resumed", "completed"]),
    );
    expect(rec.types()).not.toContain("daemon-restarted");
    expect(submissions(daemon)).toEqual({ [result.jobId]: 1 });
    expect(daemon.stats().proofsCompleted).toBe(1);
  });

  it("resumes after a reset by the proxy, and says the connection closed without blaming the daemon", async () => {
    const daemon = await sim({ proofTimeMs: 1_000 });
    const proxy = await proxyTo(daemon);
    const c = client(proxy.address);
    const rec = faultWhenInFlight(daemon, () => proxy.reset());
    const result = await c.prove(await porep(), { onEvent: rec.onEvent });
    const lost = rec.events.find((e) => e.type === "connection-lost") as { error: Error } | undefined;
    expect(lost?.error.message).not.toMatch(/the daemon closed the call/);
    expect(result).toMatchObject({ attempts: 1, resumes: 1 });
    expect(submissions(daemon)).toEqual({ [result.jobId]: 1 });
  });
});

describe("a daemon that dies", () => {
  it("with the default PoRep policy, a crash then a supervisor restart is DAEMON_RESTARTED, not a lost connection", async () => {
    const daemon = await sim({ proofTimeMs: 600_000 });
    const c = client(daemon.address, { reconnect: { initialDelayMs: 20, maxDelayMs: 50 } });
    let restarted: Promise<void> | undefined;
    const rec = recorder((event) => {
      if (event.type === "submitted") void awaitInFlight(daemon, event).then(() => daemon.crash("oom"));
      if (event.type === "reconnecting" && event.probe === 2) restarted ??= daemon.restart();
    });
    const error = await c.prove(await porep(), { onEvent: rec.onEvent }).catch((e) => e);
    await restarted;
    expect(error.code).toBe("DAEMON_RESTARTED");
    expect(error.message).toMatch(/uptime went back|counters went back|no longer knows the job/);
    expect(error.hint).toMatch(/may have been OOM-killed.*dmesg/);
    expect(error.jobId).toMatch(/^porep-1000-1-a1-/);
    // One SubmitProof over both processes: with resubmit off nothing was sent again.
    expect(Object.values(submissions(daemon))).toEqual([1]);
    await expect(c.getStatus()).resolves.toBeDefined();
  });

  it("a crash during a raw upload says not accepted, nothing is running, and lets the same id be sent again", async () => {
    const daemon = await sim({ proofTimeMs: 0 });
    const proxy = await proxyTo(daemon);
    const c = client(proxy.address);
    proxy.drop();
    const pending = c.submitProof({ ...(await porep(60_000_000)), requestId: "crash-up-1" }).catch((e) => e);
    await proxy.whenHolding(); // the upload is stuck in the black hole
    daemon.crash("oom");
    proxy.reset();
    const error = await pending;
    expect(error.code).toBe("CONNECTION_LOST");
    expect(error.message).toMatch(/not accepted; nothing is running/);
    expect(error.message).not.toMatch(/job is lost/);
    expect(error.retryable).toBe(true);
    await daemon.restart();
    await proxy.restore();
    await expect(c.submitProof({ ...(await porep()), requestId: "crash-up-1" })).resolves.toMatchObject({
      jobId: "crash-up-1",
    });
  });
});

describe("a daemon that stops answering", () => {
  it("black hole: prove reports DaemonFrozenError naming the job, which survives and can be awaited", async () => {
    const daemon = await sim({ proofTimeMs: 1_500 });
    const proxy = await proxyTo(daemon);
    const c = client(proxy.address, quickFreezeDetection);
    const { error } = await proveAndFreeze(c, daemon, () => proxy.drop());
    expect(error).toBeInstanceOf(DaemonFrozenError);
    // Found by the keepalive (the proof deadline is 30 min, past the test's limit).
    expect(error.message).toMatch(/stopped answering HTTP\/2 PINGs/);
    expect(error.code).toBe("DAEMON_FROZEN");
    expect(error.retryable).toBe(false);
    expect(error.hint).toContain(`awaitProof("${error.jobId}")`);
    expect(error.hint).not.toMatch(/warmup/);
    await proxy.restore();
    const awaited = await c.awaitProof(error.jobId);
    expect(awaited.status).toBe(1);
    expect(submissions(daemon)).toEqual({ [error.jobId]: 1 });
  });

  it("SIGSTOP of the daemon process: DaemonFrozenError within keepalive + one probe; after SIGCONT the job completes", async () => {
    const dir = await tempDir();
    const daemon = await startSimProcess(`unix://${join(dir, "cuzk.sock")}`, 1_500);
    defer(() => daemon.stop());
    const c = client(daemon.address, quickFreezeDetection);
    const { error, rec } = await proveAndFreeze(c, daemon, () => daemon.freeze());
    expect(error).toBeInstanceOf(DaemonFrozenError);
    expect(error.message).toMatch(/the job may still be running/);
    // Found by the 200 + 200 ms keepalive and one probe, not by the 30 min proof deadline.
    expect(error.message).toMatch(/stopped answering HTTP\/2 PINGs/);
    expect(rec.types()).not.toContain("resubmitted");
    daemon.thaw();
    const awaited = await c.awaitProof(error.jobId);
    expect(awaited.status).toBe(1);
    expect((await daemon.stats()).submissionsByRequestId).toEqual({ [error.jobId]: 1 });
  });
});

describe("request ids are never reused", () => {
  it("refuses an id this client already sent, unless allowReusedId is passed", async () => {
    const daemon = await sim({ proofTimeMs: 0 });
    const c = client(daemon.address);
    const request = { ...(await porep()), requestId: "same-1" };
    await c.submitProof(request);
    const error = await c.submitProof(request).catch((e) => e);
    expect(error).toBeInstanceOf(RequestIdReusedError);
    expect(error.code).toBe("REQUEST_ID_REUSED");
    expect(error.message).toContain('"same-1"');
    expect(error.message).toMatch(/does not deduplicate/);
    expect(error.hint).toContain('awaitProof("same-1")');
    expect(submissions(daemon)).toEqual({ "same-1": 1 });
    await expect(c.proveOnce(request)).rejects.toBeInstanceOf(RequestIdReusedError);
    await c.submitProof(request, { allowReusedId: true });
    expect(submissions(daemon)).toEqual({ "same-1": 2 });
    // prove's own attempt ids count as sent too.
    const proved = await c.prove(await porep());
    await expect(c.submitProof({ ...request, requestId: proved.jobId })).rejects.toBeInstanceOf(
      RequestIdReusedError,
    );
  });

  it("an error after the request reached the daemon carries the job id, is not retryable, and points to awaitProof", async () => {
    const daemon = await sim({ proofTimeMs: 1_000 });
    const proxy = await proxyTo(daemon);
    const c = client(proxy.address);
    const pending = c.proveOnce({ ...(await porep()), requestId: "once-1" }).catch((e) => e);
    await daemon.whenReceived("Prove", { jobId: "once-1" });
    proxy.reset();
    const error = await pending;
    expect(error).toBeInstanceOf(ConnectionLostError);
    expect(error.jobId).toBe("once-1");
    expect(error.retryable).toBe(false);
    expect(error.message).toMatch(/the job may still be running/);
    expect(error.hint).toContain('awaitProof("once-1")');
    const awaited = await c.awaitProof("once-1");
    expect(awaited.status).toBe(1);
    expect(submissions(daemon)).toEqual({ "once-1": 1 });
  });
});
