import { once } from "node:events";
import { connect, createServer, type Server, type Socket } from "node:net";

// A TCP proxy for fault tests, standing where an SSH tunnel or a container port mapping
// stands in production: the client dials the proxy, the proxy dials the daemon. Faults:
// reset every connection, refuse (nothing listens on the port) until restored, or drop
// (connections stay up, nothing gets through until restored: a black hole, or a host that
// stopped reading). Loopback only.

/** A running proxy. */
export interface TcpProxy {
  /** What the client dials: "127.0.0.1:PORT" (the same after refuse/restore). */
  readonly address: string;
  /** Connections accepted so far. */
  readonly accepted: number;
  /** Resets every open connection (RST on both sides); new ones are accepted. */
  reset(): void;
  /** Resets every open connection and stops listening: new connections are refused. */
  refuse(): Promise<void>;
  /** Keeps connections open but forwards nothing in either direction (bytes wait), new ones included. */
  drop(): void;
  /** Ends refuse() or drop(): listens again on the same port and forwards. */
  restore(): Promise<void>;
  /**
   * Resolves once drop() holds bytes on their way to the target: the client has sent into the
   * black hole (at once if it already has). For tests: wait on this instead of sleeping.
   */
  whenHolding(): Promise<void>;
  /** Stops the proxy and closes every connection. */
  close(): Promise<void>;
}

/** Starts a proxy on 127.0.0.1 (an ephemeral port) forwarding to `target` ("127.0.0.1:PORT"). */
export async function startTcpProxy(target: string): Promise<TcpProxy> {
  const match = /^(.*):(\d+)$/.exec(target);
  if (!match) throw new Error(`tcp proxy: target must be host:port, got ${target}`);
  const targetHost = match[1]!.replace(/^\[|\]$/g, "");
  const targetPort = Number(match[2]);
  const pairs = new Set<[Socket, Socket]>();
  let dropping = false;
  let accepted = 0;
  let port = 0;

  /** Held chunks per destination while dropping; flushed in order on restore. */
  const held = new Map<Socket, Buffer[]>();
  const upstreams = new WeakSet<Socket>();
  let holdingUpstream = false;
  const holdingWaiters = new Set<() => void>();
  const forward = (from: Socket, to: Socket) =>
    from.on("data", (chunk: Buffer) => {
      if (to.destroyed) return;
      if (dropping) {
        from.pause(); // let TCP push back, as a host that stopped reading would
        const queue = held.get(to) ?? [];
        queue.push(chunk);
        held.set(to, queue);
        if (upstreams.has(to)) {
          holdingUpstream = true;
          for (const resolve of [...holdingWaiters]) resolve();
          holdingWaiters.clear();
        }
        return;
      }
      to.write(chunk);
    });

  const onConnection = (client: Socket) => {
    accepted += 1;
    const upstream = connect(targetPort, targetHost);
    upstreams.add(upstream);
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    forward(client, upstream);
    forward(upstream, client);
    const end = () => {
      pairs.delete(pair);
      client.destroy();
      upstream.destroy();
    };
    for (const socket of pair) {
      socket.on("error", end);
      socket.on("close", end);
    }
  };

  let server: Server = createServer(onConnection);
  const listen = async () => {
    server = createServer(onConnection);
    server.listen(port, "127.0.0.1");
    await once(server, "listening");
    port = (server.address() as { port: number }).port;
  };
  await listen();
  let listening = true;

  const resetAll = () => {
    for (const [client, upstream] of [...pairs]) {
      client.resetAndDestroy();
      upstream.resetAndDestroy();
    }
    pairs.clear();
  };
  const stopListening = async () => {
    if (!listening) return;
    listening = false;
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };

  return {
    get address() {
      return `127.0.0.1:${port}`;
    },
    get accepted() {
      return accepted;
    },
    reset: resetAll,
    async refuse() {
      const closing = stopListening();
      resetAll();
      await closing;
    },
    drop() {
      dropping = true;
    },
    async restore() {
      dropping = false;
      for (const [to, chunks] of held) if (!to.destroyed) for (const chunk of chunks) to.write(chunk);
      held.clear();
      holdingUpstream = false;
      for (const pair of pairs) for (const socket of pair) socket.resume();
      if (!listening) {
        await listen();
        listening = true;
      }
    },
    whenHolding() {
      if (holdingUpstream) return Promise.resolve();
      return new Promise<void>((resolve) => holdingWaiters.add(resolve));
    },
    async close() {
      const closing = stopListening();
      resetAll();
      await closing;
    },
  };
}
