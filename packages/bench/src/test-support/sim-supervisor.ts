// A stand-in for the daemon supervisor over an in-process simulator (not exported from the
// package), so a runBenchmark test can crash and restart "the daemon" on the simulator's manual
// scheduler instead of a process's timing. It implements the DaemonSupervisor interface and does
// not copy createDaemonSupervisor (which spawns and signals a process): start and kill act on the
// simulator, and the crashes are the simulator's.
import { EventEmitter } from "node:events";
import type { SimDaemon } from "@cuzkit/sim";
import type { DaemonExit, DaemonSupervisor } from "../supervisor.js";

/** A supervisor of `daemon` (already running): start() restarts it after the first, kill() crashes it. */
export function simSupervisor(daemon: SimDaemon): DaemonSupervisor {
  const crashes: DaemonExit[] = [];
  const exits = new EventEmitter<{ crash: [DaemonExit] }>();
  let starts = 0;
  let running = true;
  daemon.onCrash((reason, detail) => {
    running = false;
    crashes.push({
      atMs: 0,
      // What the real supervisor reports for an OOM kill (SIGKILL, 128 + 9) and for a crash.
      exitCode: reason === "oom" ? 137 : 1,
      signal: null,
      expected: false,
      likelyOom: reason === "oom",
      frozen: false,
      explanation: detail.message,
      logTail: [detail.message],
    });
    exits.emit("crash", crashes.at(-1) as DaemonExit);
  });
  return {
    get running() {
      return running;
    },
    get starts() {
      return starts;
    },
    crashes,
    async start() {
      starts += 1;
      if (starts > 1) await daemon.restart();
      running = true;
    },
    async stop() {
      running = false;
      return undefined;
    },
    async kill() {
      daemon.crash("killed");
      return crashes.at(-1);
    },
    onCrash(listener) {
      exits.on("crash", listener);
      return () => exits.off("crash", listener);
    },
    logTail: () => [],
  };
}
