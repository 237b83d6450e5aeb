import { describe, expect, it } from "vitest";
import { GiB } from "../bytes.js";
import { type DaemonConfig, defaultDaemonConfig, incidentDaemonConfig } from "../daemon-config.js";
import { hardwareFrom } from "../hardware.js";
import { modelDaemon } from "./daemon-model.js";
import { minimumRamBytes } from "./memory.js";
import { estimateTiming, gpuSecPerPartition, synthesisSecPerPartition } from "./timing.js";

// The cuzk developers' box: 192 threads of Zen4, one RTX 5070 Ti; RAM varied by tier.
const devBox = (ram: string) => hardwareFrom({ ram, cores: 192, gpus: "1xRTX5070Ti" });
const pw = (partitionWorkers: number, gpuWorkersPerDevice: number): DaemonConfig => ({
  ...defaultDaemonConfig("partition-workers"),
  partitionWorkers,
  gpuWorkersPerDevice,
});
const porep = (concurrency: number) => ({ kind: "porep" as const, concurrency });

describe("calibration points (cuzk-daemon.md section 4)", () => {
  // Measured: peak RSS and seconds per proof at each RAM tier of the older daemon.
  it.each([
    { ram: "128GiB", workers: 2, gw: 1, peakGiB: 110, secPerProof: 152 },
    { ram: "256GiB", workers: 7, gw: 1, peakGiB: 208, secPerProof: 53.3 },
    { ram: "384GiB", workers: 10, gw: 2, peakGiB: 271, secPerProof: 42.5 },
  ])(
    "$ram with pw=$workers: peak within 6% above the measured $peakGiB GiB, time within 5% of $secPerProof s",
    (point) => {
      const model = modelDaemon(devBox(point.ram), pw(point.workers, point.gw), porep(1));
      const peakGiB = model.memory.steady.peakBytes / GiB;
      expect(peakGiB).toBeGreaterThanOrEqual(point.peakGiB * 0.98);
      expect(peakGiB).toBeLessThanOrEqual(point.peakGiB * 1.06);
      const steady = modelDaemon(devBox(point.ram), pw(point.workers, point.gw), porep(point.workers));
      expect(Math.abs(steady.timing.secPerProof - point.secPerProof) / point.secPerProof).toBeLessThan(0.05);
      expect(steady.oom).toBe(false);
    },
  );

  it("512 GiB with pw=12 and 20 proofs in flight: 38-42 s per proof, peak near the measured 373-400 GiB", () => {
    const model = modelDaemon(devBox("512GiB"), pw(12, 2), porep(20));
    expect(model.timing.secPerProof).toBeGreaterThan(35);
    expect(model.timing.secPerProof).toBeLessThan(42.5);
    // The model sits about 7% under the measured low end here: documented in the README.
    expect(model.peakBytes / GiB).toBeGreaterThan(373 * 0.9);
    expect(model.peakBytes / GiB).toBeLessThan(400);
    expect(model.oom).toBe(false);
  });

  it("idle footprint with PoRep parameters and PCE is the measured ~69 GiB", () => {
    const model = modelDaemon(devBox("512GiB"), pw(1, 1), porep(1));
    expect(model.memory.steady.srsBytes + model.memory.steady.pceBytes).toBe(69 * GiB);
  });
});

describe("incidents (shared/seeds)", () => {
  it("256 GB with partition_workers=16, 2 GPU workers and 6 proofs in flight is OOM-killed", () => {
    const machine = hardwareFrom({ ram: "256GiB", cores: 64, gpus: "2xRTX3090" });
    const model = modelDaemon(machine, incidentDaemonConfig(), porep(6));
    expect(model.oom).toBe(true);
    expect(model.memory.steady.synthesizingPartitions).toBe(16);
    expect(model.peakBytes).toBeGreaterThan(1.4 * machine.usableRamBytes);
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
    const model = modelDaemon(machine, pw(10, 2), porep(2));
    expect(model.oom).toBe(true);
  });

  it("the current daemon's auto budget overshoots at 128 and 256 GiB (14 GiB reserved, ~20 used)", () => {
    for (const ram of ["128GiB", "256GiB"]) {
      const model = modelDaemon(devBox(ram), defaultDaemonConfig("budget"), porep(6));
      expect(model.governingPhase).toBe("cold-start");
      expect(model.memory["cold-start"].slots.limitedBy).toBe("memory budget");
      expect(model.oom).toBe(true);
    }
  });

  it("the auto budget reads host RAM, so a container limit below it is ignored by the daemon", () => {
    const host = hardwareFrom({ ram: "2TiB", cores: 64, gpus: "2xA40", memoryLimit: "251GiB" });
    const model = modelDaemon(host, defaultDaemonConfig("budget"), porep(6));
    expect(model.memory["cold-start"].slots.budgetBytes).toBe(2048 * GiB - 5 * GiB);
    expect(model.oom).toBe(true);
  });

  it("56 GB cannot hold even the PoRep parameters", () => {
    expect(minimumRamBytes(porep(1))).toBeGreaterThan(56 * GiB);
  });
});

describe("timing", () => {
  it("synthesis is CPU-bound on a rented 32-thread box: ~7,000 vCPU-s per proof", () => {
    const machine = hardwareFrom({ ram: "512GiB", cores: 32, gpus: "2xRTX3090" });
    const timing = estimateTiming(machine, pw(8, 2), porep(8), 8);
    expect(timing.bottleneck).toBe("cpu");
    expect(timing.secPerProof).toBeCloseTo(7000 / 32, 0);
  });

  it("a faster GPU shortens the GPU stage; a second worker overlaps its CPU part", () => {
    expect(gpuSecPerPartition(2.32, 2)).toBeLessThan(gpuSecPerPartition(1, 2));
    expect(gpuSecPerPartition(1, 2)).toBeLessThan(gpuSecPerPartition(1, 1));
  });

  it("more concurrent partitions slow each one down (memory bandwidth)", () => {
    expect(synthesisSecPerPartition(1, 192)).toBe(29);
    expect(synthesisSecPerPartition(10, 192)).toBeGreaterThan(40);
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
    const one = modelDaemon(devBox("512GiB"), pw(12, 2), porep(1));
    expect(one.timing.bottleneck).toBe("concurrency");
    const many = modelDaemon(devBox("512GiB"), pw(12, 2), porep(4));
    expect(many.timing.proofsPerHour).toBeGreaterThan(one.timing.proofsPerHour);
  });
});

describe("memory over time", () => {
  it("rises through parameter load and the PCE extraction transient to the steady state", () => {
    const model = modelDaemon(devBox("512GiB"), pw(8, 2), porep(4));
    const bytes = model.timeline.map((p) => p.bytes);
    expect(model.timeline.map((p) => p.atSec)).toEqual(
      [...model.timeline.map((p) => p.atSec)].sort((a, b) => a - b),
    );
    expect(Math.max(...bytes)).toBe(model.memory["cold-start"].peakBytes);
    expect(model.memory["cold-start"].peakBytes - model.memory.steady.peakBytes).toBe(14 * GiB);
  });
});
