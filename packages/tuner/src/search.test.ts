import { hardwareFrom } from "@cuzkit/core";
import { describe, expect, it } from "vitest";
import { bruteForce } from "../bench/brute-force.js";
import { resolveTuneOptions } from "./options.js";
import { searchDaemonConfig, throughputStep, usefulGpuWorkers } from "./search.js";

// The pruned search must find what a brute force over the whole grid finds.

const machines = [
  hardwareFrom({ ram: "256GiB", cores: 192, gpus: "1xRTX5070Ti" }),
  hardwareFrom({ ram: "512GiB", cores: 96, gpus: "2xRTX4090" }),
  hardwareFrom({ ram: "384GiB", memoryLimit: "300GiB", cores: 64, gpus: "1xH100" }),
  hardwareFrom({ ram: "160GiB", cores: 24, gpus: "1xA40" }),
];
const grid = { maxSynthesisParallelism: 30, maxGpuWorkersPerDevice: 4, maxConcurrency: 8 };

describe("searchDaemonConfig", () => {
  for (const hw of machines) {
    for (const dialect of ["budget", "partition-workers"] as const) {
      it(`matches the brute force on ${hw.usableRamBytes / 2 ** 30} GiB, ${hw.gpus.length}x ${hw.gpus[0]?.model} (${dialect})`, () => {
        const options = resolveTuneOptions({ dialect, maxSynthesisParallelism: 30, maxConcurrency: 8 });
        const found = searchDaemonConfig(hw, options);
        const reference = bruteForce(hw, dialect, {}, grid);
        expect(found.best === undefined).toBe(reference === undefined);
        if (!found.best || !reference) return;
        expect(throughputStep(found.best.timing.proofsPerHour)).toBe(throughputStep(reference.proofsPerHour));
        expect(found.best.peakBytes).toBe(reference.peakBytes);
        // ...with far fewer timing evaluations than the grid has points.
        expect(found.evaluated.timing).toBeLessThan(reference.evaluated / 4);
      });
    }
  }

  it("tries more GPU workers only while they shorten the GPU stage", () => {
    const options = resolveTuneOptions({});
    expect(usefulGpuWorkers(hardwareFrom({ ram: "1TiB", cores: 8, gpus: "none" }), options)).toBe(1);
    // A second worker hides half the GPU stage's CPU part (measured gw1 vs gw2); more were never measured.
    for (const gpus of ["1xRTX3090", "1xRTX4090", "1xRTX5090"]) {
      expect(usefulGpuWorkers(hardwareFrom({ ram: "1TiB", cores: 8, gpus }), options)).toBe(2);
    }
  });
});
