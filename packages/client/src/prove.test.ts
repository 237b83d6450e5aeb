import { create } from "@bufbuild/protobuf";
import { Code, ConnectError } from "@connectrpc/connect";
import { createConsoleLogger } from "@cuzkit/core";
import {
  type AwaitProofResponse,
  AwaitProofResponseSchema,
  type SubmitProofRequest,
  SubmitProofRequestSchema,
  type SubmitProofResponse,
  SubmitProofResponseSchema,
} from "@cuzkit/proto";
import { describe, expect, it } from "vitest";
import {
  AbortedError,
  ConnectionLostError,
  DaemonFrozenError,
  DaemonRestartedError,
  DaemonUnavailableError,
  DeadlineExceededError,
  InvalidRequestError,
  JobNotFoundError,
  ProofFailedError,
} from "./errors.js";
import type { ProveEvent } from "./events.js";
import type { CuzkClientOptions } from "./options.js";
import {
  type InternalCallOptions,
  maxRecoveryProbes,
  type ProveDeps,
  type ProveOptions,
  proveWithResume,
  type SubmitCallOptions,
} from "./prove.js";
import { type StatusSample, statusSample } from "./recovery.js";
import { type DaemonStatus, normalizeStatus } from "./status.js";
import { manualTimeOptions } from "./test-support.js";
import { create as createStatus } from "./testing/status-fixture.js";

// The resume/resubmit decisions, against a scripted fake daemon and a manual clock: each
// branch runs in microseconds and deterministically. The same branches run over real
// sockets against @cuzkit/sim in client.integration.test.ts and client.faults.test.ts.

/** A submit that broke before its body was completely written (the daemon cannot have it). */
class CutUpload {
  constructor(readonly error: Error) {}
}
/** A probe the daemon never answers: the manual clock moves by the probe's deadline. */
class Silent {}

type Step<T> = T | Error | CutUpload | Silent;

interface Script {
  status?: Step<number>[];
  submit?: Step<SubmitProofResponse>[];
  await?: Step<AwaitProofResponse>[];
}

const completed = (proofBytes = 1920) =>
  create(AwaitProofResponseSchema, {
    status: 1,
    proof: new Uint8Array(proofBytes),
    totalMs: 900n,
    gpuComputeMs: 300n,
  });
const lost = () => new ConnectionLostError("the daemon closed the call mid-flight (AwaitProof)");
const refused = () => new DaemonUnavailableError("the daemon refused the connection");
const notFound = () => new JobNotFoundError("job not found");
const pingTimeout = () => new DaemonFrozenError("the daemon stopped answering HTTP/2 PINGs (AwaitProof)");
const cut = (error: Error = lost()) => new CutUpload(error);
const silent = () => new Silent();

function setup(script: Script, clientOptions: Partial<CuzkClientOptions> = {}) {
  const { clock, options } = manualTimeOptions(0.137, clientOptions);
  const calls = { status: 0, submitted: [] as string[], awaited: [] as string[], timeouts: [] as number[] };
  let last: StatusSample | undefined;
  const take = <T>(queue: Step<T>[] | undefined, fallback: () => T, call: InternalCallOptions): T => {
    const next = queue?.shift();
    if (next === undefined) return fallback();
    if (next instanceof CutUpload) throw next.error;
    if (next instanceof Silent) {
      clock.advance(call.timeoutMs);
      throw new DeadlineExceededError(`deadline exceeded after ${call.timeoutMs} ms (GetStatus)`);
    }
    if (next instanceof Error) throw next;
    return next;
  };
  const deps: ProveDeps = {
    options,
    address: "127.0.0.1:9820",
    async status(call: InternalCallOptions): Promise<DaemonStatus> {
      calls.status += 1;
      const sentAt = clock.now();
      const uptime = take(script.status, () => 100, call);
      const status = normalizeStatus(createStatus(uptime));
      last = statusSample(status, sentAt, clock.now());
      return status;
    },
    async submit(request: SubmitProofRequest, call: SubmitCallOptions) {
      calls.submitted.push(request.requestId);
      calls.timeouts.push(call.timeoutMs);
      const next = script.submit?.[0];
      if (!(next instanceof CutUpload)) {
        call.upload.sentBytes = 1;
        call.upload.complete = true;
      }
      return take(script.submit, () => create(SubmitProofResponseSchema, { jobId: request.requestId }), call);
    },
    async awaitJob(jobId: string, call: InternalCallOptions) {
      calls.awaited.push(jobId);
      calls.timeouts.push(call.timeoutMs);
      return take(script.await, () => completed(), call);
    },
    lastStatus: () => last,
  };
  const events: ProveEvent[] = [];
  const run = (request: SubmitProofRequest, o: ProveOptions = {}) =>
    proveWithResume(deps, request, { onEvent: (e) => events.push(e), ...o });
  return { clock, calls, events, run, types: () => events.map((e) => e.type) };
}

const porep = create(SubmitProofRequestSchema, {
  proofKind: 1,
  vanillaProof: new Uint8Array(1000),
  minerId: 1000n,
  sectorNumber: 7n,
});
const winning = create(SubmitProofRequestSchema, {
  proofKind: 4,
  vanillaProofs: [new Uint8Array(100)],
  randomness: new Uint8Array(32),
  minerId: 1000n,
  requestId: "winpost-mine",
});

describe("proveWithResume", () => {
  it("submits once under a fresh id and returns the proof with timings", async () => {
    const t = setup({});
    const result = await t.run(porep);
    expect(t.types()).toEqual(["attempt", "submitted", "completed"]);
    expect(t.calls.submitted).toHaveLength(1);
    expect(t.calls.submitted[0]).toMatch(/^porep-1000-7-a1-[0-9a-z]{6}$/);
    expect(t.calls.awaited).toEqual(t.calls.submitted);
    expect(t.calls.status).toBe(1); // the uptime baseline
    expect(result).toMatchObject({
      kind: "porep",
      attempts: 1,
      resubmits: 0,
      resumes: 0,
      jobId: t.calls.submitted[0],
    });
    expect(result.proof).toHaveLength(1920);
    expect(result.timings).toEqual({ queueWaitMs: 0, synthesisMs: 0, gpuComputeMs: 300, totalMs: 900 });
  });

  it("uses the caller's request id as the base of every attempt's id", async () => {
    const t = setup({ status: [1000, 3], await: [lost()] });
    await t.run(winning);
    expect(t.calls.submitted).toHaveLength(2);
    expect(t.calls.submitted[0]).toMatch(/^winpost-mine-a1-/);
    expect(t.calls.submitted[1]).toMatch(/^winpost-mine-a2-/);
    expect(new Set(t.calls.submitted).size).toBe(2);
  });

  it("resumes the same job after a broken connection when the daemon did not restart (no duplicate work)", async () => {
    const lines: string[] = [];
    const logger = createConsoleLogger("debug", (line) => lines.push(line));
    const t = setup({ status: [100, 160], await: [lost()] }, { logger });
    const result = await t.run(porep);
    expect(
      lines.some(
        (l) => l.startsWith("warn cuzk prove: connection lost") && l.includes("code=CONNECTION_LOST"),
      ),
    ).toBe(true);
    expect(lines.some((l) => l.startsWith("info cuzk prove: resumed"))).toBe(true);
    expect(t.types()).toEqual(["attempt", "submitted", "connection-lost", "resumed", "completed"]);
    expect(t.calls.submitted).toHaveLength(1);
    expect(t.calls.awaited).toEqual([t.calls.submitted[0], t.calls.submitted[0]]);
    expect(result).toMatchObject({ resumes: 1, resubmits: 0, attempts: 1 });
  });

  it("resubmits under a new id when the uptime went back and resubmitting is allowed", async () => {
    const t = setup({ status: [5000, 2], await: [lost()] });
    const result = await t.run(winning);
    expect(t.types()).toEqual([
      "attempt",
      "submitted",
      "connection-lost",
      "daemon-restarted",
      "attempt",
      "resubmitted",
      "submitted",
      "completed",
    ]);
    const restarted = t.events.find((e) => e.type === "daemon-restarted");
    expect(restarted).toMatchObject({ evidence: "uptime", uptimeBeforeSeconds: 5000, uptimeAfterSeconds: 2 });
    expect(result).toMatchObject({ resubmits: 1, attempts: 2, jobId: t.calls.submitted[1] });
  });

  it("fails with DaemonRestartedError and the OOM hint when resubmitting is off (PoRep default)", async () => {
    const t = setup({ status: [5000, 2], await: [lost()] });
    const error = await t.run(porep).catch((e) => e);
    expect(error).toBeInstanceOf(DaemonRestartedError);
    expect(error.message).toMatch(/uptime went back from 5000 s to 2 s/);
    expect(error.hint).toMatch(/OOM-killed.*dmesg.*@cuzkit\/tuner.*resubmit: true/);
    expect(error.jobId).toBe(t.calls.submitted[0]);
    expect(t.calls.submitted).toHaveLength(1);
    expect(t.types().at(-1)).toBe("failed");
  });

  it("honours a per-call resubmit for PoRep", async () => {
    const t = setup({ status: [5000, 2], await: [lost()] });
    const result = await t.run(porep, { resubmit: true });
    expect(result.resubmits).toBe(1);
  });

  it("does not take a refusal as proof of death: it keeps probing for the window, then DaemonUnavailableError", async () => {
    const refusals = Array.from({ length: 60 }, () => refused());
    const t = setup(
      { status: [100, ...refusals], await: [lost()] },
      { reconnect: { giveUpAfterMs: 10_000 } },
    );
    const error = await t.run(porep).catch((e) => e);
    expect(error).toBeInstanceOf(DaemonUnavailableError);
    expect(error.message).toMatch(/did not answer for 10000 ms after the connection broke/);
    expect(error.message).toMatch(/whether the job still runs is unknown/);
    expect(error.hint).toMatch(/may have died .*SSH tunnel.*dmesg.*supervisor/);
    expect(error.hint).toContain(`awaitProof("${t.calls.submitted[0]}")`);
    expect(error.jobId).toBe(t.calls.submitted[0]);
    expect(error.retryable).toBe(false);
    expect(t.clock.sleeps.reduce((a, b) => a + b, 0)).toBe(10_000);
    expect(t.calls.submitted).toHaveLength(1);
  });

  it("announces the wait for a restart at the first refusal, with when the daemon went and how long it waits", async () => {
    const refusals = Array.from({ length: 60 }, () => refused());
    const t = setup(
      { status: [100, ...refusals], await: [lost()] },
      { reconnect: { giveUpAfterMs: 40_000 } },
    );
    const error = await t.run(porep).catch((e) => e);
    expect(error).toBeInstanceOf(DaemonUnavailableError);
    const waits = t.events.filter((e) => e.type === "waiting-for-restart");
    expect(waits).toHaveLength(1); // once, not at every probe
    const lostAt = t.events.find((e) => e.type === "connection-lost")!;
    expect(waits[0]).toMatchObject({
      unreachableSinceMs: lostAt.elapsedMs,
      waitMs: 40_000,
      error: { code: "DAEMON_UNAVAILABLE" },
    });
    // Announced as the wait starts: right after the break, before any backoff sleep.
    const types = t.types();
    expect(types.indexOf("waiting-for-restart")).toBe(types.indexOf("connection-lost") + 1);
    expect(waits[0]!.elapsedMs).toBe(lostAt.elapsedMs);
    expect(t.clock.sleeps.reduce((a, b) => a + b, 0)).toBe(40_000);
  });

  it("announces no wait when the daemon answers at once after a break", async () => {
    const t = setup({ status: [3, 8], await: [lost()] });
    await t.run(porep);
    expect(t.types()).not.toContain("waiting-for-restart");
  });

  it("resumes the same job when a refusing port comes back with the uptime continued (tunnel blip)", async () => {
    const t = setup({ status: [3, refused(), refused(), refused(), 8], await: [lost()] });
    const result = await t.run(winning);
    expect(t.calls.submitted).toHaveLength(1);
    expect(t.calls.awaited).toEqual([t.calls.submitted[0], t.calls.submitted[0]]);
    expect(result).toMatchObject({ resumes: 1, resubmits: 0, attempts: 1 });
    expect(t.types()).not.toContain("daemon-restarted");
  });

  it("reports a frozen daemon (PING timeout, then a silent probe) as DaemonFrozenError after one probe", async () => {
    const t = setup({ status: [100, silent()], await: [pingTimeout()] });
    const started = t.clock.now();
    const error = await t.run(porep).catch((e) => e);
    expect(error).toBeInstanceOf(DaemonFrozenError);
    expect(error.code).toBe("DAEMON_FROZEN");
    expect(error.message).toMatch(/stopped answering .*the job may still be running/);
    expect(error.hint).not.toMatch(/warmup/);
    expect(error.hint).toContain(`awaitProof("${t.calls.submitted[0]}")`);
    expect(error.retryable).toBe(false);
    expect(error.jobId).toBe(t.calls.submitted[0]);
    // One 5 s probe after the PING timeout, no backoff.
    expect(t.clock.now() - started).toBe(5_000);
    expect(t.calls.status).toBe(2);
  });

  it("calls a daemon frozen after a reset once it stayed silent for frozenAfterMs", async () => {
    const t = setup({ status: [100, silent(), silent(), silent(), silent()], await: [lost()] });
    const started = t.clock.now();
    const error = await t.run(porep).catch((e) => e);
    expect(error).toBeInstanceOf(DaemonFrozenError);
    expect(t.clock.now() - started).toBeGreaterThanOrEqual(15_000);
    expect(t.clock.now() - started).toBeLessThan(25_000);
  });

  it("waits with backoff for a refusing daemon to come back, then resubmits when its uptime restarted", async () => {
    const t = setup({ status: [100, refused(), refused(), refused(), 1], await: [lost()] });
    const result = await t.run(winning);
    expect(t.clock.sleeps).toEqual([250, 500, 1000]);
    expect(
      t.events.filter((e) => e.type === "reconnecting").map((e) => (e as { probe: number }).probe),
    ).toEqual([1, 2, 3]);
    expect(t.events.find((e) => e.type === "daemon-restarted")).toMatchObject({ evidence: "uptime" });
    expect(result.resubmits).toBe(1);
  });

  it("gives up with DaemonFrozenError when the daemon stays silent for the whole window", async () => {
    const quiet = Array.from({ length: 50 }, () => new DeadlineExceededError("probe timed out"));
    const t = setup({ status: [100, ...quiet], await: [lost()] }, { reconnect: { giveUpAfterMs: 4_000 } });
    const error = await t.run(winning).catch((e) => e);
    expect(error).toBeInstanceOf(DaemonFrozenError);
    expect(error.hint).toMatch(/accepts connections but nothing answers/);
    expect(t.clock.sleeps).toEqual([250, 500, 1000, 2000, 250]);
  });

  it("caps the backoff delay", async () => {
    const silent = Array.from({ length: 12 }, () => new DeadlineExceededError("probe timed out"));
    const t = setup(
      { status: [100, ...silent], await: [lost()] },
      { reconnect: { maxDelayMs: 1_500, giveUpAfterMs: 60_000 } },
    );
    await t.run(winning).catch(() => {});
    expect(Math.max(...t.clock.sleeps)).toBe(1_500);
  });

  it("treats NOT_FOUND after a resume as a lost job (restart without uptime evidence)", async () => {
    const t = setup({ status: [100, 150], await: [lost(), notFound()] });
    const result = await t.run(winning);
    expect(t.events.find((e) => e.type === "daemon-restarted")).toMatchObject({ evidence: "not-found" });
    expect(result.resubmits).toBe(1);
    const t2 = setup({ status: [100, 150], await: [lost(), notFound()] });
    await expect(t2.run(porep)).rejects.toBeInstanceOf(DaemonRestartedError);
  });

  it("re-sends a submit whose body was sent but which the daemon never took (NOT_FOUND twice), even without resubmit", async () => {
    const t = setup({ status: [100, 101], submit: [lost()], await: [notFound(), notFound()] });
    const result = await t.run(porep);
    const resent = t.events.find((e) => e.type === "resubmitted");
    expect(resent).toMatchObject({ reason: "not-accepted" });
    expect(t.calls.submitted).toHaveLength(2);
    expect(t.clock.sleeps).toContain(1_000); // the second look before concluding
    expect(result).toMatchObject({ resubmits: 0, attempts: 2 });
    expect(new Set(t.calls.submitted).size).toBe(2);
  });

  it("re-sends at once, under a new id, a submit cut before its body was written", async () => {
    const t = setup({ status: [100, 101], submit: [cut()] });
    const result = await t.run(porep);
    expect(t.calls.submitted).toHaveLength(2);
    expect(t.calls.awaited).toEqual([t.calls.submitted[1]]);
    expect(result).toMatchObject({ resubmits: 0, attempts: 2 });
  });

  it("a restart seen after a cut submit is DAEMON_RESTARTED for PoRep (policy 0), not a silent re-send", async () => {
    const t = setup({ status: [5000, 2], submit: [cut()] });
    const error = await t.run(porep).catch((e) => e);
    expect(error).toBeInstanceOf(DaemonRestartedError);
    expect(error.rpc).toBe("SubmitProof");
    expect(error.message).toMatch(/uptime went back from 5000 s to 2 s/);
    expect(t.events.find((e) => e.type === "daemon-restarted")).toMatchObject({ evidence: "uptime" });
    expect(t.types()).not.toContain("resubmitted");
    expect(t.calls.submitted).toHaveLength(1);
  });

  it("a restart seen after a cut submit counts as a resubmit where the kind allows it (WinningPoSt: 2)", async () => {
    const t = setup({ status: [5000, 2], submit: [cut()] });
    const result = await t.run(winning);
    expect(result).toMatchObject({ attempts: 2, resubmits: 1 });
    expect(t.events.find((e) => e.type === "resubmitted")).toMatchObject({ reason: "daemon-restarted" });
  });

  it("rounds a fractional timeoutMs up to whole ms: the calls get integer deadlines", async () => {
    const t = setup({});
    await t.run(porep, { timeoutMs: 60_000.5 });
    expect(t.calls.timeouts.every(Number.isInteger)).toBe(true);
    expect(Math.max(...t.calls.timeouts)).toBe(60_001);
  });

  it("caps the probes after a break: zero delays on a clock that does not move end as DaemonUnavailableError", async () => {
    // Mutation check: without retry()'s maxAttempts cap the fake daemon's refusals run out and
    // its fallback answer (same uptime) would resume the job instead.
    const refusals = Array.from({ length: maxRecoveryProbes + 50 }, () => refused());
    const t = setup({ status: [100, ...refusals], await: [lost()] }, { reconnect: { initialDelayMs: 0 } });
    const error = await t.run(winning).catch((e) => e);
    expect(error).toBeInstanceOf(DaemonUnavailableError);
    expect(t.calls.status).toBe(1 + maxRecoveryProbes);
    expect(t.calls.submitted).toHaveLength(1);
  });

  it("re-sends a submit cut before its body was written at most 3 times, then fails saying nothing runs", async () => {
    // Mutation check: without the resend cap the fifth submit would go out and succeed.
    const t = setup({ submit: [cut(), cut(), cut(), cut()] });
    const error = await t.run(winning).catch((e) => e);
    expect(error).toBeInstanceOf(ConnectionLostError);
    expect(error.message).toMatch(/not accepted|never reached|not completely/);
    expect(t.calls.submitted).toHaveLength(4);
    expect(new Set(t.calls.submitted).size).toBe(4);
    expect(t.calls.awaited).toEqual([]);
  });

  it("fails a submit deadline with an unfinished upload as not accepted (slow link), without re-sending", async () => {
    const t = setup({ status: [100, 101], submit: [cut(new DeadlineExceededError("deadline exceeded"))] });
    const error = await t.run(porep).catch((e) => e);
    expect(error).toBeInstanceOf(DeadlineExceededError);
    expect(error.message).toMatch(/not accepted; nothing is running/);
    expect(error.retryable).toBe(true);
    expect(error.hint).toMatch(/submitPerMiBMs/);
    expect(t.calls.submitted).toHaveLength(1);
  });

  it("resumes a submit whose connection broke after the daemon took it", async () => {
    const t = setup({ status: [100, 101], submit: [lost()] });
    const result = await t.run(porep);
    expect(t.calls.submitted).toHaveLength(1);
    expect(result.resumes).toBe(1);
  });

  it("treats a refused AwaitProof (the daemon died between calls) as a break, and a restart seen on return as DaemonRestartedError", async () => {
    const t = setup({ status: [100, refused(), 0], await: [refused()] });
    const error = await t.run(porep).catch((e) => e);
    expect(error).toBeInstanceOf(DaemonRestartedError);
    expect(error.code).toBe("DAEMON_RESTARTED");
    expect(error.hint).toMatch(/may have been OOM-killed/);
    expect(t.types()).toContain("connection-lost");
  });

  it("stops resubmitting when the budget is spent", async () => {
    const t = setup(
      { status: [5000, 4000, 3000, 2000], await: [lost(), lost(), lost()] },
      { resubmit: { winning: 2 } },
    );
    const error = await t.run(winning).catch((e) => e);
    expect(error).toBeInstanceOf(DaemonRestartedError);
    expect(error.message).toMatch(/after 2 resubmit/);
    expect(t.calls.submitted).toHaveLength(3);
  });

  it("reports the proof deadline as DeadlineExceededError naming the job to await later", async () => {
    const t = setup({ await: [new DeadlineExceededError("deadline exceeded (AwaitProof)")] });
    const error = await t.run(porep, { timeoutMs: 60_000 }).catch((e) => e);
    expect(error).toBeInstanceOf(DeadlineExceededError);
    expect(error.jobId).toBe(t.calls.submitted[0]);
    expect(error.hint).toContain(`awaitProof("${t.calls.submitted[0]}")`);
    expect(t.calls.timeouts.at(-1)).toBe(60_000);
  });

  it("uses the warmup deadline for a first proof", async () => {
    const t = setup({});
    await t.run(porep, { warmup: true });
    expect(t.calls.timeouts.at(-1)).toBe(3_600_000);
    const t2 = setup({});
    await t2.run(porep);
    expect(t2.calls.timeouts.at(-1)).toBe(1_800_000);
  });

  it("scales the submit deadline with the payload size", async () => {
    const t = setup({});
    await t.run(
      create(SubmitProofRequestSchema, { ...porep, vanillaProof: new Uint8Array(64 * 1024 * 1024) }),
    );
    expect(t.calls.timeouts[0]).toBeGreaterThanOrEqual(10_000 + 8_000);
    expect(t.calls.timeouts[0]).toBeLessThan(10_000 + 8_100);
  });

  it("turns a caller abort during the reconnect wait into AbortedError", async () => {
    const controller = new AbortController();
    const t = setup({ status: [100, refused(), refused()], await: [lost()] });
    const error = await t
      .run(winning, {
        signal: controller.signal,
        onEvent: (e) => {
          if (e.type === "reconnecting") controller.abort();
        },
      })
      .catch((e) => e);
    expect(error).toBeInstanceOf(AbortedError);
  });

  it("ends on a caller's AbortSignal.timeout() during the await with DEADLINE_EXCEEDED naming the running job, not retryable", async () => {
    const controller = new AbortController();
    // What connect throws for a call whose signal fired.
    const t = setup({ await: [new ConnectError("operation was aborted", Code.Canceled)] });
    const error = await t
      .run(porep, {
        signal: controller.signal,
        onEvent: (e) => {
          if (e.type === "submitted") controller.abort(new DOMException("signal timed out", "TimeoutError"));
        },
      })
      .catch((e) => e);
    expect(error).toBeInstanceOf(DeadlineExceededError);
    expect(error.code).toBe("DEADLINE_EXCEEDED");
    expect(error.jobId).toBe(t.calls.submitted[0]);
    expect(error.retryable).toBe(false);
    expect(error.message).toMatch(/may still be running/);
    expect(error.hint).toContain(`awaitProof("${t.calls.submitted[0]}")`);
    expect(t.types()).not.toContain("connection-lost");
  });

  it("throws ProofFailedError with the daemon's message for a FAILED proof, without retrying", async () => {
    const t = setup({
      await: [create(AwaitProofResponseSchema, { status: 2, errorMessage: "C1 parse failed: bad json" })],
    });
    const error = await t.run(porep).catch((e) => e);
    expect(error).toBeInstanceOf(ProofFailedError);
    expect(error.daemonMessage).toBe("C1 parse failed: bad json");
    expect(error.message).toContain("C1 parse failed");
    expect(t.calls.submitted).toHaveLength(1);
    expect(t.events.at(-1)).toMatchObject({ type: "failed" });
  });

  it("validates before sending anything", async () => {
    const t = setup({});
    await expect(t.run(create(SubmitProofRequestSchema, { proofKind: 1 }))).rejects.toBeInstanceOf(
      InvalidRequestError,
    );
    expect(t.calls).toMatchObject({ status: 0, submitted: [], awaited: [] });
  });

  it("reports a silent daemon at the baseline status as DaemonFrozenError, nothing submitted", async () => {
    const t = setup({ status: [silent()] });
    const error = await t.run(porep).catch((e) => e);
    expect(error).toBeInstanceOf(DaemonFrozenError);
    expect(error.message).toMatch(/nothing was submitted/);
    expect(error.retryable).toBe(true);
    expect(t.calls.submitted).toEqual([]);
  });

  it("fails fast with DaemonUnavailableError when no daemon answers the baseline status", async () => {
    const t = setup({ status: [refused()] });
    await expect(t.run(porep)).rejects.toBeInstanceOf(DaemonUnavailableError);
    expect(t.calls.submitted).toEqual([]);
  });
});

describe("the request id a proof gets when none is given (Curio's shape, as the README says)", () => {
  const digest = new Uint8Array(32);
  const proofs = [new Uint8Array(10)];
  it.each([
    [
      "porep",
      { proofKind: 1, vanillaProof: new Uint8Array(10), minerId: 1000n, sectorNumber: 7n },
      "porep-1000-7",
    ],
    [
      "snap",
      {
        proofKind: 2,
        vanillaProofs: proofs,
        minerId: 1000n,
        sectorNumber: 9n,
        commROld: digest,
        commRNew: digest,
        commDNew: digest,
      },
      "snap-1000-9",
    ],
    [
      "wpost",
      { proofKind: 3, vanillaProofs: proofs, randomness: digest, minerId: 1000n, partitionIndex: 2 },
      "wdpost-1000-2",
    ],
    ["winning", { proofKind: 4, vanillaProofs: proofs, randomness: digest, minerId: 1000n }, "winpost-1000"],
  ] as const)("%s: %s-a1-<random>", async (_kind, fields, base) => {
    const t = setup({});
    await t.run(create(SubmitProofRequestSchema, fields));
    expect(t.calls.submitted).toHaveLength(1);
    expect(t.calls.submitted[0]).toMatch(new RegExp(`^${base}-a1-[0-9a-z]{6}$`));
  });

  it("treats a blank request id as none", async () => {
    const t = setup({});
    await t.run(create(SubmitProofRequestSchema, { ...porep, requestId: "  " }));
    expect(t.calls.submitted[0]).toMatch(/^porep-1000-7-a1-[0-9a-z]{6}$/);
  });
});
