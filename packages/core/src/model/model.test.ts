import { describe, expect, it } from "vitest";
import { GiB } from "../bytes.js";
import { type DaemonConfig, defaultDaemonConfig, incidentDaemonConfig } from "../daemon-config.js";
import { hardwareFrom } from "../hardware.js";
import { porepMeasuredPeakGiB, porepMeasuredSecPerProof } from "./constants.js";
import { modelDaemon } from "./daemon-model.js";
import { minimumRamBytes, porepEnvelopeBytes } from "./memory.js";
import { estimateTiming, gpuSecPerPartition, synthesisSecPerPartition } from "./timing.js";

// The cuzk developers' box: 192 threads of Zen4, one RTX 5070 Ti, 512 GiB.
const devBox = (ram = "512GiB") => hardwareFrom({ ram, cores: 192, gpus: "1xRTX5070Ti" });
const pw = (partitionWorkers: number, gpuWorkersPerDevice: number): DaemonConfig => ({
  ...defaultDaemonConfig("partition-workers"),
  partitionWorkers,
  gpuWorkersPerDevice,
});
const porep = (concurrency: number) => ({ kind: "porep" as const, concurrency });

describe("calibration: seconds per proof on the measured box, each within 10%", () => {
  // gpu-throughput.md section 1: pw1 290, pw2 152, pw5 68.4, pw7 53.3 (gw1) / 51.2 (gw2),
  // pw10 45.4 (gw1) / 42.5 (gw2), pw12 42.5 (gw2), 5 proofs in flight.
  it.each([
    { partitions: 1, gw: 1, sec: 290 },
    { partitions: 2, gw: 1, sec: 152 },
    { partitions: 5, gw: 1, sec: 68.4 },
    { partitions: 7, gw: 1, sec: 53.3 },
    { partitions: 7, gw: 2, sec: 51.2 },
    { partitions: 10, gw: 1, sec: 45.4 },
    { partitions: 10, gw: 2, sec: 42.5 },
    { partitions: 12, gw: 2, sec: 42.5 },
  ])("pw$partitions gw$gw: $sec s per proof", ({ partitions, gw, sec }) => {
    const model = modelDaemon(devBox(), pw(partitions, gw), porep(5));
    expect(model.memory.steady.synthesizingPartitions).toBe(partitions);
    expect(Math.abs(model.timing.secPerProof - sec) / sec).toBeLessThan(0.1);
  });

  it("covers every measured time point of the constants table", () => {
    for (const [partitions, sec] of porepMeasuredSecPerProof) {
      const model = modelDaemon(devBox(), pw(partitions, partitions >= 12 ? 2 : 1), porep(5));
      expect(Math.abs(model.timing.secPerProof - sec) / sec).toBeLessThan(0.1);
    }
  });

  it("pw 14-16 gain little over 12: the GPU is fed (measured: nothing more)", () => {
    const at = (p: number) => modelDaemon(devBox(), pw(p, 2), porep(20)).timing.secPerProof;
    expect(at(16)).toBeGreaterThan(at(12) * 0.9);
    expect(modelDaemon(devBox(), pw(16, 2), porep(20)).timing.bottleneck).toBe("gpu");
  });
});

describe("calibration: peak memory on the measured box (never under, at most 10% over)", () => {
  // docs/daemon-facts.md section 4: pw1 104 (5 in flight); 69 + 20 pw for 2-7 (pw2 gw1 110, pw7 gw1 208);
  // pw10 271 (gw2) - 310 (gw1); pw12 373 (5 in flight) / 400 (20 in flight); pw14 457; pw16 510 (20 in flight).
  it.each([
    { partitions: 1, gw: 1, inFlight: 5, low: 104, high: 104 },
    { partitions: 2, gw: 1, inFlight: 5, low: 109, high: 110 },
    { partitions: 5, gw: 1, inFlight: 5, low: 169, high: 169 },
    { partitions: 7, gw: 1, inFlight: 5, low: 208, high: 209 },
    { partitions: 10, gw: 2, inFlight: 5, low: 271, high: 310 },
    { partitions: 10, gw: 1, inFlight: 5, low: 271, high: 310 },
    { partitions: 12, gw: 2, inFlight: 5, low: 373, high: 373 },
    { partitions: 12, gw: 2, inFlight: 20, low: 400, high: 400 },
    { partitions: 14, gw: 2, inFlight: 20, low: 457, high: 457 },
    { partitions: 16, gw: 2, inFlight: 20, low: 510, high: 510 },
  ])(
    "pw$partitions gw$gw, $inFlight in flight: $low-$high GiB",
    ({ partitions, gw, inFlight, low, high }) => {
      const model = modelDaemon(devBox("768GiB"), pw(partitions, gw), porep(inFlight));
      const peakGiB = model.memory.steady.peakBytes / GiB;
      expect(peakGiB).toBeGreaterThanOrEqual(low);
      expect(peakGiB).toBeLessThanOrEqual(high * 1.1);
    },
  );

  it("the envelope passes through every measured point and grows faster above 7", () => {
    for (const [p, gib] of porepMeasuredPeakGiB) expect(porepEnvelopeBytes(p) / GiB).toBeCloseTo(gib, 6);
    const slopeBelow = (porepEnvelopeBytes(7) - porepEnvelopeBytes(2)) / 5;
    const slopeAbove = (porepEnvelopeBytes(12) - porepEnvelopeBytes(7)) / 5;
    expect(slopeAbove).toBeGreaterThan(1.5 * slopeBelow);
  });

  it("the budget daemon's cold start adds the 14 GiB PCE extraction to the steady peak", () => {
    const model = modelDaemon(
      devBox(),
      { ...defaultDaemonConfig("budget"), maxParallelSynthesis: 7 },
      porep(5),
    );
    expect(model.governingPhase).toBe("cold-start");
    expect(model.memory["cold-start"].peakBytes - model.memory.steady.peakBytes).toBe(14 * GiB);
  });

  it("idle footprint with PoRep parameters and PCE is the measured ~69 GiB", () => {
    const model = modelDaemon(devBox(), pw(1, 1), porep(1));
    expect(model.memory.steady.srsBytes + model.memory.steady.pceBytes).toBe(69 * GiB);
  });
});

describe("extrapolation is marked", () => {
  it("nothing is extrapolated on the measured box within the measured range", () => {
    expect(modelDaemon(devBox(), pw(10, 2), porep(5)).extrapolations).toEqual([]);
  });

  it("more than 16 partitions, other GPUs, more GPUs, other CPUs and other kinds are named", () => {
    const big = hardwareFrom({ ram: "2TiB", cores: 256, gpus: "4xRTX4090" });
    const model = modelDaemon(big, pw(24, 2), porep(8));
    const text = model.extrapolations.join("\n");
    expect(model.memory.steady.extrapolated).toBe(true);
    expect(text).toMatch(/24 partitions at once: peak memory was measured up to 16/);
    expect(text).toMatch(/RTX 4090: no cuzk measurement/);
    expect(text).toMatch(/4 GPUs: measured with one/);
    expect(text).toMatch(/256 CPU threads/);
    const snap = modelDaemon(devBox(), pw(4, 2), { kind: "snap", concurrency: 2 });
    expect(snap.extrapolations.join("\n")).toMatch(/SnapDeals update: no measured time/);
  });
});

describe("incidents (docs/incidents.md)", () => {
  it("256 GB with partition_workers=16, 2 GPU workers and 6 proofs in flight is OOM-killed", () => {
    const machine = hardwareFrom({ ram: "256GiB", cores: 64, gpus: "2xRTX3090" });
    const model = modelDaemon(machine, incidentDaemonConfig(), porep(6));
    expect(model.oom).toBe(true);
    expect(model.memory.steady.synthesizingPartitions).toBe(16);
    expect(model.peakBytes).toBeGreaterThan(1.9 * machine.usableRamBytes);
  });

  it("125 GB dies in a cache-less first proof with 10 partitions and survives with 2", () => {
    const machine = hardwareFrom({ ram: "125GiB", cores: 32, gpus: "2xRTX3090" });
    const many = modelDaemon(machine, pw(10, 1), porep(1));
    expect(many.memory.warmup.peakBytes).toBeGreaterThan(machine.usableRamBytes);
    const two = modelDaemon(machine, pw(2, 1), porep(1));
    expect(two.memory.warmup.peakBytes).toBeLessThan(machine.usableRamBytes);
  });

  it("251 GB 2x RTX 3090 auto-configured to partition_workers=10 with 2 in flight loses its daemon", () => {
    const machine = hardwareFrom({ ram: "251GiB", cores: 32, gpus: "2xRTX3090" });
    expect(modelDaemon(machine, pw(10, 2), porep(2)).oom).toBe(true);
  });

  it("the current daemon's auto budget overshoots at 128, 256 and 384 GiB", () => {
    for (const ram of ["128GiB", "256GiB", "384GiB"]) {
      const model = modelDaemon(devBox(ram), defaultDaemonConfig("budget"), porep(6));
      expect(model.governingPhase).toBe("cold-start");
      expect(model.oom).toBe(true);
    }
  });

  it("the auto budget reads host RAM, so a container limit below it is ignored by the daemon", () => {
    const host = hardwareFrom({ ram: "2TiB", cores: 64, gpus: "2xA40", memoryLimit: "251GiB" });
    const model = modelDaemon(host, defaultDaemonConfig("budget"), porep(6));
    expect(model.memory["cold-start"].slots.budgetBytes).toBe(2048 * GiB - 5 * GiB);
    expect(model.oom).toBe(true);
  });

  it("one proof needs the measured 104 GiB at least; 56 GB cannot hold it", () => {
    expect(minimumRamBytes(porep(1))).toBe(104 * GiB);
    expect(minimumRamBytes(porep(1))).toBeGreaterThan(56 * GiB);
  });
});

describe("timing", () => {
  it("one partition synthesizes on about one thread: a 48-thread box is not CPU-bound at 7 partitions", () => {
    const machine = hardwareFrom({ ram: "251GiB", cores: 48, gpus: "2xRTX3090" });
    const timing = estimateTiming(machine, pw(7, 2), porep(4), 7);
    expect(timing.bottleneck).toBe("synthesis");
    expect(timing.cpuSecPerProof).toBeLessThan(timing.synthesisSecPerProof / 2);
  });

  it("the CPU binds only below about one physical core per partition", () => {
    const machine = hardwareFrom({ ram: "512GiB", cores: 16, gpus: "2xRTX4090" });
    const at = (p: number) => estimateTiming(machine, pw(p, 2), porep(8), p);
    expect(at(8).effectivePartitions).toBe(8);
    expect(at(12).effectivePartitions).toBe(8);
    expect(at(12).secPerProof).toBeCloseTo(at(8).secPerProof, 9);
    expect(at(12).bottleneck).toBe("cpu");
  });

  it("the GPU bound follows the speed factor, and a second worker hides part of its CPU side", () => {
    expect(gpuSecPerPartition(2.32, 2)).toBeLessThan(gpuSecPerPartition(1, 2));
    expect(gpuSecPerPartition(1, 2)).toBeLessThan(gpuSecPerPartition(1, 1));
    expect(gpuSecPerPartition(1, 4)).toBe(gpuSecPerPartition(1, 2));
    const slow = hardwareFrom({ ram: "768GiB", cores: 192, gpus: "1xT4" });
    expect(estimateTiming(slow, pw(12, 2), porep(8), 12).bottleneck).toBe("gpu");
  });

  it("more concurrent partitions slow each one down (memory bandwidth)", () => {
    expect(synthesisSecPerPartition(1, 192)).toBe(29);
    expect(synthesisSecPerPartition(10, 192)).toBeGreaterThan(36);
  });

  it("a machine with no GPU proves nothing", () => {
    const timing = estimateTiming(hardwareFrom({ ram: "256GiB", cores: 32 }), pw(4, 1), porep(2), 4);
    expect(timing.bottleneck).toBe("no-gpu");
    expect(timing.proofsPerHour).toBe(0);
  });

  it("the first, cache-less proof is slower than a warm one and bounds the worst case", () => {
    const model = modelDaemon(devBox("256GiB"), pw(7, 1), porep(7));
    expect(model.timing.firstProofSec).toBeGreaterThan(model.timing.singleProofSec);
    expect(model.timing.worstCaseProofSec).toBeGreaterThan(model.timing.firstProofSec);
  });

  it("too few proofs in flight leave synthesis slots idle", () => {
    const one = modelDaemon(devBox(), pw(12, 2), porep(1));
    expect(one.timing.bottleneck).toBe("concurrency");
    const many = modelDaemon(devBox(), pw(12, 2), porep(4));
    expect(many.timing.proofsPerHour).toBeGreaterThan(one.timing.proofsPerHour);
  });
});

describe("memory over time", () => {
  it("rises through parameter load and the PCE extraction transient to the steady state", () => {
    const model = modelDaemon(devBox(), pw(8, 2), porep(4));
    const bytes = model.timeline.map((p) => p.bytes);
    expect(model.timeline.map((p) => p.atSec)).toEqual(
      [...model.timeline.map((p) => p.atSec)].sort((a, b) => a - b),
    );
    expect(Math.max(...bytes)).toBe(model.memory["cold-start"].peakBytes);
    expect(model.memory["cold-start"].peakBytes - model.memory.steady.peakBytes).toBe(14 * GiB);
  });
});
