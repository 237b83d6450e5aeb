import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { Socket } from "node:net";
import { SimListenError } from "./errors.js";
import type { ListenAddress } from "./listen-address.js";
import type { StatusJson } from "./status-views.js";

// The daemon's optional HTTP status endpoint (status.rs): a request line starting with
// "GET /status" gets 200 application/json with CORS * and Connection: close; anything else 404.

/** The running status endpoint. */
export interface StatusHttpServer {
  /** The TCP port bound. */
  readonly port: number;
  /** Holds every request unanswered until unstall. */
  stall(): void;
  unstall(): void;
  /** Closes the endpoint and cuts its open connections. */
  close(): Promise<void>;
}

/** Starts the status endpoint on `address` (port overrides the address's port when given). */
export async function startStatusHttp(
  address: Extract<ListenAddress, { kind: "tcp" }>,
  port: number,
  snapshot: () => StatusJson,
  stalled: boolean,
): Promise<StatusHttpServer> {
  let isStalled = stalled;
  const held: [IncomingMessage, ServerResponse][] = [];
  const sockets = new Set<Socket>();
  const answer = (request: IncomingMessage, response: ServerResponse) => {
    if (response.destroyed) return;
    if (request.method === "GET" && (request.url ?? "").startsWith("/status")) {
      const body = JSON.stringify(snapshot());
      response.writeHead(200, {
        "content-type": "application/json",
        "access-control-allow-origin": "*",
        connection: "close",
      });
      response.end(body);
      return;
    }
    response.writeHead(404, { "content-type": "text/plain", connection: "close" });
    response.end("not found\n");
  };
  const server = createServer((request, response) => {
    if (isStalled) held.push([request, response]);
    else answer(request, response);
  });
  server.on("connection", (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", (error: NodeJS.ErrnoException) =>
      reject(
        new SimListenError(
          `cannot listen for /status on ${address.host}:${port}: ${error.code ?? error.message}`,
          { hint: "choose another status port (0 picks a free one)", cause: error },
        ),
      ),
    );
    server.listen({ host: address.host, port }, () => resolve());
  });
  const bound = server.address();
  return {
    port: typeof bound === "object" && bound !== null ? bound.port : port,
    stall() {
      isStalled = true;
    },
    unstall() {
      isStalled = false;
      for (const [request, response] of held.splice(0)) answer(request, response);
    },
    close() {
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        held.splice(0);
        for (const socket of sockets) socket.destroy();
      });
    },
  };
}
