import { existsSync, readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { findGpuModel, GiB } from "@cuzkit/core";
import { describe, expect, it } from "vitest";
import { detectHardware } from "./detect-hardware.js";
import type { CommandResult, DetectOptions } from "./system.js";

const fixtures = fileURLToPath(new URL("./fixtures/", import.meta.url));

/** Runs nvidia-smi from a fixture file; a missing file means nvidia-smi is not installed. */
function fakeNvidiaSmi(csvPath: string | undefined, exitCode = 0): NonNullable<DetectOptions["runCommand"]> {
  return async (file) => {
    if (file !== "nvidia-smi" || csvPath === undefined || !existsSync(csvPath)) {
      throw Object.assign(new Error(`spawn ${file} ENOENT`), { code: "ENOENT" });
    }
    const result: CommandResult = { exitCode, stdout: readFileSync(csvPath, "utf8"), stderr: "" };
    return result;
  };
}

/** Detection on a fixture directory; the fallbacks must not be needed, so they fail loudly. */
function fromFixture(name: string, extra: DetectOptions = {}) {
  const root = `${fixtures}${name}`;
  return detectHardware({
    procRoot: `${root}/proc`,
    sysRoot: `${root}/sys`,
    platform: "linux",
    runCommand: fakeNvidiaSmi(`${root}/nvidia-smi.csv`),
    totalMemoryBytes: () => -1,
    hostCpuCount: () => -1,
    availableParallelism: () => -1,
    ...extra,
  });
}

describe("detectHardware on fixtures", () => {
  it("Vast.ai-like cgroup v2 container: memory.low is the allotment, cpu.max the CPUs, /proc shows the host", async () => {
    const hw = await fromFixture("vast-v2");
    expect(hw.spec.ramBytes).toBe(2113551516 * 1024);
    expect(hw.spec.usableRamBytes).toBe(251 * GiB);
    expect(hw.readings.usableRamBytes.source).toBe("cgroup v2 memory.low");
    expect(hw.spec.cpuThreads).toBe(32);
    expect(hw.readings.cpuThreads.source).toBe("cgroup v2 cpu.max");
    expect(hw.spec.hostCpuThreads).toBe(384);
    expect(hw.readings.ramBytes.source).toBe("/proc/meminfo MemTotal");
    expect(hw.spec.gpus).toEqual([
      { model: "RTX 3090", vramBytes: 24576 * 1024 ** 2 },
      { model: "RTX 3090", vramBytes: 24576 * 1024 ** 2 },
    ]);
    expect(hw.readings.gpus.source).toBe("nvidia-smi");
    // The higher hard limit is recorded but does not bind.
    expect(hw.observations).toContainEqual({ value: 301 * GiB, source: "cgroup v2 memory.max" });
    expect(hw.observations).toContainEqual({ value: "v2", source: "cgroup version" });
  });

  it("cgroup v1 container: memory.limit_in_bytes binds, the unlimited soft limit is ignored, CFS quota gives the CPUs", async () => {
    const hw = await fromFixture("cgroup-v1");
    expect(hw.spec.ramBytes).toBe(263921592 * 1024);
    expect(hw.spec.usableRamBytes).toBe(128 * GiB);
    expect(hw.readings.usableRamBytes.source).toBe("cgroup v1 memory.limit_in_bytes");
    expect(hw.observations.some((o) => o.source === "cgroup v1 memory.soft_limit_in_bytes")).toBe(false);
    expect(hw.spec.cpuThreads).toBe(8);
    expect(hw.readings.cpuThreads.source).toBe("cgroup v1 cpu.cfs_quota_us/cpu.cfs_period_us");
    expect(hw.spec.hostCpuThreads).toBe(64);
    expect(hw.spec.gpus.map((g) => g.model)).toEqual(["A40", "A40"]);
  });

  it("bare metal with cgroup v2 and no limits: everything is the host's", async () => {
    const hw = await fromFixture("bare-metal");
    expect(hw.spec.usableRamBytes).toBe(hw.spec.ramBytes);
    expect(hw.readings.usableRamBytes.source).toBe("/proc/meminfo MemTotal (no lower container limit)");
    expect(hw.spec.cpuThreads).toBe(192);
    expect(hw.readings.cpuThreads.source).toBe("/proc/self/status Cpus_allowed_list");
    expect(hw.spec.gpus).toEqual([{ model: "RTX 5070 Ti", vramBytes: 16303 * 1024 ** 2 }]);
  });

  it("hybrid v1 + unified: the process's own v1 memory cgroup binds (soft limit lowest); no GPU", async () => {
    const hw = await fromFixture("hybrid");
    expect(hw.spec.usableRamBytes).toBe(12 * GiB);
    expect(hw.readings.usableRamBytes.source).toBe("cgroup v1 memory.soft_limit_in_bytes");
    expect(hw.observations).toContainEqual({ value: 16 * GiB, source: "cgroup v1 memory.limit_in_bytes" });
    expect(hw.observations).toContainEqual({ value: "hybrid", source: "cgroup version" });
    expect(hw.spec.cpuThreads).toBe(2);
    expect(hw.spec.gpus).toEqual([]);
    expect(hw.readings.gpus.source).toBe("nvidia-smi not found");
    expect(hw.notes.join("\n")).toMatch(/nvidia-smi is not installed/);
  });

  it("nvidia-smi that fails (driver not loaded) gives no GPU and says why", async () => {
    const hw = await fromFixture("bare-metal", {
      runCommand: async () => ({
        exitCode: 9,
        stdout: "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n",
        stderr: "",
      }),
    });
    expect(hw.spec.gpus).toEqual([]);
    expect(hw.readings.gpus.source).toBe("nvidia-smi failed (exit 9)");
    expect(hw.notes.join("\n")).toMatch(/couldn't communicate with the NVIDIA driver/);
    const crashed = await fromFixture("bare-metal", {
      runCommand: async () => {
        throw Object.assign(new Error("spawn nvidia-smi EACCES"), { code: "EACCES" });
      },
    });
    expect(crashed.readings.gpus.source).toBe("nvidia-smi could not run");
  });

  it("falls back to os values where /proc and /sys cannot be read, and on other systems", async () => {
    const empty = await detectHardware({
      procRoot: `${fixtures}does-not-exist/proc`,
      sysRoot: `${fixtures}does-not-exist/sys`,
      platform: "linux",
      runCommand: fakeNvidiaSmi(undefined),
      totalMemoryBytes: () => 64 * GiB,
      hostCpuCount: () => 16,
      availableParallelism: () => 12,
    });
    expect(empty.spec).toEqual({
      ramBytes: 64 * GiB,
      usableRamBytes: 64 * GiB,
      cpuThreads: 12,
      hostCpuThreads: 16,
      gpus: [],
    });
    expect(empty.readings.ramBytes.source).toBe("os.totalmem()");
    expect(empty.readings.cpuThreads.source).toBe("os.availableParallelism()");
    expect(empty.notes.join("\n")).toMatch(/MemTotal/);
    let reads = 0;
    const mac = await detectHardware({
      platform: "darwin",
      readFile: async () => {
        reads++;
        return "";
      },
      runCommand: fakeNvidiaSmi(undefined),
      totalMemoryBytes: () => 32 * GiB,
      hostCpuCount: () => 10,
      availableParallelism: () => 10,
    });
    expect(reads).toBe(0);
    expect(mac.spec.ramBytes).toBe(32 * GiB);
    expect(mac.readings.hostCpuThreads.source).toBe("os.cpus()");
  });

  const h200 = `${fixtures}h200`;
  it.skipIf(!existsSync(h200))("the recording from a real H200 machine reads sanely", async () => {
    const count = (file: string) =>
      existsSync(`${h200}/${file}`) ? Number(readFileSync(`${h200}/${file}`, "utf8").trim()) : undefined;
    // nproc and nproc --all stand in for the fallbacks when the recording lacks a /proc or /sys file.
    const nproc = count("nproc.txt");
    const nprocAll = count("nproc-all.txt");
    const hw = await fromFixture("h200", {
      ...(nproc ? { availableParallelism: () => nproc } : {}),
      ...(nprocAll ? { hostCpuCount: () => nprocAll } : {}),
    });
    expect(hw.spec.ramBytes).toBeGreaterThan(16 * GiB);
    expect(hw.readings.ramBytes.source).toBe("/proc/meminfo MemTotal");
    expect(hw.spec.usableRamBytes).toBeLessThanOrEqual(hw.spec.ramBytes);
    expect(hw.spec.cpuThreads).toBeGreaterThanOrEqual(1);
    if (nproc !== undefined) expect(hw.spec.cpuThreads).toBeLessThanOrEqual(nproc);
    if (nprocAll !== undefined) expect(hw.spec.hostCpuThreads).toBe(nprocAll);
    expect(hw.spec.gpus.length).toBeGreaterThanOrEqual(1);
    for (const gpu of hw.spec.gpus) {
      expect(findGpuModel(gpu.model)?.name).toBe("H200");
      expect(gpu.vramBytes).toBeGreaterThan(100e9);
    }
  });
});

describe("detectHardware on this machine", () => {
  it("returns sane values, each with a source", async () => {
    const hw = await detectHardware();
    expect(hw.spec.ramBytes).toBeGreaterThan(0);
    expect(hw.spec.usableRamBytes).toBeGreaterThan(0);
    expect(hw.spec.usableRamBytes).toBeLessThanOrEqual(hw.spec.ramBytes);
    expect(hw.spec.cpuThreads).toBeGreaterThanOrEqual(1);
    expect(hw.spec.hostCpuThreads).toBeGreaterThanOrEqual(hw.spec.cpuThreads);
    for (const reading of Object.values(hw.readings)) expect(reading.source.length).toBeGreaterThan(0);
  });
});
