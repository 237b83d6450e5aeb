import {
  findGpuModel,
  GiB,
  type GpuSpec,
  type HardwareSpec,
  modelDaemon,
  type WorkloadPreset,
} from "@cuzkit/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { envelopePeakBytes } from "../bench/measured-envelope.js";
import { buildDaemonConfig, type Knobs, minSynthesisParallelism } from "./knobs.js";
import { resolveTuneOptions, tuneDefaults } from "./options.js";
import { recommend } from "./recommend.js";
import { throughputStep } from "./search.js";
import { allowedPeak, modelledPeak, workloadOf } from "./test-support.js";

// Random machines: the recommendation is never unsafe under the model, and no safe neighbour
// setting (one more or one less partition, GPU worker or proof in flight) is faster.

const gpuModels = ["RTX 3090", "RTX 4090", "A40", "H100", "RTX 5070 Ti", "T4", "RTX 3080", "Mystery 9000"];

const machine = fc
  .record({
    ramGiB: fc.integer({ min: 16, max: 2048 }),
    threads: fc.integer({ min: 4, max: 256 }),
    hostExtraThreads: fc.integer({ min: 0, max: 256 }),
    gpuCount: fc.integer({ min: 0, max: 8 }),
    gpuModel: fc.constantFrom(...gpuModels),
    limitFraction: fc.option(fc.double({ min: 0.1, max: 1, noNaN: true }), { nil: undefined }),
    dialect: fc.constantFrom("budget", "partition-workers" as const),
    workload: fc.constantFrom<WorkloadPreset>("porep", "porep", "snap", "wpost", "mix"),
  })
  .map((m) => {
    const ramBytes = m.ramGiB * GiB;
    const gpu: GpuSpec = { model: m.gpuModel, vramBytes: findGpuModel(m.gpuModel)?.vramBytes ?? 24e9 };
    const hw: HardwareSpec = {
      ramBytes,
      usableRamBytes:
        m.limitFraction === undefined ? ramBytes : Math.max(GiB, Math.floor(ramBytes * m.limitFraction)),
      cpuThreads: m.threads,
      hostCpuThreads: m.threads + m.hostExtraThreads,
      gpus: Array.from({ length: m.gpuCount }, () => gpu),
    };
    return { hw, dialect: m.dialect, workload: m.workload };
  });

describe("recommend over random machines", () => {
  it("never recommends a config whose modelled peak plus margin exceeds the usable RAM, and no safe neighbour is faster", () => {
    fc.assert(
      fc.property(machine, ({ hw, dialect, workload }) => {
        const rec = recommend(hw, { dialect, workload });
        const options = resolveTuneOptions({ dialect, workload });
        const allowed = allowedPeak(hw);
        const evaluate = (knobs: Knobs) =>
          modelledPeak(
            hw,
            buildDaemonConfig(hw, dialect, knobs, options),
            workloadOf(workload, knobs.concurrency),
          );
        const knobs: Knobs = {
          synthesisParallelism:
            dialect === "budget" ? rec.daemonConfig.maxParallelSynthesis : rec.daemonConfig.partitionWorkers,
          gpuWorkersPerDevice: rec.daemonConfig.gpuWorkersPerDevice,
          concurrency: rec.bench.concurrency,
        };
        const own = evaluate(knobs);
        if (!rec.feasible) {
          // Nothing fits: not even the smallest setting.
          const smallest = evaluate({
            synthesisParallelism: minSynthesisParallelism(dialect),
            gpuWorkersPerDevice: 1,
            concurrency: 1,
          });
          expect(smallest.stalled || smallest.peak > allowed).toBe(true);
          return;
        }
        expect(own.stalled).toBe(false);
        expect(own.peak).toBeLessThanOrEqual(allowed);
        expect(rec.warmup.peakMemoryBytes).toBeLessThanOrEqual(allowed);
        const mine = hw.gpus.length > 0 ? own.proofsPerHour : 0;
        expect(mine).toBeCloseTo(rec.predicted.proofsPerHour, 9);
        const steps: Knobs[] = [];
        for (const d of [-1, 1]) {
          steps.push({ ...knobs, synthesisParallelism: knobs.synthesisParallelism + d });
          steps.push({ ...knobs, gpuWorkersPerDevice: knobs.gpuWorkersPerDevice + d });
          steps.push({ ...knobs, concurrency: knobs.concurrency + d });
        }
        for (const step of steps) {
          if (step.synthesisParallelism < minSynthesisParallelism(dialect) || step.gpuWorkersPerDevice < 1)
            continue;
          if (step.concurrency < 1 || step.concurrency > tuneDefaults.maxConcurrency) continue;
          const other = evaluate(step);
          if (other.stalled || other.peak > allowed) continue;
          // Within the model's 2% resolution: no neighbour reaches a higher throughput step.
          expect(throughputStep(other.proofsPerHour)).toBeLessThanOrEqual(throughputStep(own.proofsPerHour));
        }
      }),
      { numRuns: 150, seed: 20260320 },
    );
  });
});

const shape = fc.record({
  threads: fc.integer({ min: 8, max: 256 }),
  gpuCount: fc.integer({ min: 1, max: 8 }),
  gpuModel: fc.constantFrom(...gpuModels.slice(0, 7)),
  dialect: fc.constantFrom("budget", "partition-workers" as const),
  ramGiB: fc.integer({ min: 64, max: 2048 }),
  moreGiB: fc.integer({ min: 1, max: 512 }),
});
const porepMachine = (ramGiB: number, m: { threads: number; gpuCount: number; gpuModel: string }) => ({
  ramBytes: ramGiB * GiB,
  usableRamBytes: ramGiB * GiB,
  cpuThreads: m.threads,
  hostCpuThreads: m.threads,
  gpus: Array.from({ length: m.gpuCount }, () => ({
    model: m.gpuModel,
    vramBytes: findGpuModel(m.gpuModel)?.vramBytes ?? 24e9,
  })),
});

describe("recommend: monotone in RAM, within the measured envelope", () => {
  it("more usable RAM never lowers the recommended parallelism or the predicted throughput", () => {
    fc.assert(
      fc.property(shape, (m) => {
        const small = recommend(porepMachine(m.ramGiB, m), { dialect: m.dialect });
        const large = recommend(porepMachine(m.ramGiB + m.moreGiB, m), { dialect: m.dialect });
        if (!small.feasible) return;
        expect(large.feasible).toBe(true);
        expect(large.predicted.synthesizingPartitions).toBeGreaterThanOrEqual(
          small.predicted.synthesizingPartitions,
        );
        expect(throughputStep(large.predicted.proofsPerHour)).toBeGreaterThanOrEqual(
          throughputStep(small.predicted.proofsPerHour),
        );
      }),
      { numRuns: 120, seed: 20261201 },
    );
  });

  it("the measured envelope's peak for what the recommendation runs never exceeds the usable RAM", () => {
    fc.assert(
      fc.property(shape, (m) => {
        const hw = porepMachine(m.ramGiB, m);
        const rec = recommend(hw, { dialect: m.dialect });
        if (!rec.feasible) return;
        // With Curio's MaxPending in flight, as Curio may send it.
        const sized = modelDaemon(hw, rec.daemonConfig, {
          kind: "porep",
          concurrency: rec.predicted.sizedForProofs,
        });
        const partitions = sized.memory[sized.governingPhase].synthesizingPartitions;
        expect(envelopePeakBytes(partitions, m.dialect === "budget")).toBeLessThanOrEqual(hw.usableRamBytes);
        // ...and the model never sits below the envelope it was built from.
        expect(sized.peakBytes).toBeGreaterThanOrEqual(
          envelopePeakBytes(partitions, m.dialect === "budget") - 1,
        );
      }),
      { numRuns: 120, seed: 20261202 },
    );
  });
});
