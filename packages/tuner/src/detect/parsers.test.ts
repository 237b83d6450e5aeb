import { readFileSync } from "node:fs";
import { GiB, MiB } from "@cuzkit/core";
import { describe, expect, it } from "vitest";
import { parseCpuMax, parseLimit, parseProcSelfCgroup, quotaThreads } from "./cgroup.js";
import { countCpuinfoProcessors, countCpuList, parseCpusAllowed } from "./cpu-list.js";
import { parseMemTotal } from "./meminfo.js";
import { parseNvidiaSmiCsv } from "./nvidia-smi.js";

describe("nvidia-smi output", () => {
  it("reads odd output: extra spaces, [N/A], unknown models, garbage lines", () => {
    const text = readFileSync(new URL("./fixtures/odd-nvidia-smi.csv", import.meta.url), "utf8");
    const { gpus, notes } = parseNvidiaSmiCsv(text);
    expect(gpus).toEqual([
      { model: "RTX 3090", vramBytes: 24576 * MiB },
      { model: "A40", vramBytes: 48e9 },
      { model: "unknown GPU", vramBytes: 0 },
      { model: "Future GPU 9000", vramBytes: 16384 * MiB },
      { model: "RTX 3080", vramBytes: 10240 * MiB },
    ]);
    expect(notes.filter((n) => n.includes("skipped"))).toHaveLength(2);
    expect(notes.join("\n")).toMatch(/GPU 1 memory is "\[N\/A\]"; assumed A40/);
    expect(notes.join("\n")).toMatch(/GPU 2 .* VRAM unknown/);
  });

  it("reads nothing from empty or CRLF output without throwing", () => {
    expect(parseNvidiaSmiCsv("")).toEqual({ gpus: [], notes: [] });
    expect(parseNvidiaSmiCsv("0, NVIDIA H200, 143771\r\n").gpus).toEqual([
      { model: "H200", vramBytes: 143771 * MiB },
    ]);
  });
});

describe("cgroup files", () => {
  it("parses /proc/self/cgroup for v2, v1 and hybrid", () => {
    expect(parseProcSelfCgroup("0::/\n")).toEqual({ v2: "/", v1: new Map() });
    const v1 = parseProcSelfCgroup("11:memory:/docker/abc\n4:cpu,cpuacct:/docker/abc\n1:name=systemd:/x\n");
    expect(v1.v2).toBeUndefined();
    expect(v1.v1.get("memory")).toBe("/docker/abc");
    expect(v1.v1.get("cpu,cpuacct")).toBe("/docker/abc");
  });

  it("treats max, 0, unlimited and garbage as no limit", () => {
    expect(parseLimit("max\n")).toBeUndefined();
    expect(parseLimit("0")).toBeUndefined();
    expect(parseLimit("9223372036854771712")).toBeUndefined();
    expect(parseLimit("9223372036854710272")).toBeUndefined();
    expect(parseLimit("-1")).toBeUndefined();
    expect(parseLimit("lots")).toBeUndefined();
    expect(parseLimit(`${251 * GiB}\n`)).toBe(251 * GiB);
  });

  it("reads CPU quotas, rounding down to whole threads and never below 1", () => {
    expect(parseCpuMax("3200000 100000\n")).toBe(32);
    expect(parseCpuMax("max 100000")).toBeUndefined();
    expect(parseCpuMax("150000 100000")).toBe(1);
    expect(parseCpuMax("50000 100000")).toBe(1);
    expect(parseCpuMax("nonsense")).toBeUndefined();
    expect(quotaThreads(-1, 100000)).toBeUndefined();
    expect(quotaThreads(800000, 100000)).toBe(8);
  });
});

describe("proc files", () => {
  it("reads MemTotal in kB", () => {
    expect(parseMemTotal("MemTotal:       131981020 kB\nMemFree: 1 kB\n")).toBe(131981020 * 1024);
    expect(parseMemTotal("MemFree: 1 kB\n")).toBeUndefined();
  });

  it("counts CPU lists", () => {
    expect(countCpuList("0-383")).toBe(384);
    expect(countCpuList("0-3,8-11\n")).toBe(8);
    expect(countCpuList("0,2,4")).toBe(3);
    expect(countCpuList("3-1")).toBeUndefined();
    expect(countCpuList("")).toBeUndefined();
    expect(parseCpusAllowed("Name:\tx\nCpus_allowed:\tff\nCpus_allowed_list:\t0-7\n")).toBe(8);
    expect(countCpuinfoProcessors("processor\t: 0\nmodel name\t: x\n\nprocessor\t: 1\n")).toBe(2);
  });
});
