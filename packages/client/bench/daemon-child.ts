// The daemon side of the client benchmark, in its own process so that the client's memory
// figures hold the client alone: two simulated daemons (instant proofs; minutes-long proofs,
// for the freeze test) and a raw TCP sink that reads N bytes then replies one byte.
import { createServer, type Socket } from "node:net";
import { startSimDaemon } from "@cuzkit/sim";

/** Messages the parent sends. */
export type DaemonCommand = { type: "stall" } | { type: "stop" };
/** What the child reports once ready. */
export interface DaemonAddresses {
  type: "ready";
  fast: string;
  slow: string;
  raw: string;
}

const fast = await startSimDaemon({ proofTimeMs: 0 });
const slow = await startSimDaemon({ proofTimeMs: 3_600_000 });

// Raw TCP: an 8-byte big-endian length, then the bytes; answers 1 byte when all arrived.
const raw = createServer((socket: Socket) => {
  let expected = -1;
  let received = 0;
  let header = Buffer.alloc(0);
  socket.on("data", (chunk: Buffer) => {
    let data = chunk;
    if (expected < 0) {
      header = Buffer.concat([header, data]);
      if (header.length < 8) return;
      expected = Number(header.readBigUInt64BE(0));
      data = header.subarray(8);
    }
    received += data.length;
    if (received >= expected) {
      socket.write(Buffer.from([1]));
      expected = -1;
      received = 0;
      header = Buffer.alloc(0);
    }
  });
  socket.on("error", () => {});
});
await new Promise<void>((resolve) => raw.listen(0, "127.0.0.1", resolve));
const rawPort = (raw.address() as { port: number }).port;

process.on("message", async (command: DaemonCommand) => {
  if (command.type === "stall") {
    slow.stall();
    process.send?.({ type: "stalled" });
  } else if (command.type === "stop") {
    raw.close();
    await Promise.all([fast.stop(), slow.stop()]);
    process.exit(0);
  }
});

const ready: DaemonAddresses = {
  type: "ready",
  fast: fast.address,
  slow: slow.address,
  raw: `127.0.0.1:${rawPort}`,
};
process.send?.(ready);
