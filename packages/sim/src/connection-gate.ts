import type { Socket } from "node:net";
import { Duplex } from "node:stream";
import { createHttp2FrameWatcher } from "./http2-frame-watcher.js";

// Every accepted socket reaches grpc-js through a gate: a Duplex that passes bytes both ways
// until stalled. A stalled gate reads nothing and writes nothing (not even HTTP/2 PING acks),
// like a frozen process whose kernel still holds the connection open. (Injecting the raw
// socket would not do: http2 reads a net.Socket's handle directly, so pausing it has no effect.)

/** One client connection as the simulator holds it. */
export interface ConnectionGate {
  /** The stream handed to grpc-js. */
  readonly duplex: Duplex;
  /** Stops reading and holds every write until unstall. */
  stall(): void;
  /** Sends the held writes in order and reads again. */
  unstall(): void;
  /** Cuts the connection at once (RST-like for the peer: the socket is destroyed). */
  destroy(): void;
  /** True while written bytes have not reached the kernel yet. */
  writePending(): boolean;
  /** Resolves when the socket has closed. */
  readonly closed: Promise<void>;
}

/**
 * Wraps an accepted socket in a gate; `onStreamEnd` is called for every HTTP/2 stream the server
 * ends on it, and `onWritten` each time a write has reached the kernel (writePending may be false now).
 */
export function createConnectionGate(
  socket: Socket,
  stalled: boolean,
  onStreamEnd: () => void,
  onWritten: () => void = () => {},
): ConnectionGate {
  let isStalled = stalled;
  let held: [Buffer, (error?: Error | null) => void][] = [];
  let inFlightWrites = 0;
  const watch = createHttp2FrameWatcher(onStreamEnd);
  const write = (chunk: Buffer, callback: (error?: Error | null) => void) => {
    inFlightWrites++;
    watch(chunk);
    socket.write(chunk, (error) => {
      inFlightWrites--;
      callback(error ?? null);
      onWritten();
    });
  };
  const duplex = new Duplex({
    read() {
      if (!isStalled) socket.resume();
    },
    write(chunk: Buffer, _encoding, callback) {
      if (isStalled) held.push([chunk, callback]);
      else write(chunk, callback);
    },
    final(callback) {
      socket.end();
      callback();
    },
    destroy(error, callback) {
      socket.destroy();
      callback(error);
    },
  });
  socket.on("data", (chunk: Buffer) => {
    if (!duplex.push(chunk)) socket.pause();
  });
  socket.on("end", () => duplex.push(null));
  // Errors (ECONNRESET from a client that went away) end the connection quietly.
  socket.on("error", () => duplex.destroy());
  const closed = new Promise<void>((resolve) => {
    socket.on("close", () => {
      duplex.destroy();
      resolve();
    });
  });
  if (isStalled) socket.pause();
  return {
    duplex,
    stall() {
      isStalled = true;
      socket.pause();
    },
    unstall() {
      if (!isStalled) return;
      isStalled = false;
      const pending = held;
      held = [];
      for (const [chunk, callback] of pending) write(chunk, callback);
      socket.resume();
    },
    destroy() {
      socket.destroy();
      duplex.destroy();
    },
    writePending: () => inFlightWrites > 0 || held.length > 0 || socket.writableLength > 0,
    closed,
  };
}
