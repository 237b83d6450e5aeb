import { connect, createServer, type Socket } from "node:net";

/**
 * A TCP proxy on 127.0.0.1 that can freeze: while frozen it holds every byte in both directions
 * (connections stay open), as a paused (SIGSTOP) or hung server looks to its clients; a thaw
 * delivers what it held. The target is asked for at each connection, so the proxy can start
 * before the server it fronts (whose allowed Host must name the proxy's port).
 */
export async function startFreezableProxy(targetPort: () => number): Promise<{
  port: number;
  url: string;
  freeze(): void;
  thaw(): void;
  close(): Promise<void>;
}> {
  let frozen = false;
  const held: Array<() => void> = [];
  const sockets = new Set<Socket>();
  const forward = (from: Socket, to: Socket) => {
    from.on("data", (chunk: Buffer) => {
      if (frozen) held.push(() => to.write(chunk));
      else to.write(chunk);
    });
    from.on("close", () => to.destroy());
    from.on("error", () => to.destroy());
  };
  const server = createServer((client) => {
    const upstream = connect(targetPort(), "127.0.0.1");
    sockets.add(client).add(upstream);
    client.on("close", () => sockets.delete(client));
    upstream.on("close", () => sockets.delete(upstream));
    forward(client, upstream);
    forward(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : 0;
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    freeze() {
      frozen = true;
    },
    thaw() {
      frozen = false;
      for (const send of held.splice(0)) send();
    },
    close() {
      for (const socket of sockets) socket.destroy();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}
