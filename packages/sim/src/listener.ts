import { lstat, mkdir, rm } from "node:fs/promises";
import { createServer, type Server, type Socket } from "node:net";
import { dirname } from "node:path";
import { InvalidInputError } from "@cuzkit/core";
import { SimListenError } from "./errors.js";
import type { ListenAddress } from "./listen-address.js";

/** A bound listener. */
export interface BoundListener {
  /** The TCP port bound (the requested one, or the ephemeral one for port 0); undefined for unix sockets. */
  port: number | undefined;
  /** Stops accepting; resolves once the listener is closed (open connections are the caller's). */
  close(): Promise<void>;
}

/** Removes a stale unix socket file the way the daemon does; refuses to delete anything that is not a socket. */
export async function removeStaleSocket(path: string): Promise<void> {
  const stat = await lstat(path).catch(() => undefined);
  if (!stat) return;
  if (!stat.isSocket()) {
    throw new InvalidInputError(
      `cannot listen on unix://${path}: a file that is not a socket is in the way`,
      { hint: "choose another socket path or remove that file" },
    );
  }
  await rm(path, { force: true });
}

/** Listens on `address` (TCP or unix socket) and hands every accepted socket to `onConnection`. */
export async function bindListener(
  address: ListenAddress,
  onConnection: (socket: Socket) => void,
  port: number | undefined = address.kind === "tcp" ? address.port : undefined,
): Promise<BoundListener> {
  const server: Server = createServer({ noDelay: true }, onConnection);
  if (address.kind === "unix") {
    await mkdir(dirname(address.path), { recursive: true });
    await removeStaleSocket(address.path);
  }
  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      const where = address.kind === "unix" ? `unix://${address.path}` : `${address.host}:${port}`;
      reject(
        new SimListenError(`cannot listen on ${where}: ${error.code ?? error.message}`, {
          hint:
            error.code === "EADDRINUSE"
              ? "another process holds that address; stop it or choose another port (0 picks a free one)"
              : "check the address and permissions",
          cause: error,
        }),
      );
    };
    server.once("error", onError);
    const ready = () => {
      server.off("error", onError);
      resolve();
    };
    if (address.kind === "unix") server.listen(address.path, ready);
    else server.listen({ host: address.host, port }, ready);
  });
  const bound = server.address();
  return {
    port: typeof bound === "object" && bound !== null ? bound.port : undefined,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
      }),
  };
}

/** Finds a free TCP port for `address` by binding port 0 and releasing it (used when the listener must start later). */
export async function reservePort(address: Extract<ListenAddress, { kind: "tcp" }>): Promise<number> {
  const listener = await bindListener(address, (socket) => socket.destroy(), 0);
  await listener.close();
  if (listener.port === undefined) throw new SimListenError("no port was bound", { hint: "try again" });
  return listener.port;
}
