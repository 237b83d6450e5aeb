import { type ChildProcess, fork } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import type { ReceivedCallQuery, SimRpcMethod } from "../received-calls.js";
import type { SimStats } from "../sim-daemon.js";

// Starts sim-child as a separate process, so a test can freeze it with SIGSTOP and thaw it
// with SIGCONT, as an operator's frozen daemon would behave. From the sources (this file is
// .ts) the child runs under tsx; from the published build it is the built sim-child.js.
const runningFromSource = import.meta.url.endsWith(".ts");

/** A simulated daemon in a child process. */
export interface SimProcess {
  /** What a client dials. */
  address: string;
  /** The child's pid, for kill(pid, "SIGSTOP"). */
  pid: number;
  /** Freezes the process (SIGSTOP): the port stays open, nothing answers. */
  freeze(): void;
  /** Thaws it (SIGCONT). */
  thaw(): void;
  /** The daemon's counters (the process must be running). */
  stats(): Promise<SimStats>;
  /** SimDaemon.whenReceived in the child (the process must be running to answer). */
  whenReceived(method: SimRpcMethod, query?: Omit<ReceivedCallQuery, "signal">): Promise<void>;
  /** Thaws, stops and waits for the exit. */
  stop(): Promise<void>;
}

/** Spawns a simulated daemon listening on `listen` (e.g. `unix:///tmp/x/cuzk.sock`) with proofs of `proofTimeMs`. */
export async function startSimProcess(listen: string, proofTimeMs: number): Promise<SimProcess> {
  const child: ChildProcess = fork(
    fileURLToPath(new URL(runningFromSource ? "./sim-child.ts" : "./sim-child.js", import.meta.url)),
    [listen, String(proofTimeMs)],
    {
      execArgv: runningFromSource ? ["--import", "tsx"] : [],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    },
  );
  const address = await new Promise<string>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`sim child exited with ${code} before listening`)));
    child.on("message", (message: { type: string; address?: string }) => {
      if (message.type === "ready" && message.address) resolve(message.address);
    });
  });
  const pid = child.pid!;
  let nextWaitId = 0;
  return {
    address,
    pid,
    freeze: () => process.kill(pid, "SIGSTOP"),
    thaw: () => process.kill(pid, "SIGCONT"),
    async stats() {
      const reply = new Promise<SimStats>((resolve) => {
        const onMessage = (message: { type: string; stats?: SimStats }) => {
          if (message.type !== "stats" || !message.stats) return;
          child.off("message", onMessage);
          resolve(message.stats);
        };
        child.on("message", onMessage);
      });
      child.send({ type: "stats" });
      return reply;
    },
    whenReceived(method, query = {}) {
      const id = nextWaitId++;
      const reply = new Promise<void>((resolve, reject) => {
        const onMessage = (message: { type: string; id?: number; error?: string }) => {
          if (message.type !== "received" || message.id !== id) return;
          child.off("message", onMessage);
          if (message.error === undefined) resolve();
          else reject(new Error(message.error));
        };
        child.on("message", onMessage);
      });
      child.send({ type: "whenReceived", id, method, jobId: query.jobId, count: query.count });
      return reply;
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      process.kill(pid, "SIGCONT");
      const exited = once(child, "exit");
      child.send({ type: "stop" });
      await exited;
    },
  };
}
