import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type Http2Server, type ServerHttp2Session } from "node:http2";
import {
  type AddressInfo,
  createServer as createNetServer,
  connect as netConnect,
  type Socket,
} from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create, toBinary } from "@bufbuild/protobuf";
import { createClient } from "@connectrpc/connect";
import { ProvingEngine, SubmitProofRequestSchema, SubmitProofResponseSchema } from "@cuzkit/proto";
import { afterEach, describe, expect, it, vi } from "vitest";
import { parseDaemonAddress } from "./address.js";
import { encodeSubmitFrame } from "./encode.js";
import { createDaemonTransport, type UploadProgress } from "./transport.js";

// The transport seam against a bare node:http2 server, so the test sees the raw bytes and
// headers on the wire.

interface Received {
  body: Buffer;
  headers: Record<string, unknown>;
}

let server: Http2Server | undefined;
let dir: string | undefined;
const sessions = new Set<ServerHttp2Session>();
/** Settles when the server's sessions emit "close", one per session. */
let sessionCloses: Promise<void>[] = [];
let stallNext = false;
/** When set, the next stream stops reading once it has received this many bytes, and reports them. */
let stallAfter: { bytes: number; reached: (received: number) => void } | undefined;
/** When set, streams read one chunk every 10 ms: window updates trickle back as from a slow reader. */
let readSlowly = false;
let sessionsSeen = 0;

async function startServer(
  listen: { port: number } | { path: string },
): Promise<{ received: Received[]; address: string }> {
  const received: Received[] = [];
  server = createServer();
  server.on("session", (session) => {
    sessions.add(session);
    sessionsSeen += 1;
    sessionCloses.push(
      new Promise((resolve) =>
        session.once("close", () => {
          sessions.delete(session);
          resolve();
        }),
      ),
    );
  });
  server.on("stream", (stream, headers) => {
    if (String(headers["x-test-stall"] ?? "") === "1" || stallNext) {
      stallNext = false;
      stream.pause(); // never reads: the client's upload stops on flow control
      stream.on("error", () => {}); // the client resets it
      return;
    }
    const chunks: Buffer[] = [];
    const stall = stallAfter;
    stallAfter = undefined;
    let receivedBytes = 0;
    stream.on("data", (chunk: Buffer) => {
      chunks.push(chunk);
      receivedBytes += chunk.byteLength;
      if (readSlowly) {
        stream.pause();
        setTimeout(() => stream.resume(), 10);
      }
      if (stall !== undefined && receivedBytes >= stall.bytes) {
        stream.pause(); // stops reading: flow control holds the rest of the upload
        stream.on("error", () => {});
        stall.reached(receivedBytes);
      }
    });
    stream.on("end", () => {
      received.push({ body: Buffer.concat(chunks), headers });
      const message = toBinary(SubmitProofResponseSchema, create(SubmitProofResponseSchema, { jobId: "ok" }));
      const frame = Buffer.alloc(5 + message.byteLength);
      frame.writeUInt32BE(message.byteLength, 1);
      frame.set(message, 5);
      stream.respond({ ":status": 200, "content-type": "application/grpc" }, { waitForTrailers: true });
      stream.on("wantTrailers", () => stream.sendTrailers({ "grpc-status": "0" }));
      stream.end(frame);
    });
  });
  await new Promise<void>((resolve) => {
    if ("port" in listen) server!.listen(listen.port, "127.0.0.1", resolve);
    else server!.listen(listen.path, resolve);
  });
  const address =
    "port" in listen ? `127.0.0.1:${(server.address() as AddressInfo).port}` : `unix://${listen.path}`;
  return { received, address };
}

afterEach(async () => {
  for (const session of sessions) session.destroy();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = undefined;
  if (dir) await rm(dir, { recursive: true, force: true });
  dir = undefined;
  sessionCloses = [];
  readSlowly = false;
});

/**
 * A TCP link to `target` that delays every byte coming back by `delayMs` (a slow return path);
 * freeze() then drops everything coming back, as from a daemon that stopped.
 */
async function startSlowLink(target: string, delayMs: number) {
  const port = Number(/:(\d+)$/.exec(target)![1]);
  const sockets = new Set<Socket>();
  let frozen = false;
  const proxy = createNetServer((client) => {
    const upstream = netConnect(port, "127.0.0.1");
    sockets.add(client).add(upstream);
    client.on("data", (chunk: Buffer) => upstream.write(chunk));
    upstream.on("data", (chunk: Buffer) => {
      if (frozen) return;
      setTimeout(() => client.destroyed || client.write(chunk), delayMs);
    });
    for (const socket of [client, upstream])
      socket
        .on("error", () => {})
        .on("close", () => {
          client.destroy();
          upstream.destroy();
        });
  });
  await new Promise<void>((resolve) => proxy.listen(0, "127.0.0.1", resolve));
  return {
    address: `127.0.0.1:${(proxy.address() as AddressInfo).port}`,
    freeze() {
      frozen = true;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    },
  };
}

function transportFor(address: string) {
  return createDaemonTransport({
    address: parseDaemonAddress(address),
    pingIntervalMs: 15_000,
    pingTimeoutMs: 10_000,
    idleConnectionTimeoutMs: 60_000,
    readMaxBytes: 1 << 20,
  });
}

describe("createDaemonTransport", () => {
  it("sends a pre-encoded frame through unaryPreEncoded, byte for byte, and tracks the upload", async () => {
    const { received, address } = await startServer({ port: 0 });
    const t = transportFor(address);
    const request = create(SubmitProofRequestSchema, {
      requestId: "r1",
      proofKind: 1,
      vanillaProof: new Uint8Array(100_000).fill(9),
    });
    const encoded = encodeSubmitFrame(request);
    const upload: UploadProgress = { sentBytes: 0, complete: false };
    const response = await t.unaryPreEncoded(ProvingEngine.method.submitProof, encoded, {
      signal: new AbortController().signal,
      timeoutMs: 5_000,
      upload,
    });
    expect(response.jobId).toBe("ok");
    expect(upload).toEqual({ sentBytes: encoded.byteLength, complete: true });
    const expected = Buffer.concat(encoded.chunks);
    expect(Buffer.compare(received[0]!.body, expected)).toBe(0);
    expect(received[0]!.headers[":path"]).toBe("/cuzk.v1.ProvingEngine/SubmitProof");
    expect(received[0]!.headers["grpc-accept-encoding"]).toBeUndefined();
    // Plain calls still use connect's own serialization.
    const rpc = createClient(ProvingEngine, t.transport);
    await rpc.submitProof({ requestId: "plain" });
    expect(
      Buffer.compare(
        received[1]!.body.subarray(5),
        Buffer.from(
          toBinary(SubmitProofRequestSchema, create(SubmitProofRequestSchema, { requestId: "plain" })),
        ),
      ),
    ).toBe(0);
    expect(t.sessionsOpened()).toBe(1);
    t.close();
  });

  it("retires the session of an upload cut before its body was sent: the next call gets a fresh one", async () => {
    const { received, address } = await startServer({ port: 0 });
    const t = transportFor(address);
    const request = create(SubmitProofRequestSchema, {
      requestId: "big",
      proofKind: 1,
      vanillaProof: new Uint8Array(8 * 1024 * 1024),
    });
    const upload: UploadProgress = { sentBytes: 0, complete: false };
    stallNext = true;
    const seenBefore = sessionsSeen;
    const error = await t
      .unaryPreEncoded(ProvingEngine.method.submitProof, encodeSubmitFrame(request), {
        signal: new AbortController().signal,
        timeoutMs: 200,
        upload,
      })
      .catch((e: unknown) => e);
    expect(String(error)).toMatch(/deadline/i);
    expect(upload.complete).toBe(false);
    expect(t.sessionsOpened()).toBe(2);
    const rpc = createClient(ProvingEngine, t.transport);
    await expect(rpc.submitProof({ requestId: "after" })).resolves.toMatchObject({ jobId: "ok" });
    expect(received.map((r) => r.body.byteLength)).toHaveLength(1);
    expect(sessionsSeen - seenBefore).toBe(2);
    t.close();
  });

  it("counts the bytes of a cut upload that really went out, not 0 until the whole payload is written", async () => {
    const { address } = await startServer({ port: 0 });
    const t = transportFor(address);
    // One 8 MiB payload, held by reference as a single chunk (a C1 is one such chunk of 51 MB).
    const encoded = encodeSubmitFrame(
      create(SubmitProofRequestSchema, {
        requestId: "cut",
        proofKind: 1,
        vanillaProof: new Uint8Array(8 << 20),
      }),
    );
    expect(Math.max(...encoded.chunks.map((c) => c.byteLength))).toBeGreaterThan(8_000_000);
    const reached = new Promise<number>((resolve) => {
      stallAfter = { bytes: 3 << 20, reached: resolve };
    });
    const upload: UploadProgress = { sentBytes: 0, complete: false };
    const abort = new AbortController();
    const call = t
      .unaryPreEncoded(ProvingEngine.method.submitProof, encoded, {
        signal: abort.signal,
        timeoutMs: 30_000,
        upload,
      })
      .catch((e: unknown) => e);
    const serverGot = await reached;
    // Writes complete as flow control lets bytes out; wait until the last one the server's window allows has.
    await vi.waitFor(() => expect(upload.sentBytes).toBeGreaterThanOrEqual(serverGot - (1 << 20)));
    abort.abort();
    await call;
    expect(upload.complete).toBe(false);
    // Never more than went out plus what the server's window and the socket buffers hold.
    expect(upload.sentBytes).toBeLessThan(encoded.byteLength);
    t.close();
  });

  it("keeps a slow upload alive though its PINGs are answered late behind the queued body", async () => {
    const { received, address } = await startServer({ port: 0 });
    readSlowly = true;
    // A slow link: the daemon reads slowly, and a proxy delays every byte from it by 150 ms,
    // longer than the PING timeout. The daemon answers each PING and grants window as it reads,
    // but late.
    const link = await startSlowLink(address, 150);
    const t = createDaemonTransport({
      address: parseDaemonAddress(link.address),
      pingIntervalMs: 200,
      pingTimeoutMs: 100,
      idleConnectionTimeoutMs: 60_000,
      readMaxBytes: 1 << 20,
    });
    const encoded = encodeSubmitFrame(
      create(SubmitProofRequestSchema, {
        requestId: "slow",
        proofKind: 1,
        vanillaProof: new Uint8Array(512 << 10),
      }),
    );
    const upload: UploadProgress = { sentBytes: 0, complete: false };
    try {
      const response = await t.unaryPreEncoded(ProvingEngine.method.submitProof, encoded, {
        signal: new AbortController().signal,
        timeoutMs: 60_000,
        upload,
      });
      expect(response.jobId).toBe("ok");
      expect(upload).toEqual({ sentBytes: encoded.byteLength, complete: true });
      expect(received[0]!.body.byteLength).toBe(encoded.byteLength);
      expect(t.sessionsOpened()).toBe(1);
    } finally {
      t.close();
      await link.close();
    }
  });

  it("still calls an upload frozen when the daemon stops answering anything", async () => {
    const { address } = await startServer({ port: 0 });
    const link = await startSlowLink(address, 0);
    const t = createDaemonTransport({
      address: parseDaemonAddress(link.address),
      pingIntervalMs: 200,
      pingTimeoutMs: 100,
      idleConnectionTimeoutMs: 60_000,
      readMaxBytes: 1 << 20,
    });
    const reached = new Promise<number>((resolve) => {
      stallAfter = { bytes: 64 << 10, reached: resolve };
    });
    const encoded = encodeSubmitFrame(
      create(SubmitProofRequestSchema, {
        requestId: "frozen",
        proofKind: 1,
        vanillaProof: new Uint8Array(4 << 20),
      }),
    );
    const upload: UploadProgress = { sentBytes: 0, complete: false };
    try {
      const call = t
        .unaryPreEncoded(ProvingEngine.method.submitProof, encoded, {
          signal: new AbortController().signal,
          timeoutMs: 60_000,
          upload,
        })
        .catch((e: unknown) => e);
      await reached;
      link.freeze(); // from now on nothing comes back: no window, no PING answer
      expect(String(await call)).toMatch(/PING timed out/);
      expect(upload.complete).toBe(false);
    } finally {
      t.close();
      await link.close();
    }
  });

  it("dials a unix socket, and close() ends the HTTP/2 session", async () => {
    dir = await mkdtemp(join(tmpdir(), "cuzkit-transport-"));
    const { received, address } = await startServer({ path: join(dir, "d.sock") });
    const t = transportFor(address);
    const rpc = createClient(ProvingEngine, t.transport);
    await rpc.submitProof({ requestId: "u" });
    expect(received).toHaveLength(1);
    expect(sessions.size).toBe(1);
    t.close();
    // Waits for the server to see the session close; a session close() left open times the test out.
    await Promise.all(sessionCloses);
    expect(sessions.size).toBe(0);
  });
});
