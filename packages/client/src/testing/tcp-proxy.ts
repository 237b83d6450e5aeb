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

/** A proxy's state, shared by the steps below. */
interface ProxyState {
  readonly targetHost: string;
  readonly targetPort: number;
  /** Open connections: [client side, upstream side]. */
  readonly pairs: Set<[Socket, Socket]>;
  dropping: boolean;
  accepted: number;
  /** The listen port: 0 until the first listen, then kept across refuse/restore. */
  port: number;
  server: Server | undefined;
  listening: boolean;
  /** Held chunks per destination while dropping; flushed in order on restore. */
  readonly held: Map<Socket, Buffer[]>;
  readonly upstreams: WeakSet<Socket>;
  /** True once drop() holds bytes on their way to the target. */
  holdingUpstream: boolean;
  readonly holdingWaiters: Set<() => void>;
}

/** Splits "host:port" (a bracketed IPv6 host unbracketed). */
function parseTarget(target: string): { targetHost: string; targetPort: number } {
  const match = /^(.*):(\d+)$/.exec(target);
  if (!match) throw new Error(`tcp proxy: target must be host:port, got ${target}`);
  return { targetHost: match[1]!.replace(/^\[|\]$/g, ""), targetPort: Number(match[2]) };
}

/** Forwards `from`'s bytes to `to`, or holds them (and pauses `from`) while dropping. */
function forward(state: ProxyState, from: Socket, to: Socket): void {
  from.on("data", (chunk: Buffer) => {
    if (to.destroyed) return;
    if (state.dropping) {
      from.pause(); // let TCP push back, as a host that stopped reading would
      const queue = state.held.get(to) ?? [];
      queue.push(chunk);
      state.held.set(to, queue);
      if (state.upstreams.has(to)) {
        state.holdingUpstream = true;
        for (const resolve of [...state.holdingWaiters]) resolve();
        state.holdingWaiters.clear();
      }
      return;
    }
    to.write(chunk);
  });
}

/** Dials the target for an accepted client and pipes the two; either side's end ends both. */
function accept(state: ProxyState, client: Socket): void {
  state.accepted += 1;
  const upstream = connect(state.targetPort, state.targetHost);
  state.upstreams.add(upstream);
  const pair: [Socket, Socket] = [client, upstream];
  state.pairs.add(pair);
  forward(state, client, upstream);
  forward(state, upstream, client);
  const end = () => {
    state.pairs.delete(pair);
    client.destroy();
    upstream.destroy();
  };
  for (const socket of pair) {
    socket.on("error", end);
    socket.on("close", end);
  }
}

/** Listens on 127.0.0.1, on the port used before (an ephemeral one the first time). */
async function listen(state: ProxyState): Promise<void> {
  const server = createServer((client) => accept(state, client));
  state.server = server;
  server.listen(state.port, "127.0.0.1");
  await once(server, "listening");
  state.port = (server.address() as { port: number }).port;
  state.listening = true;
}

/** Resets every open connection (RST on both sides). */
function resetAll(state: ProxyState): void {
  for (const [client, upstream] of [...state.pairs]) {
    client.resetAndDestroy();
    upstream.resetAndDestroy();
  }
  state.pairs.clear();
}

async function stopListening(state: ProxyState): Promise<void> {
  const server = state.server;
  if (!state.listening || server === undefined) return;
  state.listening = false;
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** Stops listening and resets every connection: refuse() and close(). */
async function shutDown(state: ProxyState): Promise<void> {
  const closing = stopListening(state);
  resetAll(state);
  await closing;
}

/** Ends a drop: flushes the held bytes in order and lets every connection read again. */
function resumeFlow(state: ProxyState): void {
  state.dropping = false;
  for (const [to, chunks] of state.held) if (!to.destroyed) for (const chunk of chunks) to.write(chunk);
  state.held.clear();
  state.holdingUpstream = false;
  for (const pair of state.pairs) for (const socket of pair) socket.resume();
}

/** Starts a proxy on 127.0.0.1 (an ephemeral port) forwarding to `target` ("127.0.0.1:PORT"). */
export async function startTcpProxy(target: string): Promise<TcpProxy> {
  const state: ProxyState = {
    ...parseTarget(target),
    pairs: new Set(),
    dropping: false,
    accepted: 0,
    port: 0,
    server: undefined,
    listening: false,
    held: new Map(),
    upstreams: new WeakSet(),
    holdingUpstream: false,
    holdingWaiters: new Set(),
  };
  await listen(state);

  return {
    get address() {
      return `127.0.0.1:${state.port}`;
    },
    get accepted() {
      return state.accepted;
    },
    reset: () => resetAll(state),
    refuse: () => shutDown(state),
    drop() {
      state.dropping = true;
    },
    async restore() {
      resumeFlow(state);
      if (!state.listening) await listen(state);
    },
    whenHolding() {
      if (state.holdingUpstream) return Promise.resolve();
      return new Promise<void>((resolve) => state.holdingWaiters.add(resolve));
    },
    close: () => shutDown(state),
  };
}
