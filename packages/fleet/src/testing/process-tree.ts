import { execFileSync } from "node:child_process";

/**
 * The pids of every process below `pid` (children, their children, ...), from `ps`. The market
 * needs it because an agent's daemon runs in a process group of its own (the bench supervisor
 * starts it so): killing the agent's group leaves the daemon running, as a killed container's
 * would not. Empty when `ps` is missing or fails.
 */
export function descendantPids(pid: number): number[] {
  let table: string;
  try {
    table = execFileSync("ps", ["-eo", "pid=,ppid="], { encoding: "utf8" });
  } catch {
    return [];
  }
  const children = new Map<number, number[]>();
  for (const line of table.split("\n")) {
    const [child, parent] = line.trim().split(/\s+/).map(Number);
    if (child === undefined || parent === undefined || Number.isNaN(child) || Number.isNaN(parent)) continue;
    children.set(parent, [...(children.get(parent) ?? []), child]);
  }
  const found: number[] = [];
  const queue = [pid];
  for (let next = queue.pop(); next !== undefined; next = queue.pop()) {
    for (const child of children.get(next) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

/** Sends `signal` to each pid; one already gone is skipped. */
export function signalEach(pids: Iterable<number>, signal: NodeJS.Signals): void {
  for (const pid of pids) {
    try {
      process.kill(pid, signal);
    } catch {
      // already gone
    }
  }
}
