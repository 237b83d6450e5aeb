import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { hardwareFrom, InvalidInputError } from "@cuzkit/core";
import { recommend } from "@cuzkit/tuner";
import { describe, expect, it, onTestFinished } from "vitest";
import { slotRate } from "../../../test/support/slot-rate.js";
import type { BenchmarkEvent, ProgressSnapshot } from "./progress.js";
import { runBenchmark } from "./run-benchmark.js";
import { benchAgainst, fastReconnect, startTestSim } from "./test-support/sim-bench.js";
import { verdictExitCode } from "./verdict.js";

// Short reconnect budget so a dead daemon is given up on in about a second.
const fastClient = fastReconnect(1_000);

describe("runBenchmark against the simulator", () => {
  it("runs warmup plus a timed batch and reports throughput over the timed window only", async () => {
    // The model's first proof is cold (parameter load, no PCE): much slower than the rest.
    const sim = await startTestSim({ timeScale: 0.002 });
    const events: BenchmarkEvent[] = [];
    const report = await benchAgainst(sim, {
      count: 4,
      concurrency: 2,
      onProgress: (event) => events.push(event),
    });
    expect(report.schema).toBe("cuzkit.bench.report/v2");
    expect(report.completed).toBe(4);
    expect(report.failed).toBe(0);
    expect(report.warmup).toMatchObject({ proofs: 1, completed: 1 });
    expect(report.warmup.durationMs).toBeGreaterThan(0);
    // Slots x completions per slot-hour, recomputable from the records.
    expect(report.proofsPerHour).toBeCloseTo(slotRate(report.records), 6);
    expect(report.rateBasis).toMatchObject({ proofs: 4, slots: 2 });
    // The warmup was slower than the whole timed batch's average: including it would lower the rate.
    const totalMs = Date.parse(report.finishedAt) - Date.parse(report.startedAt);
    expect(report.timedWindowMs).toBeLessThan(totalMs - report.warmup.durationMs + 1);
    expect(report.wallTime.count).toBe(4);
    expect(report.daemonTimings.synthesisSum.p50Ms).toBeGreaterThan(0);
    expect(report.verdict.status).toBe("MET");
    expect(verdictExitCode(report.verdict)).toBe(0);
    expect(sim.stats().proofsCompleted).toBe(5);
    expect(Object.values(sim.stats().submissionsByRequestId).every((n) => n === 1)).toBe(true);
    expect(events.filter((e) => e.type === "phase").map((e) => (e as { phase: string }).phase)).toEqual([
      "waiting-for-daemon",
      "warmup",
      "timed",
      "done",
    ]);
    expect(JSON.parse(JSON.stringify(report))).toEqual(report);
  });

  it("gives a BELOW verdict and exit code 2 under the threshold", async () => {
    const sim = await startTestSim({ proofTimeMs: 20 });
    const report = await benchAgainst(sim, {
      count: 2,
      warmup: "none",
      minProofsPerHour: 10_000_000,
    });
    expect(report.verdict.status).toBe("BELOW");
    expect(verdictExitCode(report.verdict)).toBe(2);
  });

  it("is UNSTABLE (exit 3) when timed proofs fail, stopping after 3 in a row, naming the daemon's message", async () => {
    const sim = await startTestSim({
      proofTimeMs: 5,
      faults: { failNextProofs: { count: 100, message: "partition 3 synthesis failed: boom" } },
    });
    const report = await benchAgainst(sim, {
      count: 6,
      concurrency: 1,
      warmup: "none",
    });
    expect(report.completed).toBe(0);
    expect(report.failed).toBe(3);
    expect(report.notStarted).toBe(3);
    expect(report.records.map((r) => r.failureClass)).toEqual(["failed", "failed", "failed"]);
    expect(report.failures[0]?.message).toMatch(/partition 3 synthesis failed: boom/);
    expect(report.verdict.status).toBe("UNSTABLE");
    expect(report.verdict.incidents[0]).toMatch(/proof 1 failed: PROOF_FAILED/);
    expect(verdictExitCode(report.verdict)).toBe(3);
  });

  it("classifies an OOM kill mid-batch and stops with a verdict instead of hanging", async () => {
    const sim = await startTestSim({ proofTimeMs: 200, faults: { crashAfterProofs: 2 } });
    const report = await benchAgainst(sim, {
      count: 6,
      concurrency: 2,
      warmup: "none",
      client: fastClient,
    });
    expect(report.completed).toBe(2);
    expect(report.failed).toBe(4);
    expect(report.failures.length).toBeGreaterThan(0);
    expect(report.failures[0]?.hint).toMatch(/OOM/i);
    expect(report.verdict.status).toBe("UNSTABLE");
  });

  it("detects a frozen daemon with its own watchdog and stops UNSTABLE", async () => {
    const sim = await startTestSim({ proofTimeMs: 50, faults: { stallAfterProofs: 1 } });
    const report = await benchAgainst(sim, {
      count: 4,
      concurrency: 1,
      warmup: "none",
      // Short, with room for a loaded machine: a probe of a healthy daemon can wait past 100 ms
      // for the event loop there.
      watchdog: { probeIntervalMs: 50, probeTimeoutMs: 300, unresponsiveAfterMs: 1_000 },
    });
    expect(report.completed).toBe(1);
    expect(report.failures.map((f) => f.code)).toContain("DAEMON_FROZEN");
    expect(report.verdict.status).toBe("UNSTABLE");
    expect(report.verdict.reason).toMatch(/the daemon froze: no answer for/);
  });

  it("stops the batch early once the sequential test is sure, stating its confidence and samples", async () => {
    const sim = await startTestSim({ proofTimeMs: 30 });
    const report = await benchAgainst(sim, {
      count: 12,
      concurrency: 2,
      warmup: "none",
      // Far below what the simulator does (~240000/h at 30 ms, 2 in flight).
      minProofsPerHour: 1_000,
      earlyVerdict: true,
    });
    expect(report.verdict).toMatchObject({
      status: "MET",
      early: { test: "confidence-bound", confidence: 0.99, samples: 5, slots: 2 },
    });
    expect(report.verdict.reason).toMatch(
      /^early verdict after 5 proofs: [\d.]+ proofs\/hour, at or above 1000 with 99% confidence/,
    );
    expect(report.completed).toBe(5);
    // The verdict's rate is the report's, over the same proofs.
    expect(report.verdict.early?.proofsPerHour).toBe(report.proofsPerHour);
    expect(report.rateBasis.proofs).toBe(5);
    expect(report.completed + report.abandoned + report.notStarted).toBe(12);
    expect(report.failed).toBe(0);
  });

  it("emits heartbeats with the phase and its elapsed time, and keeps the status file current", async () => {
    const dir = await mkdtemp(join(tmpdir(), "cuzkit-status-"));
    onTestFinished(() => rm(dir, { recursive: true, force: true }));
    const sim = await startTestSim({ proofTimeMs: 150 });
    const beats: BenchmarkEvent[] = [];
    const statusFile = join(dir, "status.json");
    const report = await benchAgainst(sim, {
      count: 2,
      warmup: "none",
      heartbeatMs: 40,
      statusFile,
      onProgress: (event) => {
        if (event.type === "heartbeat") beats.push(event);
      },
    });
    expect(beats.length).toBeGreaterThan(0);
    expect(beats.some((b) => b.type === "heartbeat" && b.phase === "timed" && b.elapsedMs > 0)).toBe(true);
    const status = JSON.parse(await readFile(statusFile, "utf8"));
    expect(status).toMatchObject({
      schema: "cuzkit.bench.status/v1",
      phase: "done",
      results: { total: 2, completed: 2, failed: 0 },
      verdict: { status: report.verdict.status },
    });
  });

  it("is UNSTABLE when the daemon restarts under it mid-batch (restarted by someone else), though every proof completes", async () => {
    const daemon = await startTestSim({ proofTimeMs: 150 });
    let restarted = false;
    const report = await benchAgainst(daemon, {
      count: 3,
      warmup: "none",
      client: fastClient,
      onProgress: (event) => {
        // Restart once the daemon has the second proof: it loses it, the client resubmits.
        if (restarted || event.type !== "proof-started" || event.index !== 2) return;
        restarted = true;
        void (async () => {
          await daemon.whenReceived("SubmitProof", { count: 2 });
          const second = Object.keys(daemon.stats().submissionsByRequestId)[1];
          // Mid-await, not mid-submit: a broken submit is resent as not accepted, not a restart.
          await daemon.whenReceived("AwaitProof", { jobId: second });
          await daemon.restart();
        })();
      },
    });
    expect(report.completed).toBe(3);
    expect(report.daemonRestarts).toBe(1);
    expect(report.verdict.status).toBe("UNSTABLE");
    expect(report.verdict.incidents[0]).toMatch(/the daemon restarted during the timed batch/);
    expect(report.records.find((r) => r.index === 2)?.attempts).toBe(2);
  });

  it("reports progress counts as it goes", async () => {
    const sim = await startTestSim({ proofTimeMs: 5 });
    const snapshots: ProgressSnapshot[] = [];
    await benchAgainst(sim, {
      count: 3,
      warmup: "none",
      onProgress: (event, snapshot) => {
        if (event.type === "proof-completed") snapshots.push(snapshot);
      },
    });
    expect(snapshots.map((s) => s.done)).toEqual([1, 2, 3]);
    expect(snapshots.at(-1)?.ratePerHour).toBeGreaterThan(0);
  });

  it("stops when the caller aborts", async () => {
    const sim = await startTestSim({ proofTimeMs: 10_000 });
    const controller = new AbortController();
    // Abort once the daemon has the first proof (which would take 10 s).
    void sim.whenReceived("SubmitProof").then(() => controller.abort());
    const report = await benchAgainst(sim, { count: 2, warmup: "none", signal: controller.signal });
    expect(report.verdict).toMatchObject({ status: "FAILED", reason: "aborted by the caller" });
    expect(report.records[0]).toMatchObject({ outcome: "abandoned", failureClass: "stopped" });
  });

  it.each([
    ["concurrency 0", { concurrency: 0 }, /concurrency/],
    ["count 1.5", { count: 1.5 }, /count/],
    ["an unknown proof kind", { kind: "stark" as never }, /unknown proof kind/],
    ["a negative threshold", { minProofsPerHour: -1 }, /minProofsPerHour/],
    ["an early verdict without a threshold", { earlyVerdict: true }, /an early verdict needs a threshold/],
    ["a watchdog interval of 0", { watchdog: { probeIntervalMs: 0 } }, /watchdog.probeIntervalMs/],
  ])("rejects %s before any daemon work", async (_name, bad, message) => {
    const sim = await startTestSim({ proofTimeMs: 5 });
    await expect(benchAgainst(sim, bad)).rejects.toThrow(message);
    expect(sim.stats().connections).toBe(0);
  });

  it("rejects an input over the daemon's 128 MiB cap before any daemon work", async () => {
    const huge = { proofKind: 1, vanillaProof: new Uint8Array(128 * 1024 * 1024 + 1) };
    await expect(runBenchmark({ address: "127.0.0.1:9", request: huge })).rejects.toThrow(InvalidInputError);
  });
});

describe("concurrency auto", () => {
  it("takes the tuner's concurrency for the machine", async () => {
    const sim = await startTestSim({ proofTimeMs: 5 });
    const hardware = hardwareFrom({ ram: "512GiB", cores: 64, gpus: "2xRTX4090" });
    const expected = recommend(hardware, { dialect: "budget" }).bench.concurrency;
    const report = await benchAgainst(sim, {
      count: 2,
      warmup: "none",
      concurrency: "auto",
      hardware,
    });
    expect(report.concurrency).toBe(expected);
    await expect(benchAgainst(sim, { concurrency: "auto" })).rejects.toThrow(/needs the machine/);
  });
});
