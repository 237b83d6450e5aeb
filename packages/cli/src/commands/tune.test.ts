import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { CuzkitError, GiB, readCuzkConfig } from "@cuzkit/core";
import type { DetectedHardware } from "@cuzkit/tuner";
import { CommanderError } from "commander";
import { parse } from "smol-toml";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type CliIO, CommandExit } from "../io.js";
import { memorySink, parseCapturingError } from "../test-support/memory-io.js";
import { createTuneCommand, parseSafetyMargin, type TuneCommandDeps } from "./tune.js";

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "cuzkit-tune-cli-"));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** Runs `cuzkit tune ...args` in-process. */
async function run(args: string[], deps: TuneCommandDeps = {}) {
  const stdout = memorySink();
  const stderr = memorySink();
  const io: CliIO = { stdout, stderr, env: {}, cwd: dir };
  const command = createTuneCommand(io, deps).exitOverride();
  const error = await parseCapturingError(command, args);
  return { stdout: stdout.text(), stderr: stderr.text(), error };
}

const vastFlags = ["--ram", "2TiB", "--memory-limit", "251GiB", "--cores", "32", "--gpus", "2xRTX3090"];
const tinyFlags = ["--ram", "56GB", "--cores", "32", "--gpus", "2xRTX3090"];

const detected: DetectedHardware = {
  spec: {
    ramBytes: 2048 * GiB,
    usableRamBytes: 251 * GiB,
    cpuThreads: 32,
    hostCpuThreads: 384,
    gpus: [
      { model: "A40", vramBytes: 48e9 },
      { model: "A40", vramBytes: 48e9 },
    ],
  },
  readings: {
    ramBytes: { value: 2048 * GiB, source: "/proc/meminfo MemTotal" },
    usableRamBytes: { value: 251 * GiB, source: "cgroup v2 memory.low" },
    cpuThreads: { value: 32, source: "cgroup v2 cpu.max" },
    hostCpuThreads: { value: 384, source: "/sys/devices/system/cpu/online" },
    gpus: {
      value: [
        { model: "A40", vramBytes: 48e9 },
        { model: "A40", vramBytes: 48e9 },
      ],
      source: "nvidia-smi",
    },
  },
  observations: [],
  notes: [],
};
const detect = async () => detected;

describe("cuzkit tune: formats", () => {
  it("text (default) explains the choice for people", async () => {
    const { stdout, error } = await run(vastFlags);
    expect(error).toBeUndefined();
    expect(stdout).toMatch(/^cuzkit tune: budget daemon, workload porep/);
    expect(stdout).toMatch(/^Safe: modelled peak/m);
    expect(stdout).toMatch(/memory\.total_budget: 225\.0 GiB/);
    expect(stdout).toMatch(/^cuzk\.toml:$/m);
  });

  it("toml is a cuzk.toml the daemon reads without findings", async () => {
    const { stdout, error } = await run([...vastFlags, "--format", "toml"]);
    expect(error).toBeUndefined();
    const read = readCuzkConfig(stdout);
    expect(read.findings).toEqual([]);
    expect(read.raw).toMatchObject({ memory: { total_budget: "225GiB" }, scheduler: { max_batch_size: 1 } });
  });

  it("json carries config, bench, warmup, predicted, reasons, warnings and hardware sources when detected", async () => {
    const { stdout, error } = await run(["--detect", "--format", "json", "--dialect", "partition-workers"], {
      detect,
    });
    expect(error).toBeUndefined();
    const report = JSON.parse(stdout);
    expect(report.config.synthesis.partition_workers).toBeGreaterThan(0);
    expect(report.config.memory).toBeUndefined();
    expect(report.bench.concurrency).toBeGreaterThan(0);
    expect(report.warmup.restart).toBe(true);
    expect(report.predicted.peakMemoryBytes).toBeLessThanOrEqual(251 * GiB);
    expect(report.predicted.proofsPerHour).toBeGreaterThan(0);
    expect(report.reasons.length).toBeGreaterThan(5);
    expect(report.warnings.map((w: { code: string }) => w.code)).toContain("CONTAINER_LIMIT");
    expect(report.hardware.sources.usableRamBytes).toBe("cgroup v2 memory.low");
  });

  it("env prints quoted export lines", async () => {
    const { stdout } = await run([...vastFlags, "--format", "env"]);
    expect(stdout).toMatch(/^export CUZK_TOTAL_BUDGET='225GiB'$/m);
    expect(stdout).toMatch(/^export CUZK_BENCH_CONCURRENCY='\d+'$/m);
  });

  it("curio prints the [Cuzk] section with the address", async () => {
    const { stdout } = await run([...vastFlags, "--format", "curio", "--addr", "127.0.0.1:9820"]);
    const parsed = parse(stdout) as { Cuzk: { Address: string; MaxPending: number; ProveTimeout: string } };
    expect(parsed.Cuzk.Address).toBe("127.0.0.1:9820");
    expect(parsed.Cuzk.MaxPending).toBeGreaterThan(0);
    expect(parsed.Cuzk.ProveTimeout).toMatch(/m0s$/);
  });

  it("--detect takes the machine from detection, with flags overriding it", async () => {
    const { stdout } = await run(["--detect", "--format", "json", "--memory-limit", "200GiB"], { detect });
    const report = JSON.parse(stdout);
    expect(report.hardware.usableRamBytes).toBe(200 * GiB);
    expect(report.hardware.sources.usableRamBytes).toBe("--memory-limit");
    expect(report.hardware.sources.cpuThreads).toBe("cgroup v2 cpu.max");
  });

  it("--out writes the file atomically and leaves no temporary file", async () => {
    const { stdout, stderr, error } = await run([...vastFlags, "--format", "toml", "--out", "cuzk.toml"]);
    expect(error).toBeUndefined();
    expect(stdout).toBe("");
    expect(stderr).toMatch(/^wrote .*cuzk\.toml/);
    expect(readCuzkConfig(readFileSync(join(dir, "cuzk.toml"), "utf8")).findings).toEqual([]);
    expect(readdirSync(dir)).toEqual(["cuzk.toml"]);
  });
});

describe("cuzkit tune: a machine too small", () => {
  it("refuses toml, env and curio with a typed error and writes nothing", async () => {
    for (const format of ["toml", "env", "curio"]) {
      const { stdout, error } = await run([...tinyFlags, "--format", format, "--out", "cuzk.out"]);
      expect(stdout).toBe("");
      expect(CuzkitError.is(error)).toBe(true);
      expect((error as CuzkitError).code).toBe("UNSAFE_CONFIG");
      expect((error as CuzkitError).message).toMatch(/peaks at .* GiB .* usable/);
    }
    expect(readdirSync(dir)).toEqual([]);
  });

  it("prints the explanation in text and json, then exits 2", async () => {
    const text = await run(tinyFlags);
    expect(text.stdout).toMatch(/NO SAFE CONFIG/);
    // One minimum, and no throughput for a config that would be OOM-killed.
    expect(new Set(text.stdout.match(/needs at least [\d.]+ GiB/g))).toEqual(
      new Set(["needs at least 137.0 GiB"]),
    );
    expect(text.stdout).toMatch(/^Predicted: no throughput/m);
    expect(text.stdout).not.toMatch(/[\d.]+ proofs\/hour \(/);
    expect((text.error as CommandExit).exitCode).toBe(2);
    const json = await run([...tinyFlags, "--format", "json"]);
    expect(JSON.parse(json.stdout)).toMatchObject({
      feasible: false,
      config: null,
      predicted: { proofsPerHour: 0 },
    });
    expect(json.error).toBeInstanceOf(CommandExit);
  });

  it("--force refuses too when nothing fits even with the margin waived, and writes nothing", async () => {
    const { stdout, error } = await run([...tinyFlags, "--format", "toml", "--force", "--out", "cuzk.toml"]);
    expect(stdout).toBe("");
    expect((error as CuzkitError).code).toBe("UNSAFE_CONFIG");
    expect((error as CuzkitError).hint).toMatch(/force: true writes nothing/);
    expect(readdirSync(dir)).toEqual([]);
  });

  it("--force writes a config that fits the usable RAM with the margin waived, explicit budget and cap", async () => {
    const marginal = ["--ram", "128GiB", "--cores", "192", "--gpus", "1xRTX5070Ti"];
    const refused = await run([...marginal, "--format", "toml"]);
    expect((refused.error as CuzkitError).code).toBe("UNSAFE_CONFIG");
    const { stdout, error } = await run([...marginal, "--format", "toml", "--force"]);
    expect(error).toBeUndefined();
    expect(stdout).toMatch(/^# FORCED: no config fits with the 12\.8 GiB safety margin; this one waives it/);
    const read = readCuzkConfig(stdout);
    expect(read.findings).toEqual([]);
    expect(read.raw).toMatchObject({
      memory: { total_budget: "128GiB" },
      pipeline: { max_parallel_synthesis: 2 },
    });
  });
});

describe("cuzkit tune --check", () => {
  const write = (name: string, text: string) => {
    writeFileSync(join(dir, name), text);
    return name;
  };

  it("exits 0 for the tuner's own config", async () => {
    const toml = (await run([...vastFlags, "--format", "toml"])).stdout;
    const { stdout, error } = await run([...vastFlags, "--check", write("ok.toml", toml)]);
    expect(error).toBeUndefined();
    expect(stdout).toMatch(/^cuzkit tune --check: OK/);
  });

  it("exits 2 for a config that would OOM, after printing why and what to change", async () => {
    const file = write(
      "incident.toml",
      "[synthesis]\npartition_workers = 16\n[gpus]\ngpu_workers_per_device = 2\ngpu_threads = 32\n",
    );
    const { stdout, error } = await run([
      "--ram",
      "256GiB",
      "--cores",
      "64",
      "--gpus",
      "2xRTX4090",
      "--concurrency",
      "6",
      "--dialect",
      "partition-workers",
      "--check",
      file,
    ]);
    expect((error as CommandExit).exitCode).toBe(2);
    expect(stdout).toMatch(/WOULD OOM \(steady\)/);
    expect(stdout).toMatch(/^Modelled: no throughput as configured/m);
    expect(stdout).not.toMatch(/[\d.]+ proofs\/hour as configured/);
    expect(stdout).toMatch(/synthesis\.partition_workers: 16 -> \d+/);
  });

  it("exits 2 for a size the daemon misreads, also in json", async () => {
    const file = write("misread.toml", '[memory]\ntotal_budget = "1TiB"\n');
    const { stdout, error } = await run([
      "--ram",
      "2TiB",
      "--cores",
      "192",
      "--gpus",
      "1xRTX5070Ti",
      "--check",
      file,
      "--format",
      "json",
    ]);
    expect((error as CommandExit).exitCode).toBe(2);
    const result = JSON.parse(stdout);
    expect(result.findings[0]).toMatchObject({ kind: "misread", key: "memory.total_budget" });
    expect(result.recommendation.config.memory.total_budget).toMatch(/^\d+GiB$/);
  });

  it("checks as the current daemon by default: partition_workers = 3 on 256 GiB would OOM under its auto budget", async () => {
    const file = write("old.toml", "[synthesis]\npartition_workers = 3\n");
    const box = ["--ram", "256GiB", "--cores", "192", "--gpus", "1xRTX5070Ti", "--concurrency", "6"];
    const current = await run([...box, "--check", file]);
    expect((current.error as CommandExit).exitCode).toBe(2);
    expect(current.stdout).toMatch(/^Read as the budget daemon/m);
    expect(current.stdout).toMatch(
      /^It will run 1[2-8] partition\(s\) synthesizing at once \(limited by memory budget/m,
    );
    expect(current.stdout).toMatch(/looks written for the partition-workers daemon/);
    const older = await run([...box, "--check", file, "--dialect", "partition-workers"]);
    expect(older.error).toBeUndefined();
    expect(older.stdout).toMatch(/^cuzkit tune --check: OK/);
  });

  it("refuses formats other than text and json, and a missing file", async () => {
    const file = write("x.toml", "");
    expect(((await run([...vastFlags, "--check", file, "--format", "toml"])).error as Error).message).toMatch(
      /--check prints text or json/,
    );
    const missing = (await run([...vastFlags, "--check", "nope.toml"])).error as CuzkitError;
    expect(missing.code).toBe("INVALID_INPUT");
    expect(missing.message).toMatch(/cannot read .*nope\.toml/);
  });
});

describe("cuzkit tune: bad flags", () => {
  const bad = async (args: string[], message: RegExp) => {
    const { error } = await run(args);
    expect(CuzkitError.is(error)).toBe(true);
    expect((error as CuzkitError).message).toMatch(message);
    expect((error as CuzkitError).hint.length).toBeGreaterThan(0);
  };

  const hinted = async (args: string[], message: RegExp, hint: RegExp) => {
    const { error, stdout } = await run(args);
    expect(stdout).toBe("");
    expect((error as CuzkitError).code).toBe("INVALID_INPUT");
    expect((error as CuzkitError).message).toMatch(message);
    expect((error as CuzkitError).hint).toMatch(hint);
  };

  it("needs the hardware: --detect, or --ram, --cores and --gpus", async () => {
    await hinted([], /no hardware given: --ram, --cores, --gpus missing/, /--detect/);
    await hinted(
      ["--ram", "256GiB", "--cores", "32"],
      /describing a machine needs --ram, --cores and --gpus: --gpus missing/,
      /--gpus none/,
    );
  });

  it("needs a unit on sizes: a bare number gets a did-you-mean, G is refused as ambiguous", async () => {
    const gpus = ["--cores", "32", "--gpus", "2xRTX3090"];
    await hinted(["--ram", "256", ...gpus], /--ram size "256" has no unit/, /did you mean "256GiB"\?/);
    await hinted(["--ram", "256G", ...gpus], /ambiguous unit "G"/, /256GiB .* or 256GB/);
    await hinted(
      ["--ram", "2TiB", "--memory-limit", "240", ...gpus],
      /--memory-limit size "240" has no unit/,
      /240GiB/,
    );
    await hinted([...vastFlags, "--safety-margin", "16G"], /ambiguous unit "G"/, /16GiB/);
  });

  it("refuses an --addr the daemon could not listen on", async () => {
    await hinted(
      [...vastFlags, "--addr", "localhost:9820"],
      /refuse to start with --addr "localhost:9820"/,
      /^write 127\.0\.0\.1:9820$/,
    );
    await hinted(
      [...vastFlags, "--format", "curio", "--addr", "cuzk:9820"],
      /does not resolve host names/,
      /literal IP/,
    );
    const ok = await run([...vastFlags, "--format", "toml", "--addr", "[::1]:9820"]);
    expect(ok.error).toBeUndefined();
    expect(readCuzkConfig(ok.stdout).raw).toMatchObject({ daemon: { listen: "[::1]:9820" } });
  });

  it("takes the Curio knobs: --min-prove-timeout and --post-slots", async () => {
    const { stdout } = await run([
      ...vastFlags,
      "--format",
      "curio",
      "--min-prove-timeout",
      "45m",
      "--post-slots",
      "3",
    ]);
    const parsed = parse(stdout) as { Cuzk: { MaxPending: number; ProveTimeout: string } };
    const minutes = (text: string) => {
      const m = /^(?:(\d+)h)?(\d+)m0s$/.exec(text);
      return Number(m?.[1] ?? 0) * 60 + Number(m?.[2] ?? 0);
    };
    expect(minutes(parsed.Cuzk.ProveTimeout)).toBeGreaterThanOrEqual(45);
    const plain = parse((await run([...vastFlags, "--format", "curio"])).stdout) as typeof parsed;
    expect(minutes(plain.Cuzk.ProveTimeout)).toBeGreaterThanOrEqual(30);
    expect(plain.Cuzk.MaxPending).toBeLessThan(parsed.Cuzk.MaxPending);
    const json = JSON.parse((await run([...vastFlags, "--format", "json", "--post-slots", "3"])).stdout);
    expect(json.curio.MaxPending).toBe(json.bench.concurrency + 3);
  });

  it("rejects each bad value with a clear error and a hint", async () => {
    await bad(["--ram", "lots", "--cores", "8", "--gpus", "none"], /cannot read the size "lots"/);
    await bad(["--ram", "256GiB", "--cores", "eight", "--gpus", "none"], /--cores must be a whole number/);
    await bad(["--ram", "256GiB", "--cores", "8", "--gpus", "2xFancy"], /unknown GPU model "Fancy"/);
    await bad(
      ["--ram", "256GiB", "--cores", "8", "--gpus", "none", "--memory-limit", "x"],
      /cannot read the size "x"/,
    );
    await bad([...vastFlags, "--dialect", "old"], /unknown --dialect "old"/);
    await bad([...vastFlags, "--workload", "c2"], /unknown --workload "c2"/);
    await bad([...vastFlags, "--format", "yaml"], /unknown --format "yaml"/);
    await bad([...vastFlags, "--safety-margin", "lots"], /cannot read the safety margin/);
    await bad([...vastFlags, "--safety-margin", "150%"], /fraction/);
    await bad([...vastFlags, "--concurrency", "0"], /--concurrency must be a whole number/);
  });

  it("leaves unknown options to commander", async () => {
    const { error } = await run(["--bogus"]);
    expect(error).toBeInstanceOf(CommanderError);
  });

  it("reads safety margins as percentages, fractions or sizes", () => {
    expect(parseSafetyMargin("10%")).toEqual({ safetyMarginFraction: 0.1 });
    expect(parseSafetyMargin("0.15")).toEqual({ safetyMarginFraction: 0.15 });
    expect(parseSafetyMargin("16GiB")).toEqual({ safetyMarginFraction: 0, minSafetyMarginBytes: 16 * GiB });
    expect(() => parseSafetyMargin("5")).toThrow(/safety margin/);
  });
});
