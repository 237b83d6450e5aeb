import { describe, expect, it } from "vitest";
import { GiB } from "./bytes.js";
import { readCuzkConfig } from "./daemon-config.js";
import { InvalidInputError } from "./errors.js";

describe("readCuzkConfig", () => {
  it("reads the incidents' partition-workers config", () => {
    const { config, dialect, findings } = readCuzkConfig(`
[synthesis]
partition_workers = 16
[gpus]
gpu_workers_per_device = 2
gpu_threads = 32
`);
    expect(dialect).toBe("partition-workers");
    expect(config.partitionWorkers).toBe(16);
    expect(config.gpuWorkersPerDevice).toBe(2);
    expect(config.gpuThreads).toBe(32);
    expect(findings).toEqual([]);
  });

  it("flags what the current daemon ignores or misreads", () => {
    const { config, dialect, findings } = readCuzkConfig(`
[memory]
total_budget = "1.5TiB"
safety_margin = "8GiB"
eviction_min_idle = "1h"
[synthesis]
partition_workers = 10
[pipeline]
max_parallel_synthesis = 0
[srs]
preload = ["porep-32g"]
[gpu]
gpu_threads = 8
`);
    expect(dialect).toBe("budget");
    expect(config.totalBudgetBytes).toBe(50 * GiB);
    expect(config.safetyMarginBytes).toBe(8 * GiB);
    expect(config.maxParallelSynthesis).toBe(18);
    const byKey = Object.fromEntries(findings.map((f) => [f.key, f.kind]));
    expect(byKey).toEqual({
      "memory.total_budget": "misread",
      "memory.eviction_min_idle": "misread",
      "synthesis.partition_workers": "ignored",
      "srs.preload": "ignored",
      "gpu.gpu_threads": "unknown",
    });
    expect(findings.find((f) => f.key === "memory.total_budget")?.message).toMatch(/50 GiB/);
  });

  it("reports wrong types as stopping the daemon", () => {
    const { findings } = readCuzkConfig(`[gpus]\ngpu_workers_per_device = "two"\n`);
    expect(findings).toEqual([
      expect.objectContaining({ kind: "invalid", key: "gpus.gpu_workers_per_device" }),
    ]);
  });

  it("throws a typed error for broken TOML", () => {
    expect(() => readCuzkConfig("[memory\ntotal_budget = ")).toThrow(InvalidInputError);
  });

  it("keeps 'auto' and honours an explicit dialect", () => {
    const { config, findings } = readCuzkConfig(`[memory]\ntotal_budget = "auto"\n`, "partition-workers");
    expect(config.totalBudgetBytes).toBe("auto");
    expect(findings.map((f) => f.kind)).toEqual(["ignored"]);
  });
});
