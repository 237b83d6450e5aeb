import { GiB } from "@cuzkit/core";
import { describe, expect, it } from "vitest";
import {
  type DeadlineInputs,
  defaultDeadlineFloorsMs,
  derivePhaseDeadlines,
  isHeartbeatLost,
  isPastDeadline,
} from "./deadlines.js";
import { modelledDeadlineInputs } from "./modelled-durations.js";
import { testOffer } from "./test-support/fixtures.js";

const minute = 60_000;

/** The incidents' Belgium machine: warmup, a daemon restart and 12 proofs took 25-30 minutes. */
const belgium: DeadlineInputs = {
  inetDownMbps: 800,
  imageBytes: 12 * GiB,
  paramsBytes: 47 * GiB,
  warmupProofSec: 6 * 60,
  secPerProof: 110,
  proofLatencySec: 220,
  benchmarkProofs: 12,
  restartAfterWarmup: true,
};

describe("derivePhaseDeadlines", () => {
  it("never kills a healthy 25-30 minute warmup + benchmark (the fixed 20-minute timeout did)", () => {
    const deadlines = derivePhaseDeadlines(belgium);
    // Warmup (daemon start + 6 min proof) and the timed part are each longer than the old 20 min total.
    for (const slowdown of [1, 1.2, 1.4]) {
      const warmupMs = (10 * 60 + belgium.warmupProofSec) * 1000 * slowdown;
      const timedMs = (10 * 60 + 12 * belgium.secPerProof + belgium.proofLatencySec) * 1000 * slowdown;
      expect(deadlines.warmup).toBeGreaterThan(warmupMs);
      expect(deadlines.benchmarking).toBeGreaterThan(timedMs);
    }
    expect(deadlines.warmup + deadlines.benchmarking).toBeGreaterThan(45 * minute);
  });

  it("does not pay for a stuck phase much longer than modelled", () => {
    const deadlines = derivePhaseDeadlines(belgium);
    const modelledTimedMs = (10 * 60 + 12 * belgium.secPerProof + belgium.proofLatencySec) * 1000;
    expect(deadlines.benchmarking).toBeLessThanOrEqual(Math.max(modelledTimedMs * 1.5, 35 * minute) + 1);
    expect(deadlines.benchmarking).toBeLessThan(60 * minute);
  });

  it.each([
    // inet_down Mbit/s, params deadline in minutes (47 GiB at half the measured speed, x1.5)
    [100, 202],
    [500, 40],
    [1000, 20],
    [10_000, 15], // the floor
    [undefined, 202], // unknown: assumed 100 Mbit/s
  ])("gives params at %s Mbit/s about %s minutes", (mbps, minutes) => {
    const deadlines = derivePhaseDeadlines({ ...belgium, inetDownMbps: mbps });
    expect(Math.round(deadlines.params / minute)).toBe(minutes);
  });

  it("grows the booting deadline with the image and the link", () => {
    const small = derivePhaseDeadlines({ ...belgium, imageBytes: 2 * GiB, inetDownMbps: 1000 });
    const large = derivePhaseDeadlines({ ...belgium, imageBytes: 30 * GiB, inetDownMbps: 100 });
    expect(small.booting).toBe(defaultDeadlineFloorsMs.booting);
    // 5 min Vast loading + 30 GiB at 50 Mbit/s (~86 min), x1.5
    expect(Math.round(large.booting / minute)).toBe(136);
  });

  it("scales with the proofs asked for, and honours margin, floors and overrides", () => {
    const twelve = derivePhaseDeadlines(belgium);
    const fifty = derivePhaseDeadlines({ ...belgium, benchmarkProofs: 50 });
    expect(fifty.benchmarking).toBeGreaterThan(twelve.benchmarking * 2);
    const tight = derivePhaseDeadlines(belgium, {
      margin: 1.1,
      floorsMs: { benchmarking: 0 },
      overridesMs: { params: 40 * minute },
    });
    expect(tight.params).toBe(40 * minute);
    expect(tight.benchmarking).toBe(Math.ceil((10 * 60 + 12 * 110 + 220) * 1000 * 1.1));
    expect(tight.benchmarking).toBeLessThan(twelve.benchmarking);
  });

  it("rejects nonsense inputs with a typed error", () => {
    expect(() => derivePhaseDeadlines({ ...belgium, secPerProof: Number.NaN })).toThrow(/secPerProof/);
    expect(() => derivePhaseDeadlines(belgium, { margin: 0 })).toThrow(/margin/);
  });

  it("derives from the tuner's model of the offer", () => {
    const inputs = modelledDeadlineInputs(testOffer(), { benchmarkProofs: 12 });
    expect(inputs.feasible).toBe(true);
    expect(inputs.secPerProof).toBeGreaterThan(0);
    const deadlines = derivePhaseDeadlines(inputs);
    expect(deadlines.benchmarking).toBeGreaterThanOrEqual(
      (12 * inputs.secPerProof + inputs.proofLatencySec) * 1000 * 1.5,
    );
    // A machine the model finds slower (a quarter of the CPU threads) gets a longer benchmark deadline.
    const slower = modelledDeadlineInputs(
      testOffer({ hardware: { ...testOffer().hardware, cpuThreads: 8, hostCpuThreads: 8 } }),
    );
    expect(slower.secPerProof).toBeGreaterThan(inputs.secPerProof);
    expect(derivePhaseDeadlines(slower).benchmarking).toBeGreaterThan(deadlines.benchmarking);
  });
});

describe("isPastDeadline and isHeartbeatLost", () => {
  it.each([
    [undefined, 10_000, false],
    [10_000, 10_000, false],
    [10_000, 10_001, true],
  ])("deadline %s at %s -> %s", (deadline, now, past) => {
    expect(isPastDeadline(deadline, now)).toBe(past);
  });

  it.each([
    // last heartbeat, phase start, now, lost
    [100_000, 0, 100_000 + 90_000, false], // exactly three intervals: not yet
    [100_000, 0, 100_000 + 90_001, true],
    [100_000, 0, 100_000 + 59_000, false], // two missed
    [undefined, 50_000, 50_000 + 90_001, true], // never sent one since the phase began
    [10_000, 200_000, 200_000 + 60_000, false], // a phase report is proof of life too
  ])("last %s, phase %s, now %s -> lost %s", (last, phase, now, lost) => {
    expect(isHeartbeatLost(last, phase, now)).toBe(lost);
  });
});
