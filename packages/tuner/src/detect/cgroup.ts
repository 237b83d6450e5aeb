import { type ResolvedDetectOptions, tryRead } from "./system.js";
import type { Reading } from "./types.js";

// Container limits from cgroup v2 and v1. Vast.ai gives a container its real RAM share as the
// SOFT limit (memory.low on v2, memory.soft_limit_in_bytes on v1) and sets the hard limit
// (memory.max / memory.limit_in_bytes) higher; /proc/meminfo and nproc still show the host.

/** Values at or above this are the kernel's "no limit" (v1 writes 9223372036854771712). */
const unlimitedAtLeast = 2 ** 60;

/** The cgroup paths of this process, from /proc/self/cgroup. */
export interface CgroupPaths {
  /** The unified (v2) path, from the `0::/path` line. */
  v2?: string | undefined;
  /** v1 controller lists ("memory", "cpu,cpuacct") to their paths. */
  v1: Map<string, string>;
}

/** Parses /proc/self/cgroup text. */
export function parseProcSelfCgroup(text: string): CgroupPaths {
  const paths: CgroupPaths = { v1: new Map() };
  for (const line of text.split("\n")) {
    const match = /^(\d+):([^:]*):(.*)$/.exec(line.trim());
    if (!match) continue;
    const [, id, controllers, path] = match as unknown as [string, string, string, string];
    if (id === "0" && controllers === "") paths.v2 = path;
    else if (controllers !== "") paths.v1.set(controllers, path);
  }
  return paths;
}

/** A limit file's value in bytes (or a count), or undefined for "max", unlimited, 0 or garbage. */
export function parseLimit(text: string): number | undefined {
  const trimmed = text.trim();
  if (!/^\d+$/.test(trimmed)) return undefined;
  const value = Number(trimmed);
  return value > 0 && value < unlimitedAtLeast ? value : undefined;
}

/** CPU threads from cgroup v2 cpu.max ("3200000 100000"), rounded down, at least 1; undefined for "max". */
export function parseCpuMax(text: string): number | undefined {
  const match = /^\s*(\d+|max)\s+(\d+)\s*$/.exec(text);
  if (!match || match[1] === "max") return undefined;
  return quotaThreads(Number(match[1]), Number(match[2]));
}

/** CPU threads from a CFS quota and period in microseconds (quota -1 = none). */
export function quotaThreads(quotaUs: number, periodUs: number): number | undefined {
  if (!(quotaUs > 0) || !(periodUs > 0)) return undefined;
  return Math.max(1, Math.floor(quotaUs / periodUs));
}

/** A directory and its ancestors up to (and including) `root`, deepest first, without repeats. */
function withAncestors(root: string, path: string): string[] {
  const parts = path.split("/").filter((p) => p !== "" && p !== "." && p !== "..");
  const dirs: string[] = [];
  for (let n = parts.length; n >= 0; n--)
    dirs.push(n === 0 ? root : `${root}/${parts.slice(0, n).join("/")}`);
  return [...new Set(dirs)];
}

interface LimitFile {
  /** How the source reads: "cgroup v2 memory.low". */
  label: string;
  /** Directories to look in (own cgroup first, then ancestors). */
  dirs: string[];
  file: string;
  parse: (text: string) => number | undefined;
}

/** Reads one limit across the candidate directories: the smallest value found, with its path. */
async function readLimit(
  options: ResolvedDetectOptions,
  limit: LimitFile,
): Promise<Reading<number> | undefined> {
  let found: Reading<number> | undefined;
  for (const dir of limit.dirs) {
    const text = await tryRead(options, `${dir}/${limit.file}`);
    if (text === undefined) continue;
    const value = limit.parse(text);
    if (value !== undefined && (found === undefined || value < found.value)) {
      found = { value, source: limit.label };
    }
  }
  return found;
}

/** Every cgroup limit that bounds this process: memory limits in bytes and CPU quota in threads. */
export interface CgroupLimits {
  /** "v2", "v1", "hybrid" or "none". */
  version: "v2" | "v1" | "hybrid" | "none";
  /** Memory limits found (hard, high, soft), each with its source. */
  memory: Reading<number>[];
  /** CPU quota in threads, with its source. */
  cpu: Reading<number>[];
}

/** Reads the cgroup limits of this process (v2, v1 or both), tolerating any missing file. */
export async function readCgroupLimits(options: ResolvedDetectOptions): Promise<CgroupLimits> {
  const cgroupRoot = `${options.sysRoot}/fs/cgroup`;
  const selfText = await tryRead(options, `${options.procRoot}/self/cgroup`);
  const paths = selfText === undefined ? { v1: new Map<string, string>() } : parseProcSelfCgroup(selfText);
  // Pure v2 mounts the unified hierarchy at /sys/fs/cgroup; hybrid systems at /sys/fs/cgroup/unified.
  const unifiedRoot =
    (await tryRead(options, `${cgroupRoot}/cgroup.controllers`)) !== undefined
      ? cgroupRoot
      : (await tryRead(options, `${cgroupRoot}/unified/cgroup.controllers`)) !== undefined
        ? `${cgroupRoot}/unified`
        : undefined;
  const unified = unifiedRoot !== undefined;
  const v2Dirs = withAncestors(unifiedRoot ?? cgroupRoot, paths.v2 ?? "/");
  const v1Dirs = (controller: string): string[] => {
    const entry = [...paths.v1].find(([controllers]) => controllers.split(",").includes(controller));
    const names = [...new Set([entry?.[0], controller].filter((n): n is string => n !== undefined))];
    return [...new Set(names.flatMap((name) => withAncestors(`${cgroupRoot}/${name}`, entry?.[1] ?? "/")))];
  };
  const files: LimitFile[] = [
    { label: "cgroup v2 memory.max", dirs: v2Dirs, file: "memory.max", parse: parseLimit },
    { label: "cgroup v2 memory.high", dirs: v2Dirs, file: "memory.high", parse: parseLimit },
    { label: "cgroup v2 memory.low", dirs: v2Dirs, file: "memory.low", parse: parseLimit },
    {
      label: "cgroup v1 memory.limit_in_bytes",
      dirs: v1Dirs("memory"),
      file: "memory.limit_in_bytes",
      parse: parseLimit,
    },
    {
      label: "cgroup v1 memory.soft_limit_in_bytes",
      dirs: v1Dirs("memory"),
      file: "memory.soft_limit_in_bytes",
      parse: parseLimit,
    },
  ];
  const memory: Reading<number>[] = [];
  for (const file of files) {
    const reading = await readLimit(options, file);
    if (reading) memory.push(reading);
  }
  const cpu: Reading<number>[] = [];
  const v2Cpu = await readLimit(options, {
    label: "cgroup v2 cpu.max",
    dirs: v2Dirs,
    file: "cpu.max",
    parse: parseCpuMax,
  });
  if (v2Cpu) cpu.push(v2Cpu);
  let v1Cpu: number | undefined;
  for (const dir of v1Dirs("cpu")) {
    const quota = await tryRead(options, `${dir}/cpu.cfs_quota_us`);
    const period = await tryRead(options, `${dir}/cpu.cfs_period_us`);
    if (quota === undefined || period === undefined) continue;
    const threads = quotaThreads(Number(quota.trim()), Number(period.trim()));
    if (threads !== undefined && (v1Cpu === undefined || threads < v1Cpu)) v1Cpu = threads;
  }
  if (v1Cpu !== undefined) cpu.push({ value: v1Cpu, source: "cgroup v1 cpu.cfs_quota_us/cpu.cfs_period_us" });
  const hasV1 = paths.v1.size > 0 || memory.some((r) => r.source.startsWith("cgroup v1"));
  const hasV2 = unified || paths.v2 !== undefined;
  const version = hasV1 && hasV2 ? "hybrid" : hasV2 ? "v2" : hasV1 ? "v1" : "none";
  return { version, memory, cpu };
}
