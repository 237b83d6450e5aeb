import type { ChildProcess } from "node:child_process";
import type { Clock, Sleep } from "@cuzkit/core";

// The daemon runs in its own process group (spawned detached), so a signal reaches the shell's
// children too, and "gone" means every process of the group is.

/** Sends `signal` to the process group of `proc`; nothing when it is already gone. */
export function signalGroup(proc: ChildProcess, signal: NodeJS.Signals): void {
  try {
    if (proc.pid !== undefined) process.kill(-proc.pid, signal);
  } catch {
    // Already gone.
  }
}

/** Waits until every process of the daemon's group is gone (the shell can exit before the daemon it ran); false after `waitMs`. */
export async function groupGone(
  proc: ChildProcess,
  waitMs: number,
  clock: Clock,
  sleep: Sleep,
): Promise<boolean> {
  const until = clock.now() + waitMs;
  for (;;) {
    try {
      if (proc.pid === undefined) return true;
      process.kill(-proc.pid, 0);
    } catch {
      return true;
    }
    if (clock.now() >= until) return false;
    await sleep(20);
  }
}
