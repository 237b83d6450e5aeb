// A simulated daemon in its own process, for tests that stop it with SIGSTOP (a frozen
// daemon: alive, port open, answering nothing). argv: <listen> <proofTimeMs>. Talks to its
// parent over IPC: "ready" with the address, then answers "stats" and "whenReceived" requests.
import type { SimRpcMethod } from "../received-calls.js";
import { startSimDaemon } from "../sim-daemon.js";

const [listen = "127.0.0.1:0", proofTimeMs = "1000"] = process.argv.slice(2);
const daemon = await startSimDaemon({ listen, proofTimeMs: Number(proofTimeMs) });

interface ParentMessage {
  type: string;
  id?: number;
  method?: SimRpcMethod;
  jobId?: string;
  count?: number;
}

process.on("message", async (message: ParentMessage) => {
  if (message.type === "stats") process.send?.({ type: "stats", stats: daemon.stats() });
  if (message.type === "whenReceived" && message.method !== undefined) {
    const { id, method, jobId, count } = message;
    daemon.whenReceived(method, { jobId, count }).then(
      () => process.send?.({ type: "received", id }),
      (error: unknown) => process.send?.({ type: "received", id, error: String(error) }),
    );
  }
  if (message.type === "stop") {
    await daemon.stop();
    process.exit(0);
  }
});
process.on("disconnect", () => process.exit(0));
process.send?.({ type: "ready", address: daemon.address });
