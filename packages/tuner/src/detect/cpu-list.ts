/**
 * Counts the CPUs in a kernel CPU list such as "0-3,8-11" or "0,2,4" (Cpus_allowed_list,
 * /sys/devices/system/cpu/online). Returns undefined for text that is not a CPU list.
 */
export function countCpuList(text: string): number | undefined {
  const trimmed = text.trim();
  if (!/^\d+(-\d+)?(,\d+(-\d+)?)*$/.test(trimmed)) return undefined;
  let count = 0;
  for (const part of trimmed.split(",")) {
    const [from, to] = part.split("-").map(Number) as [number, number | undefined];
    const end = to ?? from;
    if (end < from) return undefined;
    count += end - from + 1;
  }
  return count;
}

/** Cpus_allowed_list from /proc/self/status text, counted. */
export function parseCpusAllowed(status: string): number | undefined {
  const match = /^Cpus_allowed_list:\s*(\S+)\s*$/m.exec(status);
  return match?.[1] === undefined ? undefined : countCpuList(match[1]);
}

/** Counts "processor" lines of /proc/cpuinfo. */
export function countCpuinfoProcessors(cpuinfo: string): number | undefined {
  const count = cpuinfo.split("\n").filter((line) => /^processor\s*:/.test(line)).length;
  return count > 0 ? count : undefined;
}
