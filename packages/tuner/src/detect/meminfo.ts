/** MemTotal from /proc/meminfo text, in bytes (the file counts in KiB, written "kB"), or undefined. */
export function parseMemTotal(meminfo: string): number | undefined {
  const match = /^MemTotal:\s*(\d+)\s*(kB)?\s*$/m.exec(meminfo);
  if (!match) return undefined;
  const value = Number(match[1]) * (match[2] ? 1024 : 1);
  return Number.isFinite(value) && value > 0 ? value : undefined;
}
