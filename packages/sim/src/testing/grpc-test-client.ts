import { create, type DescMessage, type MessageInitShape, type MessageShape } from "@bufbuild/protobuf";
import { CuzkitError } from "@cuzkit/core";
import {
  AwaitProofRequestSchema,
  type AwaitProofResponse,
  CancelProofRequestSchema,
  type CancelProofResponse,
  EvictSrsRequestSchema,
  type EvictSrsResponse,
  GetMetricsRequestSchema,
  type GetMetricsResponse,
  GetStatusRequestSchema,
  type GetStatusResponse,
  PreloadSrsRequestSchema,
  type PreloadSrsResponse,
  ProveRequestSchema,
  type ProveResponse,
  SubmitProofRequestSchema,
  type SubmitProofResponse,
} from "@cuzkit/proto";
import * as grpc from "@grpc/grpc-js";
import { provingEngineClientDefinition } from "../grpc-service.js";

// A plain @grpc/grpc-js client of cuzk.v1.ProvingEngine with protobuf-es messages: a baseline
// for tests of the simulator, the client and the bench (an independent HTTP/2 stack).

/** Per-call options. */
export interface PlainCallOptions {
  /** Deadline relative to now, in milliseconds. Default: none. */
  timeoutMs?: number | undefined;
  /** Cancels the call when aborted. */
  signal?: AbortSignal | undefined;
}

/** Options of createPlainGrpcClient. */
export interface PlainGrpcClientOptions {
  /** Extra grpc-js channel options (e.g. "grpc.keepalive_time_ms"). Default: none. */
  channelOptions?: grpc.ChannelOptions | undefined;
}

/** A gRPC status returned by the server (or by grpc-js for transport failures). */
export class PlainGrpcCallError extends CuzkitError<`GRPC_${string}`> {
  /** The gRPC status code (grpc.status). */
  readonly grpcCode: grpc.status;
  /** The status details text. */
  readonly details: string;
  constructor(
    message: string,
    options: { grpcCode: grpc.status; details: string; cause?: unknown | undefined },
  ) {
    const { grpcCode } = options;
    super(message, {
      code: `GRPC_${grpc.status[grpcCode] ?? grpcCode}`,
      hint: "see the gRPC status code and details",
      retryable: grpcCode === grpc.status.UNAVAILABLE,
      cause: options.cause,
    });
    this.grpcCode = grpcCode;
    this.details = options.details;
  }
}

type Init<Desc extends DescMessage> = MessageInitShape<Desc>;
/** One RPC with a request message. */
type Call<Request extends DescMessage, Response> = (
  request: Init<Request>,
  options?: PlainCallOptions,
) => Promise<Response>;

/** Every RPC of the daemon as a promise. */
export interface PlainGrpcClient {
  submitProof: Call<typeof SubmitProofRequestSchema, SubmitProofResponse>;
  awaitProof: Call<typeof AwaitProofRequestSchema, AwaitProofResponse>;
  prove: Call<typeof ProveRequestSchema, ProveResponse>;
  cancelProof: Call<typeof CancelProofRequestSchema, CancelProofResponse>;
  getStatus(options?: PlainCallOptions): Promise<GetStatusResponse>;
  getMetrics(options?: PlainCallOptions): Promise<GetMetricsResponse>;
  preloadSrs: Call<typeof PreloadSrsRequestSchema, PreloadSrsResponse>;
  evictSrs: Call<typeof EvictSrsRequestSchema, EvictSrsResponse>;
  /** The underlying grpc-js client. */
  readonly raw: grpc.Client;
  /** Closes the channel. */
  close(): void;
}

/**
 * Creates a grpc-js client for `address` ("127.0.0.1:PORT", "[::1]:PORT" or "unix:///path").
 * Sends up to any size (the server enforces its cap) and receives up to 128 MiB; uses its own
 * connection (no subchannel shared with other clients). Calls reject
 * with PlainGrpcCallError carrying the gRPC code.
 */
export function createPlainGrpcClient(
  address: string,
  options: PlainGrpcClientOptions = {},
): PlainGrpcClient {
  const Client = grpc.makeGenericClientConstructor(provingEngineClientDefinition(), "ProvingEngine");
  const client = new Client(address, grpc.credentials.createInsecure(), {
    "grpc.max_send_message_length": -1,
    "grpc.max_receive_message_length": 128 * 1024 * 1024,
    // Each client gets its own connection, as separate processes would (grpc-js otherwise
    // shares subchannels between clients of the same address, backoff state included).
    "grpc.use_local_subchannel_pool": 1,
    ...options.channelOptions,
  });
  const call = <Req extends DescMessage, Res>(
    method: string,
    schema: Req,
    init: Init<Req>,
    callOptions: PlainCallOptions = {},
  ): Promise<Res> =>
    new Promise<Res>((resolve, reject) => {
      const metadata = new grpc.Metadata();
      // A timeout becomes grpc-js's absolute deadline (its CallOptions type, which takes no undefined).
      const grpcOptions: grpc.CallOptions =
        callOptions.timeoutMs === undefined ? {} : { deadline: Date.now() + callOptions.timeoutMs };
      const request: MessageShape<Req> = create(schema, init);
      const fn = (client as unknown as Record<string, grpc.requestCallback<Res> | unknown>)[method] as (
        request: unknown,
        metadata: grpc.Metadata,
        options: grpc.CallOptions,
        callback: grpc.requestCallback<Res>,
      ) => grpc.ClientUnaryCall;
      const pending = fn.call(client, request, metadata, grpcOptions, (error, response) => {
        callOptions.signal?.removeEventListener("abort", onAbort);
        if (error)
          reject(
            new PlainGrpcCallError(`${grpc.status[error.code] ?? error.code}: ${error.details}`, {
              grpcCode: error.code,
              details: error.details,
              cause: error,
            }),
          );
        else resolve(response as Res);
      });
      const onAbort = () => pending.cancel();
      if (callOptions.signal?.aborted) pending.cancel();
      else callOptions.signal?.addEventListener("abort", onAbort, { once: true });
    });
  return {
    submitProof: (request, o) => call("SubmitProof", SubmitProofRequestSchema, request, o),
    awaitProof: (request, o) => call("AwaitProof", AwaitProofRequestSchema, request, o),
    prove: (request, o) => call("Prove", ProveRequestSchema, request, o),
    cancelProof: (request, o) => call("CancelProof", CancelProofRequestSchema, request, o),
    getStatus: (o) => call("GetStatus", GetStatusRequestSchema, {}, o),
    getMetrics: (o) => call("GetMetrics", GetMetricsRequestSchema, {}, o),
    preloadSrs: (request, o) => call("PreloadSRS", PreloadSrsRequestSchema, request, o),
    evictSrs: (request, o) => call("EvictSRS", EvictSrsRequestSchema, request, o),
    raw: client,
    close: () => client.close(),
  };
}

/** Resolves with the PlainGrpcCallError a call fails with; rejects if it succeeds or fails otherwise (for tests). */
export async function grpcError(promise: Promise<unknown>): Promise<PlainGrpcCallError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof PlainGrpcCallError) return error;
    throw error;
  }
  throw new Error("expected the call to fail");
}
