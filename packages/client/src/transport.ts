import { connect as netConnect } from "node:net";
import type { Transport } from "@connectrpc/connect";
import type { UniversalClientFn } from "@connectrpc/connect/protocol";
import { createTransport } from "@connectrpc/connect/protocol-grpc";
import { createNodeHttpClient, Http2SessionManager } from "@connectrpc/connect-node";
import type { DaemonAddress } from "./address.js";
import type { EncodedChunks } from "./encode.js";

// The gRPC transport: what connect-node's createGrpcTransport builds (an Http2SessionManager,
// the node HTTP/2 client, the gRPC protocol), assembled here for two reasons:
// 1. close() must release the HTTP/2 session, which a connect Transport cannot do;
// 2. one seam in the HTTP client lets SubmitProof/Prove send a frame encoded by encode.ts
//    (payload by reference) instead of connect's copy-twice serialization.

/** connect-node's session manager interface (not exported by name). */
type NodeHttp2ClientSessionManager = ReturnType<
  NonNullable<Extract<Parameters<typeof createNodeHttpClient>[0], { httpVersion: "2" }>["sessionProvider"]>
>;

/** Request header that names a pre-encoded body; removed before the request goes out. */
export const preEncodedHeader = "x-cuzkit-pre-encoded";

/** Options of the daemon transport. */
export interface DaemonTransportOptions {
  /** Where the daemon listens. */
  address: DaemonAddress;
  /** PING after this long without a frame, in ms. */
  pingIntervalMs: number;
  /** Fail the connection when a PING goes unanswered this long, in ms. */
  pingTimeoutMs: number;
  /** Close an idle HTTP/2 connection after this long, in ms. */
  idleConnectionTimeoutMs: number;
  /** Largest response accepted, in bytes. */
  readMaxBytes: number;
}

/** A transport plus the handles the client needs around it. */
export interface DaemonTransport {
  /** The connect transport every RPC goes through. */
  transport: Transport;
  /** Registers a pre-encoded body and returns the header value that selects it. */
  registerBody(body: EncodedChunks): string;
  /** Forgets a registered body (after its call ended). */
  releaseBody(token: string): void;
  /** Closes the HTTP/2 session and fails open calls. */
  close(): void;
}

async function* iterate(chunks: Uint8Array[]): AsyncIterable<Uint8Array> {
  for (const chunk of chunks) yield chunk;
}

/** Creates the gRPC-over-HTTP/2 transport to one daemon (TCP or unix socket). */
export function createDaemonTransport(options: DaemonTransportOptions): DaemonTransport {
  const { address } = options;
  const nodeOptions = address.kind === "unix" ? { createConnection: () => netConnect(address.path) } : {};
  const sessionManager = new Http2SessionManager(
    address.baseUrl,
    {
      pingIntervalMs: options.pingIntervalMs,
      pingTimeoutMs: options.pingTimeoutMs,
      // Ping only while a call is open: a proof call is silent for minutes, an idle
      // connection needs no pings (and is verified with one before reuse).
      pingIdleConnection: false,
      idleConnectionTimeoutMs: options.idleConnectionTimeoutMs,
    },
    nodeOptions,
  );
  // connect-node 2.1.2 race: when a PING times out it destroys the session with an error,
  // but if a new call moves the manager to a fresh connection first, the old session has
  // no "error" listener left and Node throws the error as an uncaught exception (it would
  // kill the caller's process). Every session that carries a call gets a listener that
  // swallows it; calls still fail with their own stream errors.
  const guarded = new WeakSet<object>();
  const swallow = () => {};
  const guardedManager: NodeHttp2ClientSessionManager = {
    authority: sessionManager.authority,
    async request(method, path, headers, options) {
      const stream = await sessionManager.request(method, path, headers, options);
      const session = stream.session;
      if (session && !guarded.has(session)) {
        guarded.add(session);
        session.on("error", swallow);
      }
      return stream;
    },
    notifyResponseByteRead(stream) {
      sessionManager.notifyResponseByteRead(stream);
    },
  };
  const baseClient = createNodeHttpClient({ httpVersion: "2", sessionProvider: () => guardedManager });
  const bodies = new Map<string, EncodedChunks>();
  let nextToken = 0;

  const httpClient: UniversalClientFn = (request) => {
    const token = request.header.get(preEncodedHeader);
    if (token === null) return baseClient(request);
    const header = new Headers(request.header);
    header.delete(preEncodedHeader);
    const body = bodies.get(token);
    if (body === undefined) {
      return Promise.reject(new Error(`cuzkit: pre-encoded body ${token} is missing`));
    }
    // connect's own body is the 5-byte frame of an empty message; ours replaces it.
    return baseClient({ ...request, header, body: iterate(body.chunks) });
  };

  const transport = createTransport({
    httpClient,
    baseUrl: address.baseUrl,
    useBinaryFormat: true,
    interceptors: [],
    // The daemon has no compression (a compressed request gets UNIMPLEMENTED).
    acceptCompression: [],
    sendCompression: null,
    compressMinBytes: Number.MAX_SAFE_INTEGER,
    readMaxBytes: options.readMaxBytes,
    // Sizes are checked before sending (validate.ts); connect only sees small messages.
    writeMaxBytes: 0xffffffff,
  });

  return {
    transport,
    registerBody(body) {
      nextToken += 1;
      const token = String(nextToken);
      bodies.set(token, body);
      return token;
    },
    releaseBody(token) {
      bodies.delete(token);
    },
    close() {
      bodies.clear();
      sessionManager.abort();
    },
  };
}
