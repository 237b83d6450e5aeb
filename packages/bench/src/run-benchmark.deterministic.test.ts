import { defaultDeadlines } from "@cuzkit/client";
import type { Sleep } from "@cuzkit/core";
import { createManualClock } from "@cuzkit/core/testing";
import type { SimDaemon } from "@cuzkit/sim";
import { createManualScheduler, type ManualScheduler } from "@cuzkit/sim/testing";
import { describe, expect, it } from "vitest";
import { slotRate } from "../../../test/support/slot-rate.js";
import type { BenchmarkEvent } from "./progress.js";
import { proofsPerHourFromIntervals } from "./proof-rate.js";
import { type DaemonExit, DaemonStartError, type DaemonSupervisor } from "./supervisor.js";
import { benchAgainst, fastReconnect, startTestSim } from "./test-support/sim-bench.js";
import { simSupervisor } from "./test-support/sim-supervisor.js";

// runBenchmark where the outcome must not depend on the machine's speed: proofs run on the
// simulator's manual scheduler (they end when the test says), faults are triggered by what the
// daemon has received, and the bench's own waits go through an injected sleep.

/**
 * Drives the daemon: each submission's proof ends once its AwaitProof is in, except submission
 * `oomAt`, lost to an OOM kill while in flight. Resolves after `submissions` submissions.
 */
async function driveSubmissions(
  daemon: SimDaemon,
  scheduler: ManualScheduler,
  plan: { submissions: number; oomAt: number },
): Promise<void> {
  for (let n = 1; n <= plan.submissions; n++) {
    await daemon.whenReceived("SubmitProof", { count: n });
    const jobId = Object.keys(daemon.stats().submissionsByRequestId)[n - 1];
    await daemon.whenReceived("AwaitProof", { jobId });
    if (n === plan.oomAt) daemon.crash("oom");
    else scheduler.advance(60_000);
  }
}

/** `base` with its start() replaced: the rest (crashes, stop, kill, onCrash) stays the simulator's. */
function withStart(base: DaemonSupervisor, start: DaemonSupervisor["start"]): DaemonSupervisor {
  return {
    get running() {
      return base.running;
    },
    get starts() {
      return base.starts;
    },
    crashes: base.crashes,
    stop: () => base.stop(),
    kill: (reason) => base.kill(reason),
    onCrash: (listener) => base.onCrash(listener),
    logTail: () => base.logTail(),
    start,
  };
}

/** What the real supervisor throws when its child dies before it answers: the exit, recorded as a crash. */
function exitedWhileStarting(base: DaemonSupervisor): DaemonStartError {
  const exit = { ...(base.crashes.at(-1) as DaemonExit), explanation: "killed (exit 137)" };
  (base.crashes as DaemonExit[]).push(exit);
  return new DaemonStartError(`the daemon exited while starting: ${exit.explanation}`, { exit });
}

describe("runBenchmark, deterministically", () => {
  it("restarts a daemon that crashed with a proof in flight, resubmits that proof, completes the batch, and says UNSTABLE", async () => {
    const scheduler = createManualScheduler();
    const daemon = await startTestSim({ proofTimeMs: 60_000, scheduler });
    // The third submission is lost to an OOM kill: five proofs plus one resubmission.
    const driver = driveSubmissions(daemon, scheduler, { submissions: 6, oomAt: 3 });
    const report = await benchAgainst(daemon, {
      count: 5,
      concurrency: 1,
      warmup: "none",
      client: fastReconnect(5_000),
      supervision: { supervisor: simSupervisor(daemon), configToml: "", onCrash: "restart", maxRestarts: 3 },
    });
    await driver;
    expect(report.completed).toBe(5);
    expect(report.failed).toBe(0);
    expect(report.daemonCrashes).toBe(1);
    expect(report.daemonRestarts).toBe(1);
    expect(report.records.filter((r) => !r.warmup).map((r) => r.attempts)).toEqual([1, 1, 2, 1, 1]);
    expect(report.verdict.status).toBe("UNSTABLE");
    // Six submissions, each once: the lost proof went again under a new id.
    expect(Object.values(daemon.stats().submissionsByRequestId)).toEqual([1, 1, 1, 1, 1, 1]);
  });

  it("restarts again when a restarted daemon dies before the supervisor saw it ready, within --max-restarts", async () => {
    const scheduler = createManualScheduler();
    const daemon = await startTestSim({ proofTimeMs: 60_000, scheduler });
    // The first restart's daemon exits before its readiness poll answers (under load the client
    // can even run proofs on it first): another crash, restarted again, not "could not be restarted".
    const base = simSupervisor(daemon);
    const supervisor = withStart(base, async (configToml, label, startOptions) => {
      if (base.starts === 1 && !failedOnce) {
        failedOnce = true;
        throw exitedWhileStarting(base);
      }
      await base.start(configToml, label, startOptions);
    });
    let failedOnce = false;
    const driver = driveSubmissions(daemon, scheduler, { submissions: 3, oomAt: 2 });
    const report = await benchAgainst(daemon, {
      count: 2,
      concurrency: 1,
      warmup: "none",
      client: fastReconnect(5_000),
      watchdog: false,
      supervision: { supervisor, configToml: "", onCrash: "restart", maxRestarts: 3 },
    });
    await driver;
    expect(report.completed).toBe(2);
    expect(report.failed).toBe(0);
    expect(report.daemonRestarts).toBe(2);
    expect(report.verdict.status).toBe("UNSTABLE");
    expect(report.verdict.incidents.join("\n")).not.toMatch(/could not be restarted/);
    expect(report.verdict.incidents.filter((i) => i.startsWith("the daemon died"))).toHaveLength(2);
  });

  it("stops when a restarted daemon keeps dying while starting, at --max-restarts", async () => {
    const scheduler = createManualScheduler();
    const daemon = await startTestSim({ proofTimeMs: 60_000, scheduler });
    const base = simSupervisor(daemon);
    let restarts = 0;
    const supervisor = withStart(base, async (configToml, label, startOptions) => {
      if (base.starts === 0) return base.start(configToml, label, startOptions);
      restarts++;
      throw exitedWhileStarting(base);
    });
    const driver = driveSubmissions(daemon, scheduler, { submissions: 2, oomAt: 2 });
    const report = await benchAgainst(daemon, {
      count: 2,
      concurrency: 1,
      warmup: "none",
      client: fastReconnect(5_000),
      watchdog: false,
      supervision: { supervisor, configToml: "", onCrash: "restart", maxRestarts: 2 },
    });
    await driver;
    // A crash loop is bounded: two restarts tried, then the run stops naming the failed restart.
    expect(restarts).toBe(2);
    expect(report.completed).toBe(1);
    expect(report.verdict.status).toBe("UNSTABLE");
    expect(report.verdict.incidents.join("\n")).toMatch(
      /could not be restarted: the daemon exited while starting/,
    );
  });

  it("ends when the batch finishes on a restarted daemon before the supervisor saw it ready", async () => {
    const scheduler = createManualScheduler();
    const daemon = await startTestSim({ proofTimeMs: 60_000, scheduler });
    // The restart's readiness wait ends only when it is aborted, as the real supervisor's does
    // against a daemon that froze right after the client reached it (a CI hang of `cuzkit bench`).
    const base = simSupervisor(daemon);
    let restartAborted = false;
    const supervisor = withStart(base, async (configToml, label, startOptions) => {
      await base.start(configToml, label, startOptions);
      if (base.starts === 1) return;
      const signal = startOptions?.signal;
      await new Promise<never>((_, reject) => {
        signal?.addEventListener("abort", () => {
          restartAborted = true;
          reject(signal.reason);
        });
      });
    });
    const driver = driveSubmissions(daemon, scheduler, { submissions: 3, oomAt: 2 });
    const report = await benchAgainst(daemon, {
      count: 2,
      concurrency: 1,
      warmup: "none",
      client: fastReconnect(5_000),
      watchdog: false,
      supervision: { supervisor, configToml: "", onCrash: "restart", maxRestarts: 2 },
    });
    await driver;
    expect(restartAborted).toBe(true);
    expect(report.completed).toBe(2);
    expect(report.daemonRestarts).toBe(1);
    // The crash is the incident; the abandoned readiness wait is not a failed restart.
    expect(report.verdict.status).toBe("UNSTABLE");
    expect(report.verdict.incidents.join("\n")).not.toMatch(/could not be restarted/);
    expect(Object.values(daemon.stats().submissionsByRequestId)).toEqual([1, 1, 1]);
  });

  it("stops UNSTABLE when the timed phase outlives its deadline, timed by the injected sleep", async () => {
    const scheduler = createManualScheduler();
    const sim = await startTestSim({ proofTimeMs: 60_000, scheduler });
    const waits: { ms: number; end: () => void }[] = [];
    const sleep: Sleep = (ms, signal) =>
      new Promise<void>((resolve, reject) => {
        if (signal?.aborted) return reject(signal.reason);
        waits.push({ ms, end: resolve });
        signal?.addEventListener("abort", () => reject(signal.reason), { once: true });
      });
    let timedDeadlineMs: number | undefined;
    const onProgress = (event: BenchmarkEvent) => {
      if (event.type !== "phase" || event.phase !== "timed") return;
      timedDeadlineMs = event.deadlineMs;
      // The deadline's wait is the one just asked for; end it: the phase ran out of time.
      queueMicrotask(() => waits.find((w) => w.ms === event.deadlineMs)?.end());
    };
    const report = await benchAgainst(sim, {
      count: 3,
      concurrency: 1,
      warmup: "none",
      client: fastReconnect(5_000),
      watchdog: false,
      phaseDeadlines: { overrides: { timed: 90_000 } },
      sleep,
      onProgress,
    });
    expect(timedDeadlineMs).toBe(90_000);
    expect(report.completed).toBe(0);
    expect(report.verdict.status).toBe("UNSTABLE");
    expect(report.verdict.incidents.join("\n")).toMatch(/the timed phase ran past its deadline \(90 s/);
  });
  it("stops UNSTABLE when the daemon answers but finishes nothing: the stuck proof counted failed with its evidence", async () => {
    const sim = await startTestSim({ proofTimeMs: 0, faults: { stickAfterProofs: 0 } });
    // The client's stuck watch runs on a manual clock (its sleeps move it): minutes of window in milliseconds.
    const clientClock = createManualClock(1_000_000);
    const steps: string[] = [];
    const report = await benchAgainst(sim, {
      onProgress: (event) => {
        if (event.type === "recovery") steps.push(event.message);
      },
      count: 3,
      concurrency: 2,
      warmup: "none",
      watchdog: false,
      client: { clock: clientClock, sleep: clientClock.sleep },
    });
    expect(report.verdict.status).toBe("UNSTABLE");
    expect(report.completed).toBe(0);
    expect(report.failed).toBe(2);
    expect(report.notStarted).toBe(1);
    expect(report.failures.map((f) => f.code)).toEqual(["DAEMON_STUCK", "DAEMON_STUCK"]);
    expect(report.records.filter((r) => r.outcome === "failed").map((r) => r.failureClass)).toEqual([
      "stuck",
      "stuck",
    ]);
    // The report names the evidence: how long without progress, against which window, and what the daemon said.
    expect(report.verdict.incidents.join("\n")).toMatch(
      /DAEMON_STUCK: PoRep C2 proof .* made no progress for \d+ s \(window \d+ s: the model's ETA \d+ s x margin 3\); the daemon still answers GetStatus \(up \d+ s, 0 completed, 0 failed/,
    );
    expect(report.stopCause).toMatch(/^the daemon is stuck: /);
    expect(steps[0]).toMatch(/^no progress for \d+ s \(window \d+ s\): DAEMON_STUCK$/);
    expect(report.failures[0]?.hint).toMatch(/nvidia-smi/);
    // Well before a proof's 30-minute deadline on the client's clock, and nothing submitted twice.
    expect(clientClock.now() - 1_000_000).toBeLessThan(defaultDeadlines.proofMs / 2);
    expect(Object.values(sim.stats().submissionsByRequestId)).toEqual([1, 1]);
  });

  it("stops on an early verdict whose rate is the report's rate, over the same proofs, on the simulator's clock", async () => {
    const scheduler = createManualScheduler();
    // 60 s +-20% per proof, two in flight: ~120 proofs/hour, three times the 40/h threshold.
    const daemon = await startTestSim({ proofTimeMs: 60_000, proofTimeJitter: 0.2, seed: 7, scheduler });
    let finished = false;
    // Lets each proof finish once both in-flight proofs are at the daemon, one timer at a time.
    const driver = (async () => {
      for (let n = 2; !finished; n++) {
        const received = (async () => {
          await daemon.whenReceived("SubmitProof", { count: n });
          for (const jobId of Object.keys(daemon.stats().submissionsByRequestId).slice(n - 2, n))
            await daemon.whenReceived("AwaitProof", { jobId });
        })();
        await Promise.race([received, until(() => finished)]);
        if (finished) return;
        const before = daemon.stats().proofsCompleted;
        while (daemon.stats().proofsCompleted === before && scheduler.pendingTimers() > 0)
          scheduler.runAll(1);
      }
    })();
    const report = await benchAgainst(daemon, {
      count: 12,
      concurrency: 2,
      warmup: "none",
      minProofsPerHour: 40,
      earlyVerdict: true,
      clock: scheduler,
      client: fastReconnect(5_000),
      watchdog: false,
    }).finally(() => {
      finished = true;
    });
    await driver;
    expect(report.verdict.status).toBe("MET");
    const early = report.verdict.early;
    expect(early).toMatchObject({ test: "confidence-bound", samples: 5, slots: 2 });
    // One figure: the verdict's rate is the report's, over the same completed proofs.
    expect(early?.proofsPerHour).toBe(report.proofsPerHour);
    expect(report.rateBasis).toMatchObject({ proofs: early?.samples, slots: early?.slots });
    expect(report.completed).toBe(5);
    expect(report.proofsPerHour).toBeCloseTo(slotRate(report.records), 9);
    // A reader with only submit and settle times (the fleet checking an agent's claim) rebuilds
    // the same figure.
    const completed = report.records.filter((r) => !r.warmup && r.outcome === "completed");
    expect(proofsPerHourFromIntervals(completed.map((r) => [r.submitMs, r.settleMs] as const))).toBeCloseTo(
      report.proofsPerHour,
      6,
    );
    expect(report.verdict.reason).toContain(`${report.proofsPerHour.toFixed(1)} proofs/hour`);
    // Simulated time: each proof took 48-72 s, so the rate is ~100-150/h, not a loopback's millions.
    expect(report.proofsPerHour).toBeGreaterThan(90);
    expect(report.proofsPerHour).toBeLessThan(160);
  });
});

/** Resolves once `done()` is true (checked each macrotask). */
async function until(done: () => boolean): Promise<void> {
  while (!done()) await new Promise((resolve) => setImmediate(resolve));
}
