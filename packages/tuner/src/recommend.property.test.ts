import { findGpuModel, GiB, type GpuSpec, type HardwareSpec, type WorkloadPreset } from "@cuzkit/core";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildDaemonConfig, type Knobs, minSynthesisParallelism } from "./knobs.js";
import { resolveTuneOptions, tuneDefaults } from "./options.js";
import { recommend } from "./recommend.js";
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
          expect(other.proofsPerHour).toBeLessThanOrEqual(own.proofsPerHour * (1 + 1e-9) + 1e-9);
        }
      }),
      { numRuns: 150, seed: 20260320 },
    );
  });
});
