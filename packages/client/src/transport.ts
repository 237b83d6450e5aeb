import { channel } from "node:diagnostics_channel";
import type { ClientHttp2Stream, Http2Session } from "node:http2";
import { connect as netConnect } from "node:net";
import { create, type DescMessage, type DescMethodUnary, type MessageShape } from "@bufbuild/protobuf";
import type { Transport } from "@connectrpc/connect";
import type { UniversalClientFn } from "@connectrpc/connect/protocol";
import { createTransport } from "@connectrpc/connect/protocol-grpc";
import { createNodeHttpClient, Http2SessionManager } from "@connectrpc/connect-node";
import type { DaemonAddress } from "./address.js";
import type { EncodedChunks } from "./encode.js";
import { isLocalTransportFault } from "./map-error.js";

// The gRPC transport: what connect-node's createGrpcTransport builds (an Http2SessionManager,
// the node HTTP/2 client, the gRPC protocol), assembled here for three reasons:
// 1. close() must release the HTTP/2 session, which a connect Transport cannot do;
// 2. SubmitProof/Prove send a frame encoded by encode.ts (payload by reference) through an
//    explicit call, unaryPreEncoded, instead of connect's copy-twice serialization;
// 3. a session whose stream was cancelled with request body still unsent is retired: Node
//    keeps the unsent bytes charged to the session and then refuses every new stream on it
//    with ENHANCE_YOUR_CALM (measured: a 120 MB submit cut after 30 ms poisons the session
//    for good). New calls get a fresh session; calls still open on the old one finish there.

/**
 * Name of the diagnostics channel on which the transport publishes `{ stream }` for every HTTP/2
 * stream it opens (its session is `stream.session`). connect-node's PING timers expose no event;
 * a test subscribes here and waits for the streams and sessions to close instead of sleeping.
 * Nothing is published while no one subscribes.
 */
export const http2StreamChannelName = "cuzkit:client:http2-stream";
const http2StreamChannel = channel(http2StreamChannelName);

/** connect-node's session manager interface (not exported by name). */
type NodeHttp2ClientSessionManager = ReturnType<
  NonNullable<Extract<Parameters<typeof createNodeHttpClient>[0], { httpVersion: "2" }>["sessionProvider"]>
>;

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

/** How far the body of a pre-encoded call got; updated while it is sent. */
export interface UploadProgress {
  /** Bytes whose write completed (handed to the HTTP/2 session). */
  sentBytes: number;
  /** True once the whole body was written: only then can the daemon have the request. */
  complete: boolean;
}

/** Options of one pre-encoded call. */
export interface PreEncodedCallOptions {
  /** Aborts the call. */
  signal: AbortSignal;
  /** Deadline in ms. */
  timeoutMs: number;
  /** Filled in as the body goes out. */
  upload: UploadProgress;
}

/** A transport plus the handles the client needs around it. */
export interface DaemonTransport {
  /** The connect transport every ordinary RPC goes through. */
  transport: Transport;
  /** Sends a unary call whose request frame is already encoded (`body`, envelope included). */
  unaryPreEncoded<I extends DescMessage, O extends DescMessage>(
    method: DescMethodUnary<I, O>,
    body: EncodedChunks,
    call: PreEncodedCallOptions,
  ): Promise<MessageShape<O>>;
  /** Moves new calls to a fresh HTTP/2 session (after a local fault on the current one). */
  retireCurrentSession(): void;
  /** Sessions opened so far (1 until a session was retired). */
  sessionsOpened(): number;
  /** Closes every HTTP/2 session and fails open calls. */
  close(): void;
}

/** One HTTP/2 session manager and the HTTP client bound to it. */
interface SessionEntry {
  manager: Http2SessionManager;
  client: UniversalClientFn;
  openStreams: number;
  retired: boolean;
  /** A stream open on the session, to name it to the manager; undefined when none is. */
  anyStream: ClientHttp2Stream | undefined;
  /** Upload writes completed on the session so far (liveness evidence for PINGs). */
  uploadWrites: number;
  /** Pre-encoded calls open on the session. */
  uploadsOpen: number;
}

/**
 * Largest piece of the body handed to one HTTP/2 write, in bytes. A 51 MB C1 is one chunk by
 * reference; written whole, its write completes only at the end, so progress read 0 MB until
 * then. Written in views of this size (no copies), progress and liveness advance with the link.
 */
export const uploadSliceBytes = 256 * 1024;

async function* sendChunks(
  body: EncodedChunks,
  upload: UploadProgress,
  onProgress: () => void,
): AsyncIterable<Uint8Array> {
  for (const chunk of body.chunks) {
    for (let offset = 0; offset < chunk.byteLength; offset += uploadSliceBytes) {
      const slice = chunk.subarray(offset, Math.min(offset + uploadSliceBytes, chunk.byteLength));
      yield slice;
      // Resumed only after the write of `slice` completed: the session took it, which it does
      // only as the daemon's flow-control window and the socket let it out.
      upload.sentBytes += slice.byteLength;
      onProgress();
    }
  }
  upload.complete = true;
}

/**
 * Tells the session manager the connection is alive, as connect-node's "response byte read":
 * that restarts its PING interval and cancels a pending PING timeout.
 */
function markAlive(entry: SessionEntry): void {
  if (entry.anyStream !== undefined) entry.manager.notifyResponseByteRead(entry.anyStream);
}

/** An upload write completed: the daemon granted flow-control window and the link took the bytes. */
function uploadProgressed(entry: SessionEntry): void {
  entry.uploadWrites += 1;
  markAlive(entry);
}

/** Bytes the daemon's side has sent on the session's socket so far (frames of any kind). */
function bytesReadOf(entry: SessionEntry): number {
  return entry.anyStream?.session?.socket?.bytesRead ?? 0;
}

/**
 * While an upload runs, any sign of the daemon counts as alive: an upload write completed, or
 * bytes arrived from it (WINDOW_UPDATE frames as it reads the body, a late PING answer). On a slow
 * link a PING waits behind megabytes of DATA in the socket, so its round trip measures the queue,
 * not the daemon; a daemon that is frozen grants no window and sends nothing, and still fails the
 * PING timeout. Checked every half PING timeout; returns the function that stops the watch.
 */
function watchUploadLiveness(entry: SessionEntry, pingTimeoutMs: number): () => void {
  entry.uploadsOpen += 1;
  let seen = { writes: entry.uploadWrites, bytesRead: bytesReadOf(entry) };
  const timer = setInterval(
    () => {
      const now = { writes: entry.uploadWrites, bytesRead: bytesReadOf(entry) };
      if (now.writes !== seen.writes || now.bytesRead !== seen.bytesRead) markAlive(entry);
      seen = now;
    },
    Math.max(1, Math.floor(pingTimeoutMs / 2)),
  );
  timer.unref();
  return () => {
    clearInterval(timer);
    entry.uploadsOpen -= 1;
  };
}

/**
 * A PING answered while an upload is open on the session counts as answered in time: the daemon
 * answered, and the delay was the upload queued ahead of the PING. connect-node destroys the
 * session for an answer later than pingTimeoutMs; for such a PING it is told 0 ms.
 */
function answeredWhileUploadingIsAlive(session: Http2Session, entry: SessionEntry): void {
  const ping = session.ping.bind(session);
  const patched = (...args: unknown[]): boolean => {
    const callback = args.findLast((a) => typeof a === "function") as PingCallback | undefined;
    if (callback === undefined) return (ping as (...a: unknown[]) => boolean)(...args);
    const payload = args.find((a) => a instanceof Uint8Array) as Buffer | undefined;
    const wrapped: PingCallback = (error, durationMs, answer) =>
      callback(error, entry.uploadsOpen > 0 ? 0 : durationMs, answer);
    return payload === undefined ? ping(wrapped) : ping(payload, wrapped);
  };
  session.ping = patched as typeof session.ping;
}

type PingCallback = (error: Error | null, durationMs: number, payload: Buffer) => void;

/** Node's http2 connect options, through connect-node (types we do not own). */
type NodeConnectOptions = ConstructorParameters<typeof Http2SessionManager>[2];

/** The sessions' shared state: what opening one needs. */
interface SessionPool {
  readonly options: DaemonTransportOptions;
  readonly nodeOptions: NodeConnectOptions;
  /** Sessions that got the "error" listener (see createDaemonTransport). */
  readonly guarded: WeakSet<object>;
  /** Sessions not yet released. */
  readonly live: Set<SessionEntry>;
  /** Sessions opened so far. */
  opened: number;
}

/** The transport's state, shared by the steps below. */
interface TransportState extends SessionPool {
  /** True once close() ran: a retired session is then not replaced. */
  closed: boolean;
  /** The session new calls go to. */
  current: SessionEntry;
}

/** Does nothing with a session's error: each call still fails with its own stream error. */
const swallow = () => {};

/** Drops a session from the live set and aborts its manager (closing the connection). */
function release(state: SessionPool, entry: SessionEntry): void {
  state.live.delete(entry);
  entry.manager.abort();
}

/** Moves new calls off `entry`; it is released once its last stream closes. */
function retire(state: TransportState, entry: SessionEntry): void {
  if (entry.retired) return;
  entry.retired = true;
  if (state.current === entry && !state.closed) state.current = openSession(state);
  if (entry.openStreams === 0) release(state, entry);
}

/** Counts a new stream on the session (guarding the session on its first stream) until it closes. */
function trackStream(state: SessionPool, entry: SessionEntry, stream: ClientHttp2Stream): void {
  const session = stream.session;
  if (session && !state.guarded.has(session)) {
    state.guarded.add(session);
    session.on("error", swallow);
    answeredWhileUploadingIsAlive(session, entry);
  }
  if (http2StreamChannel.hasSubscribers) http2StreamChannel.publish({ stream });
  entry.openStreams += 1;
  entry.anyStream = stream;
  stream.once("close", () => {
    entry.openStreams -= 1;
    if (entry.anyStream === stream) entry.anyStream = undefined;
    if (entry.retired && entry.openStreams === 0) release(state, entry);
  });
}

/** Opens a session manager (dialled on its first request) and the HTTP client bound to it. */
function openSession(state: SessionPool): SessionEntry {
  const { options } = state;
  state.opened += 1;
  const manager = new Http2SessionManager(
    options.address.baseUrl,
    {
      pingIntervalMs: options.pingIntervalMs,
      pingTimeoutMs: options.pingTimeoutMs,
      // Ping only while a call is open: a proof call is silent for minutes, an idle
      // connection needs no pings (and is verified with one before reuse).
      pingIdleConnection: false,
      idleConnectionTimeoutMs: options.idleConnectionTimeoutMs,
    },
    state.nodeOptions,
  );
  const counts = { openStreams: 0, retired: false, anyStream: undefined, uploadWrites: 0, uploadsOpen: 0 };
  const sessionManager: NodeHttp2ClientSessionManager = {
    authority: manager.authority,
    async request(method, path, headers, requestOptions) {
      const stream = await manager.request(method, path, headers, requestOptions);
      trackStream(state, entry, stream);
      return stream;
    },
    notifyResponseByteRead(stream) {
      manager.notifyResponseByteRead(stream);
    },
  };
  const entry: SessionEntry = Object.assign(counts, {
    manager,
    client: createNodeHttpClient({ httpVersion: "2", sessionProvider: () => sessionManager }),
  });
  state.live.add(entry);
  return entry;
}

/** The gRPC protocol options of every call (the HTTP client added per transport). */
function protocolOptions(options: DaemonTransportOptions) {
  return {
    baseUrl: options.address.baseUrl,
    useBinaryFormat: true,
    interceptors: [],
    // The daemon has no compression (a compressed request gets UNIMPLEMENTED).
    acceptCompression: [],
    sendCompression: null,
    compressMinBytes: Number.MAX_SAFE_INTEGER,
    readMaxBytes: options.readMaxBytes,
    // Sizes are checked before sending (validate.ts); connect only sees small messages.
    writeMaxBytes: 0xffffffff,
  };
}

/** One pre-encoded unary call on the current session; retires the session if the body was cut or it faulted. */
async function sendPreEncoded<I extends DescMessage, O extends DescMessage>(
  state: TransportState,
  method: DescMethodUnary<I, O>,
  body: EncodedChunks,
  call: PreEncodedCallOptions,
): Promise<MessageShape<O>> {
  const entry = state.current;
  // A transport for this one call: connect runs the gRPC protocol (headers, deadline,
  // response and trailers) and its own body, the 5-byte frame of an empty message, is
  // replaced by the encoded one.
  const single = createTransport({
    ...protocolOptions(state.options),
    httpClient: (request) =>
      entry.client({ ...request, body: sendChunks(body, call.upload, () => uploadProgressed(entry)) }),
  });
  const stopWatch = watchUploadLiveness(entry, state.options.pingTimeoutMs);
  try {
    const response = await single.unary(
      method,
      call.signal,
      call.timeoutMs,
      undefined,
      create(method.input) as never,
    );
    return response.message;
  } catch (error) {
    if (!call.upload.complete || isLocalTransportFault(error)) retire(state, entry);
    throw error;
  } finally {
    stopWatch();
  }
}

/** Creates the gRPC-over-HTTP/2 transport to one daemon (TCP or unix socket). */
export function createDaemonTransport(options: DaemonTransportOptions): DaemonTransport {
  const { address } = options;
  // Node's http2 options, through connect-node (types we do not own): a TCP address must not carry
  // a createConnection key at all.
  const nodeOptions = address.kind === "unix" ? { createConnection: () => netConnect(address.path) } : {};
  // connect-node 2.1.2 race: when a PING times out it destroys the session with an error,
  // but if a new call moves the manager to a fresh connection first, the old session has
  // no "error" listener left and Node throws the error as an uncaught exception (it would
  // kill the caller's process). Every session that carries a call gets a listener that
  // swallows it (trackStream); calls still fail with their own stream errors.
  const pool: SessionPool = { options, nodeOptions, guarded: new WeakSet(), live: new Set(), opened: 0 };
  // The same object: the sessions' stream listeners hold it.
  const state: TransportState = Object.assign(pool, { closed: false, current: openSession(pool) });

  const transport = createTransport({
    ...protocolOptions(options),
    httpClient: (request) => state.current.client(request),
  });

  return {
    transport,
    unaryPreEncoded: (method, body, call) => sendPreEncoded(state, method, body, call),
    retireCurrentSession() {
      retire(state, state.current);
    },
    sessionsOpened() {
      return state.opened;
    },
    close() {
      state.closed = true;
      for (const entry of [...state.live]) {
        entry.retired = true;
        release(state, entry);
      }
    },
  };
}
