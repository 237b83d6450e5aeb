import { spawnSync } from "node:child_process";
import { type DaemonConfig, hardwareFrom, readCuzkConfig } from "@cuzkit/core";
import { parse } from "smol-toml";
import { describe, expect, it } from "vitest";
import { UnsafeConfigError } from "../errors.js";
import { recommend } from "../recommend.js";
import { emitCurio } from "./curio.js";
import { emitEnv, envVariables } from "./env.js";
import { emitJson, toTuneReport } from "./json.js";
import { formatGoDuration, shellQuote } from "./shell.js";
import { emitText } from "./text.js";
import { emitCuzkToml } from "./toml.js";
import { wrapComment } from "./wrap.js";

const machines = [
  hardwareFrom({ ram: "2TiB", memoryLimit: "251GiB", cores: 32, gpus: "2xRTX3090" }),
  hardwareFrom({ ram: "512GiB", cores: 192, gpus: "1xRTX5070Ti" }),
  hardwareFrom({ ram: "1TiB", cores: 256, gpus: "4xRTX4090" }),
  { ...hardwareFrom({ ram: "384GiB", cores: 48, gpus: "2xA40" }), hostCpuThreads: 128 },
];
const dialects = ["budget", "partition-workers"] as const;
const tiny = hardwareFrom({ ram: "56GB", cores: 32, gpus: "2xRTX3090" });

const fields = (c: DaemonConfig) => ({ ...c });

describe("cuzk.toml", () => {
  it("round-trips through core readCuzkConfig with zero findings and the same config", () => {
    for (const hw of machines) {
      for (const dialect of dialects) {
        for (const workload of ["porep", "mix"] as const) {
          const rec = recommend(hw, { dialect, workload });
          // Nothing to write when not even the margin-waived config fits (mix on 251 GiB, budget).
          if (!rec.forceable) continue;
          const text = emitCuzkToml(rec, { force: true });
          const read = readCuzkConfig(text, dialect);
          expect(read.findings).toEqual([]);
          expect(fields(read.config)).toEqual(fields(rec.daemonConfig));
          // The file's keys say which daemon it was written for.
          expect(readCuzkConfig(text).looksWrittenFor).toBe(dialect);
          expect(read.raw).toEqual(rec.config);
          // The warmup config round-trips too.
          const warmup = { ...rec, config: rec.warmup.config, daemonConfig: rec.warmup.daemonConfig };
          expect(readCuzkConfig(emitCuzkToml(warmup, { force: true }), dialect).findings).toEqual([]);
        }
      }
    }
  });

  it("writes sizes as strict integer GiB and explains the keys in comments", () => {
    const rec = recommend(machines[0]!);
    const text = emitCuzkToml(rec);
    expect(text).toMatch(/^total_budget = "\d+GiB"$/m);
    expect(text).toMatch(/^# memory\.total_budget = /m);
    expect(text.split("\n").every((line) => line.length <= 110)).toBe(true);
  });

  it("carries daemon.listen only when given", () => {
    expect(recommend(machines[1]!).config.daemon).toBeUndefined();
    const rec = recommend(machines[1]!, { listen: "127.0.0.1:9820" });
    expect(readCuzkConfig(emitCuzkToml(rec)).raw).toMatchObject({ daemon: { listen: "127.0.0.1:9820" } });
  });

  it("refuses an infeasible config with UnsafeConfigError, and marks a forced one that fits without the margin", () => {
    const rec = recommend(tiny);
    expect(() => emitCuzkToml(rec)).toThrow(UnsafeConfigError);
    expect(() => emitEnv(rec)).toThrow(UnsafeConfigError);
    expect(() => emitCurio(rec)).toThrow(UnsafeConfigError);
    // 56 GB holds nothing at all: force refuses too.
    expect(() => emitCuzkToml(rec, { force: true })).toThrow(UnsafeConfigError);
    const marginal = recommend(hardwareFrom({ ram: "128GiB", cores: 192, gpus: "1xRTX5070Ti" }));
    const forced = emitCuzkToml(marginal, { force: true });
    expect(forced.split("\n")[0]).toMatch(/^# FORCED: no config fits with the 12\.8 GiB safety margin/);
    expect(readCuzkConfig(forced).findings).toEqual([]);
    expect(emitEnv(marginal, { force: true })).toMatch(/^# FORCED/);
  });
});

describe("env", () => {
  it("exports every variable, shell-quoted, readable by a real shell", () => {
    for (const dialect of dialects) {
      const rec = recommend(machines[0]!, { dialect });
      const text = emitEnv(rec);
      for (const line of text.split("\n").filter((l) => l.startsWith("export "))) {
        expect(line).toMatch(/^export CUZK_[A-Z_]+='[^']*'$/);
      }
      const run = spawnSync("sh", ["-c", `${text}\nenv`], { encoding: "utf8" });
      expect(run.status).toBe(0);
      const seen = Object.fromEntries(
        run.stdout
          .split("\n")
          .filter((l) => l.startsWith("CUZK_"))
          .map((l) => l.split("=") as [string, string]),
      );
      expect(seen).toEqual(Object.fromEntries(envVariables(rec)));
      expect(seen.CUZK_BENCH_CONCURRENCY).toBe(String(rec.bench.concurrency));
      if (dialect === "budget") {
        expect(seen.CUZK_TOTAL_BUDGET).toBe(rec.config.memory?.total_budget);
        expect(seen.CUZK_MAX_PARALLEL_SYNTHESIS).toBe(String(rec.daemonConfig.maxParallelSynthesis));
      } else {
        expect(seen.CUZK_PARTITION_WORKERS).toBe(String(rec.daemonConfig.partitionWorkers));
        expect(seen.CUZK_WARMUP_PARTITION_WORKERS).toBe(String(rec.warmup.synthesisParallelism));
      }
    }
  });

  it("quotes anything a shell would interpret", () => {
    expect(shellQuote("225GiB")).toBe("'225GiB'");
    expect(shellQuote("it's $HOME `x`")).toBe(`'it'\\''s $HOME \`x\`'`);
    const run = spawnSync("sh", ["-c", `printf %s ${shellQuote("a 'b' $c")}`], { encoding: "utf8" });
    expect(run.stdout).toBe("a 'b' $c");
  });
});

describe("curio", () => {
  it("writes the [Cuzk] section: Address, MaxPending from the concurrency, ProveTimeout from the worst case", () => {
    const rec = recommend(machines[0]!);
    const text = emitCurio(rec);
    expect(text.startsWith("# [Cuzk] for Curio's config")).toBe(true);
    const parsed = parse(text) as { Cuzk: { Address: string; MaxPending: number; ProveTimeout: string } };
    expect(parsed.Cuzk.Address).toBe("unix:///run/curio/cuzk.sock");
    // One limiter for every cuzk task type in Curio: 2 slots left for WindowPoSt / WinningPoSt.
    expect(parsed.Cuzk.MaxPending).toBe(rec.bench.concurrency + 2);
    expect(rec.predicted.sizedForProofs).toBe(parsed.Cuzk.MaxPending);
    expect(text).toMatch(/leave room for a time-critical PoSt/);
    expect(parsed.Cuzk.ProveTimeout).toMatch(/^(\d+h)?\d+m0s$/);
    expect(rec.curio.proveTimeoutSec).toBeGreaterThanOrEqual(rec.predicted.worstCaseProofSec * 1.5);
    // Never below Curio's 30 min default unless asked: a timeout re-runs the same request id.
    expect(rec.curio.proveTimeoutSec).toBeGreaterThanOrEqual(1800);
    expect(text).toMatch(/same request id, which the daemon runs again as a duplicate/);
    expect(rec.reasons.find((r) => r.about === "curio")?.text).toMatch(/duplicate/);
    const asked = recommend(machines[1]!, { minProveTimeoutSec: 600 });
    expect(asked.curio.proveTimeoutSec).toBeLessThan(1800);
    expect(asked.curio.proveTimeoutSec).toBeGreaterThanOrEqual(600);
    const noPost = recommend(machines[0]!, { postSlots: 0 });
    expect(noPost.curio.maxPending).toBe(noPost.bench.concurrency);
    expect(noPost.reasons.find((r) => r.about === "curio")?.text).toMatch(/PoRep work can hold every slot/);
    expect(parse(emitCurio(rec, { address: "127.0.0.1:9820" }))).toMatchObject({
      Cuzk: { Address: "127.0.0.1:9820" },
    });
  });

  it("formats Go durations", () => {
    expect(formatGoDuration(45 * 60)).toBe("45m0s");
    expect(formatGoDuration(5400)).toBe("1h30m0s");
    expect(formatGoDuration(3600)).toBe("1h0m0s");
    expect(formatGoDuration(50)).toBe("50s");
    expect(formatGoDuration(125)).toBe("2m5s");
  });
});

describe("json and text", () => {
  it("json carries config, bench, warmup, predicted, reasons, warnings and hardware", () => {
    const rec = recommend(machines[0]!);
    const report = JSON.parse(emitJson(rec)) as ReturnType<typeof toTuneReport>;
    expect(report.config).toEqual(rec.config);
    expect(report.config?.memory?.total_budget).toBe("225GiB");
    expect(report.bench.concurrency).toBe(rec.bench.concurrency);
    expect(report.warmup.steps.length).toBeGreaterThan(0);
    expect(report.predicted.peakMemoryBytes).toBe(rec.predicted.peakMemoryBytes);
    expect(report.predicted.proofsPerHour).toBeGreaterThan(0);
    expect(report.reasons.length).toBeGreaterThan(5);
    expect(report.warnings.map((w) => w.code)).toContain("CONTAINER_LIMIT");
    expect(report.hardware.usableRamBytes).toBe(machines[0]!.usableRamBytes);
    expect(report.hardware.sources).toBeUndefined();
    expect(report.curio.MaxPending).toBe(rec.bench.concurrency + 2);
    const pw = toTuneReport(recommend(machines[0]!, { dialect: "partition-workers" }));
    expect(pw.warmup.partitionWorkers).toBe(pw.warmup.synthesisParallelism);
  });

  it("json of an infeasible result has no config unless forced and forceable", () => {
    const rec = recommend(tiny);
    expect(toTuneReport(rec).config).toBeNull();
    expect(toTuneReport(rec).feasible).toBe(false);
    expect(toTuneReport(rec, { force: true }).config).toBeNull();
    const marginal = recommend(hardwareFrom({ ram: "128GiB", cores: 192, gpus: "1xRTX5070Ti" }));
    expect(toTuneReport(marginal).config).toBeNull();
    expect(toTuneReport(marginal, { force: true }).config).toEqual(marginal.config);
    expect(toTuneReport(marginal, { force: true }).forced).toBe(true);
  });

  it("text explains the verdict, each setting and the warnings, and shows the config only when safe", () => {
    const text = emitText(recommend(machines[0]!));
    expect(text).toMatch(/^Safe: modelled peak/m);
    expect(text).toMatch(/pipeline\.max_parallel_synthesis: \d+:/);
    expect(text).toMatch(/CONTAINER_LIMIT/);
    expect(text).toMatch(/^cuzk\.toml:$/m);
    const bad = emitText(recommend(tiny));
    expect(bad).toMatch(/^NO SAFE CONFIG: usable RAM below the minimum/m);
    expect(bad).not.toMatch(/^cuzk\.toml:$/m);
  });

  it("wraps comments at the width without splitting words", () => {
    const lines = wrapComment("alpha beta gamma delta epsilon", 14);
    expect(lines).toEqual(["# alpha beta", "#   gamma", "#   delta", "#   epsilon"]);
    expect(wrapComment("")).toEqual(["#"]);
  });
});
