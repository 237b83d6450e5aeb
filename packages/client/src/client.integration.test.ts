import { subscribe, unsubscribe } from "node:diagnostics_channel";
import type { ClientHttp2Stream, Http2Session } from "node:http2";
import { join } from "node:path";
import { setImmediate as nextTurn } from "node:timers/promises";
import type { Sleep } from "@cuzkit/core";
import { createManualScheduler } from "@cuzkit/sim/testing";
import { describe, expect, it, onTestFinished } from "vitest";
import { createCuzkClient } from "./client.js";
import {
  AbortedError,
  DaemonFrozenError,
  DaemonRestartedError,
  DaemonUnavailableError,
  DeadlineExceededError,
  InvalidAddressError,
  InvalidRequestError,
  JobNotFoundError,
  PayloadTooLargeError,
  ProofFailedError,
} from "./errors.js";
import { winningPostRequest } from "./requests.js";
import { fetchStatusJson } from "./status-json.js";
import { awaitInFlight, faultWhenInFlight, porep, recorder, useClientTestKit } from "./test-support.js";
import { http2StreamChannelName } from "./transport.js";

// The client against @cuzkit/sim (a grpc-js server: a second, independent HTTP/2 stack) over
// real loopback sockets, TCP and unix. Faults are triggered from the client's own events so
// each test is deterministic; where real time is measured the bounds are generous.

const { sim, client, tempDir } = useClientTestKit();

/**
 * Watches the HTTP/2 streams the client opens (published by transport.ts) and their sessions.
 * settled() resolves once every stream has closed and every destroyed session has emitted
 * "close": connect-node has no PING timer left that could destroy a session with an error.
 */
function watchHttp2Sessions() {
  const closes: Promise<void>[] = [];
  const sessions = new Map<Http2Session, Promise<void>>();
  const closed = (emitter: ClientHttp2Stream | Http2Session) =>
    new Promise<void>((resolve) => emitter.once("close", () => resolve()));
  const onStream = (message: unknown) => {
    const { stream } = message as { stream: ClientHttp2Stream };
    closes.push(closed(stream));
    const session = stream.session;
    if (session && !sessions.has(session)) sessions.set(session, closed(session));
  };
  subscribe(http2StreamChannelName, onStream);
  onTestFinished(() => {
    unsubscribe(http2StreamChannelName, onStream);
  });
  return {
    async settled(): Promise<void> {
      await Promise.all(closes);
      await Promise.all([...sessions].filter(([session]) => session.destroyed).map(([, close]) => close));
    },
  };
}

/**
 * The client's backoff sleep for restart tests: waits for the restart (not for real time),
 * then yields one event-loop turn so probes do not spin.
 */
const sleepUntil =
  (restarted: () => Promise<void> | undefined): Sleep =>
  async (_ms, signal) => {
    await restarted();
    await nextTurn(undefined, { signal });
  };

describe("createCuzkClient over real sockets", () => {
  it("proves over TCP: one submission, proof completed once, events in order", async () => {
    const daemon = await sim({ proofTimeMs: 20 });
    const c = client(daemon.address);
    const rec = recorder();
    const result = await c.prove(await porep(), { onEvent: rec.onEvent });
    expect(rec.types()).toEqual(["attempt", "submitted", "completed"]);
    expect(result.proof.byteLength).toBe(1920);
    expect(result.jobId).toMatch(/^porep-1000-1-a1-/);
    const stats = daemon.stats();
    expect(stats.submissionsByRequestId).toEqual({ [result.jobId]: 1 });
    expect(stats.proofsCompleted).toBe(1);
  });

  it("works over a unix socket (unix:///abs and unix:/abs forms)", async () => {
    const path = join(await tempDir(), "cuzk.sock");
    const daemon = await sim({ listen: `unix://${path}`, proofTimeMs: 0 });
    expect(daemon.address).toBe(`unix://${path}`);
    const c = client(`unix:${path}`);
    expect(c.address).toBe(`unix://${path}`);
    const status = await c.getStatus();
    expect(status.gpus.length).toBeGreaterThan(0);
    const result = await c.prove(await porep());
    expect(result.proof.byteLength).toBe(1920);
  });

  it("works over IPv6 loopback", async () => {
    const daemon = await sim({ listen: "[::1]:0", proofTimeMs: 0 }).catch(() => undefined);
    if (daemon === undefined) return; // no IPv6 on this host
    const c = client(daemon.address);
    expect((await c.prove(await porep())).proof.byteLength).toBe(1920);
  });

  it("sends a 51 MB PoRep intact through the pre-encoded path (the sim parses the C1)", async () => {
    const daemon = await sim({ proofTimeMs: 0 });
    const c = client(`http://${daemon.address}`);
    const request = await porep(51_000_000);
    const result = await c.prove(request);
    expect(result.proof.byteLength).toBe(1920);
    const once = await c.proveOnce(request);
    expect(once.result?.status).toBe(1);
    expect(once.result?.jobId).toMatch(/^porep-1000-1-p-/);
  });

  it("resumes after a dropped connection without duplicate work", async () => {
    const scheduler = createManualScheduler();
    const daemon = await sim({ proofTimeMs: 60_000, scheduler });
    const c = client(daemon.address);
    const rec = recorder((event) => {
      if (event.type === "submitted") void awaitInFlight(daemon, event).then(() => daemon.dropConnections());
      // The resumed call is the job's second AwaitProof.
      if (event.type === "resumed")
        void awaitInFlight(daemon, event, 2).then(() => scheduler.advance(60_000));
    });
    const result = await c.prove(await porep(), { onEvent: rec.onEvent });
    expect(rec.types()).toEqual(["attempt", "submitted", "connection-lost", "resumed", "completed"]);
    expect(result).toMatchObject({ resumes: 1, resubmits: 0, attempts: 1 });
    const stats = daemon.stats();
    expect(Object.values(stats.submissionsByRequestId)).toEqual([1]);
    expect(stats.proofsCompleted).toBe(1);
  });

  it("resubmits under a new id after a restart when allowed (uptime went back)", async () => {
    const scheduler = createManualScheduler();
    const daemon = await sim({ proofTimeMs: 60_000, scheduler });
    scheduler.advance(3_600_000); // the daemon has been up an hour
    let restarted: Promise<void> | undefined;
    const sleep = sleepUntil(() => restarted);
    const c = client(daemon.address, { sleep, statusBaselineMaxAgeMs: 600_000 });
    const rec = recorder((event) => {
      if (event.type === "submitted" && event.attempt === 1) {
        void awaitInFlight(daemon, event).then(() => {
          daemon.crash("oom");
          restarted = daemon.restart();
        });
      }
      if (event.type === "submitted" && event.attempt === 2)
        void awaitInFlight(daemon, event).then(() => scheduler.advance(60_000));
    });
    const result = await c.prove(await porep(), { resubmit: true, onEvent: rec.onEvent });
    expect(result).toMatchObject({ resubmits: 1, attempts: 2 });
    const restartEvent = rec.events.find((e) => e.type === "daemon-restarted");
    expect(restartEvent).toBeDefined();
    expect(["refused", "uptime"]).toContain((restartEvent as { evidence: string }).evidence);
    const ids = Object.keys(daemon.stats().submissionsByRequestId);
    expect(ids).toHaveLength(2);
    expect(ids[0]).not.toBe(ids[1]);
    expect(Object.values(daemon.stats().submissionsByRequestId)).toEqual([1, 1]);
  });

  it("does not call a refusing daemon dead: after the window it is DaemonUnavailableError with the possibilities named", async () => {
    const daemon = await sim({ proofTimeMs: 600_000 });
    const c = client(daemon.address, {
      reconnect: { initialDelayMs: 20, maxDelayMs: 50, giveUpAfterMs: 500 },
    });
    const rec = faultWhenInFlight(daemon, () => daemon.crash("oom"));
    const error = await c.prove(await porep(), { onEvent: rec.onEvent }).catch((e) => e);
    expect(error).toBeInstanceOf(DaemonUnavailableError);
    expect(error.message).toMatch(/did not answer for \d+ ms .*whether the job still runs is unknown/);
    expect(error.hint).toMatch(/may have died .*tunnel.*dmesg/);
    expect(error.retryable).toBe(false);
    expect(error.jobId).toMatch(/^porep-1000-1-a1-/);
    expect(rec.types()).toContain("reconnecting");
    expect(rec.types().at(-1)).toBe("failed");
  });

  it("fails with DaemonRestartedError when the daemon came back without the job and resubmit is off", async () => {
    const daemon = await sim({ proofTimeMs: 600_000, faults: {} });
    let restarted: Promise<void> | undefined;
    const sleep = sleepUntil(() => restarted);
    const c = client(daemon.address, {
      sleep,
      keepalive: { pingIntervalMs: 100, pingTimeoutMs: 100 },
      reconnect: { probeTimeoutMs: 200, giveUpAfterMs: 10_000 },
    });
    const rec = recorder((event) => {
      if (event.type === "submitted") void awaitInFlight(daemon, event).then(() => daemon.stall());
      if (event.type === "connection-lost" && restarted === undefined) {
        // Frozen, then killed and restarted by its supervisor.
        daemon.crash("oom");
        restarted = daemon.restart();
      }
    });
    const error = await c.prove(await porep(), { onEvent: rec.onEvent }).catch((e) => e);
    expect(error).toBeInstanceOf(DaemonRestartedError);
    expect(error.code).toBe("DAEMON_RESTARTED");
    expect(error.message).toMatch(/no longer knows the job|uptime went back|counters went back/);
    expect(error.hint).toMatch(/OOM-killed/);
    expect(rec.types()).toEqual(expect.arrayContaining(["connection-lost", "daemon-restarted", "failed"]));
  });

  it("fails a call to a frozen daemon within keepalive interval + timeout", async () => {
    const daemon = await sim({ proofTimeMs: 600_000 });
    const c = client(daemon.address, { keepalive: { pingIntervalMs: 200, pingTimeoutMs: 200 } });
    const request = await porep();
    const submitted = await c.submitProof({ ...request, requestId: "stall-1" });
    const pending = c.awaitProof(submitted.jobId).catch((e) => e);
    await daemon.whenReceived("AwaitProof", { jobId: submitted.jobId });
    daemon.stall();
    const error = await pending;
    expect(error).toBeInstanceOf(DaemonFrozenError);
    expect(error.code).toBe("DAEMON_FROZEN");
    // The keepalive found it (the call's deadline is 30 min, past the test's limit): no clock
    // bound needed, so a loaded machine cannot fail this.
    expect(error.message).toMatch(/stopped answering HTTP\/2 PINGs/);
  });

  it("reports a frozen daemon from prove as DaemonFrozenError after one short probe", async () => {
    // Also guards against connect-node's PING-timeout race (an uncaught exception that would
    // kill the caller's process): transport.ts keeps an error listener on every session.
    const uncaught: unknown[] = [];
    let sawUncaught = () => {};
    const uncaughtSeen = new Promise<void>((resolve) => {
      sawUncaught = resolve;
    });
    const onUncaught = (error: unknown) => {
      uncaught.push(error);
      sawUncaught();
    };
    process.on("uncaughtException", onUncaught);
    const sessions = watchHttp2Sessions();
    onTestFinished(() => {
      process.off("uncaughtException", onUncaught);
    });
    const daemon = await sim({ proofTimeMs: 600_000 });
    const c = client(daemon.address, {
      keepalive: { pingIntervalMs: 100, pingTimeoutMs: 100 },
      reconnect: { initialDelayMs: 50, probeTimeoutMs: 100, giveUpAfterMs: 600 },
    });
    const rec = faultWhenInFlight(daemon, () => daemon.stall());
    const error = await c.prove(await porep(), { onEvent: rec.onEvent }).catch((e) => e);
    expect(error).toBeInstanceOf(DaemonFrozenError);
    expect(error.hint).toMatch(/nothing answers/);
    // Found by the keepalive and one probe, not by the 30 min proof deadline.
    expect(error.message).toMatch(/stopped answering HTTP\/2 PINGs/);
    expect(error.jobId).toMatch(/^porep-1000-1-a1-/);
    expect(rec.types()).not.toContain("reconnecting");
    // The race lives in connect-node's own PING timers, which expose no event: wait until no
    // stream is open (connect-node stops a session's timers with its last stream) and every
    // destroyed session has emitted "close" (after its "error": were it uncaught, it comes first).
    await Promise.race([sessions.settled(), uncaughtSeen]);
    expect(uncaught).toEqual([]);
  });

  it("applies deadlines: awaitProof and prove end with DeadlineExceededError naming the job", async () => {
    const daemon = await sim({ proofTimeMs: 600_000 });
    const c = client(daemon.address);
    const submitted = await c.submitProof({ ...(await porep()), requestId: "deadline-1" });
    const awaited = await c.awaitProof(submitted.jobId, { timeoutMs: 150 }).catch((e) => e);
    expect(awaited).toBeInstanceOf(DeadlineExceededError);
    const proved = await c.prove(await porep(), { timeoutMs: 300 }).catch((e) => e);
    expect(proved).toBeInstanceOf(DeadlineExceededError);
    expect(proved.jobId).toMatch(/^porep-1000-1-a1-/);
    expect(proved.hint).toMatch(/awaitProof/);
  });

  it("reports a caller abort as AbortedError, not as a lost connection", async () => {
    const daemon = await sim({ proofTimeMs: 600_000 });
    const c = client(daemon.address);
    const controller = new AbortController();
    const rec = faultWhenInFlight(daemon, () => controller.abort());
    const error = await c
      .prove(await porep(), { signal: controller.signal, onEvent: rec.onEvent })
      .catch((e) => e);
    expect(error).toBeInstanceOf(AbortedError);
    expect(error.code).toBe("ABORTED");
    expect(rec.types()).not.toContain("connection-lost");
    // The daemon is fine and still answers.
    await expect(c.getStatus()).resolves.toBeDefined();
  });

  it("validates before sending: nothing reaches the daemon", async () => {
    const daemon = await sim({ proofTimeMs: 0 });
    const c = client(daemon.address, { maxRequestBytes: 2_000 });
    await expect(c.submitProof({ ...(await porep(1024)), requestId: "" })).rejects.toBeInstanceOf(
      InvalidRequestError,
    );
    await expect(c.prove({ proofKind: 0, vanillaProof: new Uint8Array(5) })).rejects.toThrow(
      /unknown proof kind/,
    );
    await expect(c.prove({ proofKind: 1 })).rejects.toThrow(/empty/);
    await expect(c.prove(await porep(4096))).rejects.toBeInstanceOf(PayloadTooLargeError);
    await expect(c.proveOnce(await porep(4096))).rejects.toBeInstanceOf(PayloadTooLargeError);
    await expect(
      c.prove({ proofKind: 4, vanillaProofs: [new Uint8Array(3)], randomness: new Uint8Array(31) }),
    ).rejects.toThrow(/randomness must be 32 bytes/);
    await expect(c.preloadSrs("porep-16g")).rejects.toBeInstanceOf(InvalidRequestError);
    await expect(c.getStatus({ timeoutMs: 0 })).rejects.toThrow(/timeoutMs/);
    await expect(c.prove(await porep(1024), { timeoutMs: -1 })).rejects.toThrow(/timeoutMs/);
    await expect(c.awaitProof("")).rejects.toBeInstanceOf(InvalidRequestError);
    const stats = daemon.stats();
    expect(stats.submissionsByRequestId).toEqual({});
    expect(stats.connections).toBe(0);
  });

  it("admits proofs in FIFO order under maxInFlight", async () => {
    const scheduler = createManualScheduler();
    const daemon = await sim({ proofTimeMs: 60_000, scheduler });
    const c = client(daemon.address, { maxInFlight: 1 });
    const submittedOrder: string[] = [];
    const request = await winningPostRequest({
      vanillaProofs: [new Uint8Array(64)],
      randomness: "00".repeat(32),
      minerId: 7,
    });
    const runs = ["first", "second", "third"].map((name) =>
      c.prove(
        { ...request, requestId: name },
        {
          onEvent: (e) => {
            if (e.type === "submitted") submittedOrder.push(name);
          },
        },
      ),
    );
    // Each proof runs until the test moves the daemon's clock: one at a time, the others wait.
    for (const index of [0, 1, 2]) {
      await daemon.whenReceived("AwaitProof", { count: index + 1 });
      expect(c.inFlight()).toEqual({ active: 1, pending: 2 - index });
      expect(submittedOrder).toEqual(["first", "second", "third"].slice(0, index + 1));
      expect(Object.keys(daemon.stats().submissionsByRequestId)).toHaveLength(index + 1);
      scheduler.advance(60_000);
    }
    await Promise.all(runs);
    expect(submittedOrder).toEqual(["first", "second", "third"]);
    expect(c.inFlight()).toEqual({ active: 0, pending: 0 });
  });

  it("reports a FAILED proof as ProofFailedError with the daemon's message", async () => {
    const daemon = await sim({ proofTimeMs: 0 });
    daemon.failNextProofs(1, "partition 3 synthesis failed: injected");
    const c = client(daemon.address);
    const error = await c.prove(await porep()).catch((e) => e);
    expect(error).toBeInstanceOf(ProofFailedError);
    expect(error.daemonMessage).toBe("partition 3 synthesis failed: injected");
  });

  it("de-duplicates GPUs in getStatus and parses getMetrics", async () => {
    const daemon = await sim({ proofTimeMs: 0 });
    const c = client(daemon.address);
    await c.prove(await porep());
    const raw = daemon.options.config.gpuWorkersPerDevice;
    const status = await c.getStatus();
    expect(status.gpus.map((g) => g.ordinal)).toEqual([0, 1]);
    expect(status.gpuWorkers).toBe(status.raw.gpus.length);
    expect(status.gpus.every((g) => g.workers === status.raw.gpus.length / 2)).toBe(true);
    expect(raw).toBeGreaterThan(0);
    expect(status.pinnedMemoryBytes).toBeUndefined();
    expect(status.totalProofsCompleted).toBe(1);
    const metrics = await c.getMetrics();
    expect(metrics.proofsCompletedTotal).toBe(1);
    expect(metrics.byKind.porep?.completed).toBe(1);
  });

  it("lists one GPU per ordinal when the daemon runs two workers per GPU", async () => {
    const base = await sim({ proofTimeMs: 0 });
    const config = { ...base.options.config, gpuWorkersPerDevice: 2 };
    const daemon = await sim({ proofTimeMs: 0, config });
    const status = await client(daemon.address).getStatus();
    expect(status.raw.gpus).toHaveLength(4);
    expect(status.gpus).toHaveLength(2);
    expect(status.gpus.map((g) => g.workers)).toEqual([2, 2]);
  });

  it("reads the daemon's HTTP /status", async () => {
    const daemon = await sim({ proofTimeMs: 0, statusListen: "127.0.0.1:0" });
    await client(daemon.address).prove(await porep());
    const status = await fetchStatusJson(daemon.statusUrl!, { timeoutMs: 2_000 });
    expect(status.uptimeSecs).toBeGreaterThanOrEqual(0);
    expect(status.memory?.totalBytes).toBeGreaterThan(0);
    expect(status.counters?.totalCompleted).toBe(1);
  });

  it("waits for a slow-starting daemon, and times out with DaemonUnavailableError", async () => {
    const slow = await sim({ proofTimeMs: 0, faults: { startDelayMs: 400 } });
    const c = client(slow.address, { reconnect: { initialDelayMs: 50, maxDelayMs: 100 } });
    await expect(c.getStatus()).rejects.toBeInstanceOf(DaemonUnavailableError);
    const status = await c.waitForReady({ timeoutMs: 10_000 });
    expect(status.uptimeSeconds).toBeGreaterThanOrEqual(0);

    const never = await sim({ proofTimeMs: 0, faults: { startDelayMs: 60_000 } });
    const c2 = client(never.address, { reconnect: { initialDelayMs: 50, maxDelayMs: 100 } });
    const error = await c2.waitForReady({ timeoutMs: 300 }).catch((e) => e);
    expect(error).toBeInstanceOf(DaemonUnavailableError);
    expect(error.message).toMatch(/did not become ready within 300 ms/);
  });

  it("names a missing daemon: refused TCP port, missing unix socket, bad address at creation", async () => {
    const daemon = await sim({ proofTimeMs: 0 });
    const address = daemon.address;
    await daemon.stop();
    const tcp = await client(address)
      .getStatus()
      .catch((e) => e);
    expect(tcp).toBeInstanceOf(DaemonUnavailableError);
    expect(tcp.message).toMatch(/refused/);
    const unix = await client(`unix://${join(await tempDir(), "none.sock")}`)
      .getStatus()
      .catch((e) => e);
    expect(unix).toBeInstanceOf(DaemonUnavailableError);
    expect(unix.message).toMatch(/does not exist/);
    expect(() => createCuzkClient({ address: "https://127.0.0.1:9820" })).toThrow(InvalidAddressError);
  });

  it("answers NOT_FOUND for a job lost in a restart as JobNotFoundError", async () => {
    const daemon = await sim({ proofTimeMs: 600_000 });
    const c = client(daemon.address);
    const submitted = await c.submitProof({ ...(await porep()), requestId: "lost-1" });
    daemon.crash("killed");
    await daemon.restart();
    // A caller that comes back later (a fresh client: the old connection died with the daemon).
    const later = client(daemon.address);
    await expect(later.awaitProof(submitted.jobId)).rejects.toBeInstanceOf(JobNotFoundError);
  });

  it("close() fails open calls with AbortedError and releases the HTTP/2 session", async () => {
    const daemon = await sim({ proofTimeMs: 600_000 });
    const c = createCuzkClient({ address: daemon.address });
    const submitted = await c.submitProof({ ...(await porep()), requestId: "close-1" });
    const pending = c.awaitProof(submitted.jobId).catch((e) => e);
    await daemon.whenReceived("AwaitProof", { jobId: submitted.jobId });
    expect(daemon.stats().openConnections).toBe(1);
    await c.close();
    expect(await pending).toBeInstanceOf(AbortedError);
    await expect(c.getStatus()).rejects.toBeInstanceOf(AbortedError);
    await daemon.whenConnectionsClosed();
    expect(daemon.stats().openConnections).toBe(0);
  });

  it("preloads and evicts SRS (the daemon's eviction is a no-op)", async () => {
    const daemon = await sim({ proofTimeMs: 0 });
    const c = client(daemon.address);
    const preloaded = await c.preloadSrs("winning-32g");
    expect(preloaded.alreadyLoaded).toBe(false);
    expect((await c.getStatus()).loadedSrs.map((s) => s.circuitId)).toContain("winning-32g");
    expect((await c.evictSrs("winning-32g")).wasLoaded).toBe(false);
    expect((await c.cancelProof("nothing")).wasRunning).toBe(false);
  });
});
