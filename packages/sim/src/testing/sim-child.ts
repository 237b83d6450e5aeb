// A simulated daemon in its own process, for tests that stop it with SIGSTOP (a frozen
// daemon: alive, port open, answering nothing). argv: <listen> <proofTimeMs>. Talks to its
// parent over IPC: "ready" with the address, then answers "stats" requests.
import { startSimDaemon } from "../sim-daemon.js";

const [listen = "127.0.0.1:0", proofTimeMs = "1000"] = process.argv.slice(2);
const daemon = await startSimDaemon({ listen, proofTimeMs: Number(proofTimeMs) });

process.on("message", async (message: { type: string }) => {
  if (message.type === "stats") process.send?.({ type: "stats", stats: daemon.stats() });
  if (message.type === "stop") {
    await daemon.stop();
    process.exit(0);
  }
});
process.on("disconnect", () => process.exit(0));
process.send?.({ type: "ready", address: daemon.address });
