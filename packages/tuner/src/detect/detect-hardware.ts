import { formatBytes } from "@cuzkit/core";
import { readCgroupLimits } from "./cgroup.js";
import { countCpuinfoProcessors, countCpuList, parseCpusAllowed } from "./cpu-list.js";
import { parseMemTotal } from "./meminfo.js";
import { queryGpus } from "./nvidia-smi.js";
import { type DetectOptions, type ResolvedDetectOptions, resolveDetectOptions, tryRead } from "./system.js";
import type { DetectedHardware, Reading } from "./types.js";

function smallest(readings: Reading<number>[]): Reading<number> {
  return readings.reduce((a, b) => (b.value < a.value ? b : a));
}

function fallbackNumber(name: string, read: () => number): Reading<number> {
  try {
    const value = read();
    if (Number.isFinite(value) && value > 0) return { value, source: name };
  } catch {
    // fall through to the last resort below
  }
  return { value: 1, source: `${name} failed; 1 assumed` };
}

async function hostRam(
  options: ResolvedDetectOptions,
  linux: boolean,
  notes: string[],
): Promise<Reading<number>> {
  if (linux) {
    const text = await tryRead(options, `${options.procRoot}/meminfo`);
    const bytes = text === undefined ? undefined : parseMemTotal(text);
    if (bytes !== undefined) return { value: bytes, source: "/proc/meminfo MemTotal" };
    notes.push("could not read MemTotal from /proc/meminfo; used os.totalmem()");
  }
  return fallbackNumber("os.totalmem()", options.totalMemoryBytes);
}

async function hostThreads(
  options: ResolvedDetectOptions,
  linux: boolean,
  notes: string[],
): Promise<Reading<number>> {
  if (linux) {
    const online = await tryRead(options, `${options.sysRoot}/devices/system/cpu/online`);
    const count = online === undefined ? undefined : countCpuList(online);
    if (count !== undefined) return { value: count, source: "/sys/devices/system/cpu/online" };
    const cpuinfo = await tryRead(options, `${options.procRoot}/cpuinfo`);
    const processors = cpuinfo === undefined ? undefined : countCpuinfoProcessors(cpuinfo);
    if (processors !== undefined) return { value: processors, source: "/proc/cpuinfo" };
    notes.push("could not count the host's CPUs from /sys or /proc; used os.cpus()");
  }
  return fallbackNumber("os.cpus()", options.hostCpuCount);
}

async function affinityThreads(options: ResolvedDetectOptions, linux: boolean): Promise<Reading<number>> {
  if (linux) {
    const status = await tryRead(options, `${options.procRoot}/self/status`);
    const count = status === undefined ? undefined : parseCpusAllowed(status);
    if (count !== undefined) return { value: count, source: "/proc/self/status Cpus_allowed_list" };
  }
  return fallbackNumber("os.availableParallelism()", options.availableParallelism);
}

/**
 * Reads the machine: host RAM (/proc/meminfo), the container's memory allotment (cgroup v2
 * memory.max/high/low, v1 memory.limit_in_bytes/soft_limit_in_bytes; Vast.ai's real share is
 * the soft limit), CPU threads (affinity and cgroup quota) and GPUs (nvidia-smi). Every value
 * carries its source. Never throws: whatever cannot be read falls back (os.totalmem(),
 * os.cpus(), no GPU) with a note.
 */
export async function detectHardware(detectOptions: DetectOptions = {}): Promise<DetectedHardware> {
  const options = resolveDetectOptions(detectOptions);
  const linux = options.platform === "linux";
  const notes: string[] = [];
  const observations: Reading<number | string>[] = [];

  const ram = await hostRam(options, linux, notes);
  const host = await hostThreads(options, linux, notes);
  const affinity = await affinityThreads(options, linux);
  const limits = linux ? await readCgroupLimits(options) : { version: "none" as const, memory: [], cpu: [] };
  observations.push(
    { value: limits.version, source: "cgroup version" },
    ram,
    host,
    affinity,
    ...limits.memory,
    ...limits.cpu,
  );

  const usable = smallest([ram, ...limits.memory]);
  const usableReading: Reading<number> =
    usable === ram ? { value: ram.value, source: `${ram.source} (no lower container limit)` } : usable;
  for (const limit of limits.memory) {
    if (limit.value >= ram.value)
      notes.push(`${limit.source} (${formatBytes(limit.value)}) is not below the host RAM; it does not bind`);
  }
  const cpu = smallest([affinity, ...limits.cpu]);
  const hostCount = Math.max(host.value, cpu.value);
  const gpus = await queryGpus(options);
  notes.push(...gpus.notes);

  return {
    spec: {
      ramBytes: ram.value,
      usableRamBytes: usableReading.value,
      cpuThreads: cpu.value,
      hostCpuThreads: hostCount,
      gpus: gpus.reading.value,
    },
    readings: {
      ramBytes: ram,
      usableRamBytes: usableReading,
      cpuThreads: cpu,
      hostCpuThreads: hostCount === host.value ? host : { value: hostCount, source: cpu.source },
      gpus: gpus.reading,
    },
    observations,
    notes,
  };
}
