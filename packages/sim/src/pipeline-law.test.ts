import {
  type DaemonConfig,
  defaultDaemonConfig,
  type HardwareSpec,
  hardwareFrom,
  modelDaemon,
} from "@cuzkit/core";
import { describe, expect, it } from "vitest";
import { createPipeline, type OomDetail } from "./pipeline.js";
import { createPipelineModel } from "./pipeline-model.js";
import { createManualScheduler } from "./scheduler.js";

// The simulated pipeline follows core's daemon model, the law the tuner optimises: it is
// OOM-killed exactly when the model's peak passes usable RAM, and its steady throughput is the
// model's. Modelled time on a manual scheduler: nothing waits for real.

interface SteadyRun {
  ooms: OomDetail[];
  peakBytes: number;
  /** Modelled seconds per proof between the 10th and the last completion. */
  secPerProof: number;
}

/** Keeps `concurrency` PoReps in flight on a warm daemon (PCE cached) until `proofs` completed. */
function runSteady(hw: HardwareSpec, config: DaemonConfig, concurrency: number, proofs = 40): SteadyRun {
  const scheduler = createManualScheduler();
  const ooms: OomDetail[] = [];
  let peakBytes = 0;
  const pipeline = createPipeline({
    model: createPipelineModel(hw, config),
    scheduler,
    timeScale: 1,
    pceCached: () => true,
    usableRamBytes: hw.usableRamBytes,
    gpuCount: hw.gpus.length,
    dispatchConcurrency: config.synthesisConcurrency,
    onOom: (detail) => ooms.push(detail),
    onMemory: (bytes) => {
      peakBytes = Math.max(peakBytes, bytes);
    },
  });
  const completedAt: number[] = [];
  let submitted = 0;
  const submit = () => {
    if (submitted >= proofs) return;
    const jobId = `p${submitted++}`;
    pipeline.submit({ jobId, kind: "porep", priority: 2 }, (outcome) => {
      if (outcome.status === "completed") completedAt.push(scheduler.now());
      submit();
    });
  };
  for (let i = 0; i < concurrency; i++) submit();
  scheduler.runAll();
  const from = completedAt[9] ?? 0;
  const to = completedAt.at(-1) ?? 0;
  return { ooms, peakBytes, secPerProof: (to - from) / 1000 / Math.max(1, completedAt.length - 10) };
}

const machines: Record<string, HardwareSpec> = {
  "2x3090, 251 GiB, 32 threads": hardwareFrom({ ram: "251GiB", cores: 32, gpus: "2xRTX3090" }),
  "2xA40, 2 TiB, 64 threads": hardwareFrom({ ram: "2TiB", cores: 64, gpus: "2xA40" }),
  "2x4090, 512 GiB, 64 threads": hardwareFrom({ ram: "512GiB", cores: 64, gpus: "2xRTX4090" }),
};
const pw = (partitionWorkers: number, gpuWorkersPerDevice = 2): DaemonConfig => ({
  ...defaultDaemonConfig("partition-workers"),
  partitionWorkers,
  gpuWorkersPerDevice,
});

describe("the simulated pipeline follows core's daemon model", () => {
  for (const [name, hw] of Object.entries(machines)) {
    it(`${name}: OOM-killed exactly when the model's steady peak passes usable RAM, and peaks at it otherwise`, () => {
      for (const partitionWorkers of [2, 7, 10, 14, 16, 24, 32]) {
        for (const concurrency of [1, 2, 6]) {
          const config = pw(partitionWorkers);
          const model = modelDaemon(hw, config, { kind: "porep", concurrency });
          const run = runSteady(hw, config, concurrency, 12);
          const what = `pw=${partitionWorkers} c=${concurrency}`;
          expect(run.ooms.length > 0, what).toBe(model.memory.steady.peakBytes > hw.usableRamBytes);
          if (run.ooms.length === 0) expect(run.peakBytes, what).toBe(model.memory.steady.peakBytes);
        }
      }
    });
  }

  it("delivers the model's steady seconds per proof (within 5%) where throughput, not one proof's latency, limits it", () => {
    const hw = machines["2xA40, 2 TiB, 64 threads"] as HardwareSpec;
    let compared = 0;
    for (const [partitionWorkers, concurrency] of [
      [7, 2],
      [10, 3],
      [16, 6],
      [29, 3],
      [32, 6],
    ] as const) {
      const config = pw(partitionWorkers);
      const model = modelDaemon(hw, config, { kind: "porep", concurrency }).timing;
      if (model.bottleneck === "concurrency") continue;
      const run = runSteady(hw, config, concurrency);
      expect(run.ooms).toEqual([]);
      const ratio = run.secPerProof / model.secPerProof;
      expect(ratio, `pw=${partitionWorkers} c=${concurrency}`).toBeGreaterThan(0.95);
      expect(ratio, `pw=${partitionWorkers} c=${concurrency}`).toBeLessThan(1.05);
      compared++;
    }
    expect(compared).toBeGreaterThanOrEqual(3);
  });

  it("ranks configs as the model does: more throughput in the model is more in the simulation", () => {
    const hw = machines["2x4090, 512 GiB, 64 threads"] as HardwareSpec;
    const tuned = runSteady(hw, pw(14), 2);
    const fewer = runSteady(hw, pw(4), 2);
    const a = modelDaemon(hw, pw(14), { kind: "porep", concurrency: 2 }).timing.secPerProof;
    const b = modelDaemon(hw, pw(4), { kind: "porep", concurrency: 2 }).timing.secPerProof;
    expect(a).toBeLessThan(b);
    expect(tuned.secPerProof).toBeLessThan(fewer.secPerProof);
  });
});
