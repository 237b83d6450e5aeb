import type { ServerResponse } from "node:http";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { securityHeaders } from "./web-assets.js";

/** An open server-sent events stream. */
export interface EventStream {
  /** Sends one event; `data` is JSON-encoded unless it is a string. */
  send(type: string, data: unknown): void;
}

/**
 * Takes the reply over as a server-sent events stream: sends the headers, keeps the response in
 * `open` (so the server's close can end it), calls `start` with the stream, and the disposer it
 * returns when the browser goes away.
 */
export function openEventStream(
  request: FastifyRequest,
  reply: FastifyReply,
  open: Set<ServerResponse>,
  start: (stream: EventStream) => () => void,
): void {
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    ...securityHeaders,
    "content-type": "text/event-stream; charset=utf-8",
    connection: "keep-alive",
  });
  open.add(res);
  const stream: EventStream = {
    send: (type, data) =>
      void res.write(`event: ${type}\ndata: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`),
  };
  const dispose = start(stream);
  let stopped = false;
  const stop = () => {
    if (stopped) return;
    stopped = true;
    dispose();
    open.delete(res);
  };
  request.raw.on("close", stop);
  res.on("close", stop);
}

/**
 * Sets the page's security headers on every answer and ends the open event streams when the
 * server closes (a browser would otherwise hold `close()` up); returns the set to open them in.
 */
export function addPageHooks(app: FastifyInstance): Set<ServerResponse> {
  const streams = new Set<ServerResponse>();
  app.addHook("onSend", async (_request, reply, payload) => {
    // No caching unless the route chose (the versioned bundle is immutable).
    const cacheControl = reply.getHeader("cache-control");
    reply.headers(securityHeaders);
    if (cacheControl !== undefined) reply.header("cache-control", cacheControl);
    return payload;
  });
  // preClose, not onClose: Fastify runs onClose only after the HTTP server has closed, and the
  // server waits for every open response first, so a stream ended there would never end.
  app.addHook("preClose", async () => {
    for (const stream of streams) stream.end();
  });
  return streams;
}
