import { hardwareFrom } from "@cuzkit/core";
import { describe, expect, it } from "vitest";
import { checkConfig } from "./check.js";
import { formatCheckText } from "./emit/check-text.js";
import { emitCuzkToml } from "./emit/toml.js";
import { recommend } from "./recommend.js";

const hw = hardwareFrom({ ram: "512GiB", cores: 192, gpus: "1xRTX5070Ti" });
const vast = {
  ...hardwareFrom({ ram: "2TiB", memoryLimit: "251GiB", cores: 32, gpus: "2xRTX3090" }),
  hostCpuThreads: 384,
};

describe("checkConfig", () => {
  it("passes the tuner's own config with nothing to change", () => {
    for (const dialect of ["budget", "partition-workers"] as const) {
      const rec = recommend(vast, { dialect });
      const result = checkConfig(vast, emitCuzkToml(rec), { dialect });
      expect(result.exitCode).toBe(0);
      expect(result.ok).toBe(true);
      expect(result.findings).toEqual([]);
      expect(result.problems).toEqual([]);
      expect(result.changes).toEqual([]);
      expect(result.concurrency).toBe(rec.bench.concurrency);
      expect(result.concurrencySource).toBe("tuned");
    }
  });

  it("flags a size the daemon turns into 50 GiB, and says which key", () => {
    const result = checkConfig(
      hw,
      '[memory]\ntotal_budget = "400G"\n\n[pipeline]\nmax_parallel_synthesis = 8\n',
    );
    expect(result.exitCode).toBe(2);
    expect(result.findings).toEqual([
      expect.objectContaining({ kind: "misread", key: "memory.total_budget" }),
    ]);
    expect(result.problems.join("\n")).toMatch(/memory\.total_budget: "400G" .* 50 GiB/);
  });

  it("flags a value that stops the daemon at start", () => {
    const result = checkConfig(hw, '[gpus]\ngpu_threads = "many"\n');
    expect(result.exitCode).toBe(2);
    expect(result.findings[0]?.kind).toBe("invalid");
  });

  it("notes unknown and ignored keys without failing when nothing else is wrong", () => {
    const rec = recommend(hw);
    const text = `${emitCuzkToml(rec)}\n[gpus_typo]\nworkers = 2\n\n[srs]\npreload = ["porep-32g"]\n`;
    const result = checkConfig(hw, text, { dialect: "budget" });
    expect(result.exitCode).toBe(0);
    expect(result.notes.join("\n")).toMatch(/ignored \(unknown key\): gpus_typo\.workers/);
    expect(result.notes.join("\n")).toMatch(/ignored: srs\.preload: deprecated/);
  });

  it("explains what the budget daemon does with partition_workers: ignores it, and the auto budget reads the host", () => {
    const result = checkConfig(vast, "[synthesis]\npartition_workers = 4\n", {
      dialect: "budget",
      concurrency: 2,
    });
    expect(result.notes.join("\n")).toMatch(
      /synthesis\.partition_workers: the current daemon warns and ignores it/,
    );
    expect(result.notes.join("\n")).toMatch(/"auto": the daemon takes the host's MemTotal \(2\.0 TiB\)/);
    expect(result.notes.join("\n")).toMatch(/thread setting is 0/);
    expect(result.oom).toBe(true);
    expect(result.exitCode).toBe(2);
    expect(result.changes.map((c) => c.key)).toEqual(
      expect.arrayContaining(["memory.total_budget", "pipeline.max_parallel_synthesis", "synthesis.threads"]),
    );
    expect(result.changes.find((c) => c.key === "memory.total_budget")).toEqual({
      key: "memory.total_budget",
      current: "auto",
      recommended: "225GiB",
    });
  });

  it("flags a budget too small to hold one partition: the daemon would wait forever", () => {
    const result = checkConfig(hw, '[memory]\ntotal_budget = "70GiB"\n');
    expect(result.exitCode).toBe(2);
    expect(result.problems.join("\n")).toMatch(/waits forever/);
  });

  it("calls a peak inside the safety margin tight but not fatal", () => {
    // 512 GiB: pw=15 peaks at 483.5 GiB on the measured envelope (457 at 14, 510 at 16): under 512, over 460.8.
    const tight = checkConfig(hw, "[synthesis]\npartition_workers = 15\n", {
      concurrency: 2,
      dialect: "partition-workers",
    });
    const steady = tight.phases.find((p) => p.phase === "steady");
    expect(steady?.tight).toBe(true);
    expect(steady?.oom).toBe(false);
    expect(tight.exitCode).toBe(0);
    expect(tight.notes.join("\n")).toMatch(/^tight: steady/m);
  });

  it("for the partition-workers daemon, a cold start over the RAM is advice (follow the warmup plan), not fatal", () => {
    // pw=2: steady 109 GiB fits 120 GiB; the cold start adds the 14 GiB extraction: 123 GiB.
    const small = hardwareFrom({ ram: "120GiB", cores: 192, gpus: "1xRTX5070Ti" });
    const result = checkConfig(
      small,
      "[synthesis]\npartition_workers = 2\n\n[gpus]\ngpu_workers_per_device = 1\n",
      { concurrency: 1, dialect: "partition-workers" },
    );
    const cold = result.phases.find((p) => p.phase === "cold-start");
    expect(cold?.oom).toBe(true);
    expect(cold?.severity).toBe("advice");
    expect(result.exitCode).toBe(0);
    expect(result.notes.join("\n")).toMatch(/follow the warmup plan/);
  });

  it("formats a report for people", () => {
    const text = formatCheckText(
      checkConfig(vast, "[synthesis]\npartition_workers = 10\n", {
        concurrency: 2,
        dialect: "partition-workers",
      }),
    );
    expect(text).toMatch(/^cuzkit tune --check: WOULD OOM \(steady\)/);
    expect(text).toMatch(/^Modelled: no throughput as configured \(the model expects it to be OOM-killed\)/m);
    expect(text).toMatch(/\[OOM \] steady \(fatal\)/);
    expect(text).toMatch(/synthesis\.partition_workers: 10 -> \d+/);
  });

  it("checks for the current daemon unless told otherwise: partition_workers = 3 at 256 GiB runs the auto budget and would OOM", () => {
    const box = hardwareFrom({ ram: "256GiB", cores: 192, gpus: "1xRTX5070Ti" });
    const result = checkConfig(box, "[synthesis]\npartition_workers = 3\n", { concurrency: 6 });
    expect(result.dialect).toBe("budget");
    expect(result.runs.synthesizingPartitions).toBeGreaterThanOrEqual(12);
    expect(result.runs.limitedBy).toBe("memory budget");
    expect(result.oom).toBe(true);
    expect(result.exitCode).toBe(2);
    expect(result.predicted).toBeUndefined();
    expect(result.notes.join("\n")).toMatch(/looks written for the partition-workers daemon/);
    expect(result.notes.join("\n")).toMatch(
      /synthesis\.partition_workers: the current daemon warns and ignores it/,
    );
    // The same file, for the older daemon that reads partition_workers, fits.
    const older = checkConfig(box, "[synthesis]\npartition_workers = 3\n", {
      concurrency: 6,
      dialect: "partition-workers",
    });
    expect(older.runs.synthesizingPartitions).toBe(3);
    expect(older.exitCode).toBe(0);
    expect(older.predicted?.proofsPerHour).toBeGreaterThan(0);
  });

  it("fails a listen address the daemon refuses, and a size given as a TOML integer", () => {
    const result = checkConfig(hw, '[daemon]\nlisten = "localhost:9820"\n[memory]\ntotal_budget = 400\n');
    expect(result.exitCode).toBe(2);
    expect(result.findings.map((f) => [f.kind, f.key])).toEqual([
      ["invalid", "daemon.listen"],
      ["invalid", "memory.total_budget"],
    ]);
    expect(result.problems.join("\n")).toMatch(
      /daemon\.listen: .*does not resolve host names.*refuses to start/,
    );
  });

  it("rejects text that is not TOML", () => {
    expect(() => checkConfig(hw, "[memory\n")).toThrow(/not valid TOML/);
  });
});
