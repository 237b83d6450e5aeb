import { describe, expect, it } from "vitest";
import { GiB } from "./bytes.js";
import { readCuzkConfig } from "./daemon-config.js";
import { InvalidInputError } from "./errors.js";

describe("readCuzkConfig", () => {
  const incident = `
[synthesis]
partition_workers = 16
[gpus]
gpu_workers_per_device = 2
gpu_threads = 32
`;

  it("reads the incidents' config as the older partition-workers daemon when told so", () => {
    const { config, dialect, looksWrittenFor, findings } = readCuzkConfig(incident, "partition-workers");
    expect(dialect).toBe("partition-workers");
    expect(looksWrittenFor).toBe("partition-workers");
    expect(config.partitionWorkers).toBe(16);
    expect(config.gpuWorkersPerDevice).toBe(2);
    expect(config.gpuThreads).toBe(32);
    expect(findings).toEqual([]);
  });

  it("reads it as the current daemon when told so: partition_workers is ignored, the auto budget runs", () => {
    expect(readCuzkConfig(incident).dialect).toBe("partition-workers");
    const { config, dialect, looksWrittenFor, findings } = readCuzkConfig(incident, "budget");
    expect(dialect).toBe("budget");
    expect(looksWrittenFor).toBe("partition-workers");
    expect(config.totalBudgetBytes).toBe("auto");
    expect(config.maxParallelSynthesis).toBe(18);
    expect(findings).toEqual([
      expect.objectContaining({ kind: "ignored", key: "synthesis.partition_workers" }),
    ]);
  });

  it("treats gpus.affinity as a key the daemon does not know (silently ignored, not fatal)", () => {
    const { findings } = readCuzkConfig(`[gpus]\naffinity = "0-31"\n`);
    expect(findings).toEqual([expect.objectContaining({ kind: "unknown", key: "gpus.affinity" })]);
  });

  it("reads sizes exactly as parse_size: spaces and '+' are fine, fractions fall back", () => {
    const ok = readCuzkConfig(`[memory]\ntotal_budget = " +256 GiB "\n`);
    expect(ok.config.totalBudgetBytes).toBe(256 * GiB);
    expect(ok.findings).toEqual([]);
    const mib = readCuzkConfig(`[memory]\ntotal_budget = "1.5MiB"\n`);
    expect(mib.config.totalBudgetBytes).toBe(0);
    expect(mib.findings[0]?.message).toMatch(/becomes 0 bytes/);
    const gb = readCuzkConfig(`[memory]\ntotal_budget = "1.5GB"\n`);
    expect(gb.config.totalBudgetBytes).toBe(50e9);
    // serde reads the size as a String: a TOML integer stops the daemon.
    expect(readCuzkConfig(`[memory]\ntotal_budget = 1000\n`).findings[0]?.kind).toBe("invalid");
  });

  it("reports a listen address the daemon refuses", () => {
    const { findings } = readCuzkConfig(`[daemon]\nlisten = "localhost:9820"\n`);
    expect(findings).toEqual([
      expect.objectContaining({
        kind: "invalid",
        key: "daemon.listen",
        message: expect.stringMatching(/host names/),
      }),
    ]);
    expect(readCuzkConfig(`[daemon]\nlisten = "[::1]:9820"\n`).findings).toEqual([]);
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
