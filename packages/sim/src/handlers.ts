import { create, type DescMessage, fromBinary, type MessageShape } from "@bufbuild/protobuf";
import {
  CuzkitError,
  daemonMaxMessageBytes,
  isCircuitId,
  type Logger,
  proofKindFromWire,
} from "@cuzkit/core";
import {
  AwaitProofRequestSchema,
  CancelProofRequestSchema,
  CancelProofResponseSchema,
  EvictSrsRequestSchema,
  EvictSrsResponseSchema,
  GetMetricsRequestSchema,
  GetMetricsResponseSchema,
  GetStatusRequestSchema,
  PreloadSrsRequestSchema,
  PreloadSrsResponseSchema,
  ProveRequestSchema,
  ProveResponseSchema,
  SubmitProofRequestSchema,
  SubmitProofResponseSchema,
} from "@cuzkit/proto";
import {
  type ServerUnaryCall,
  type sendUnaryData,
  status,
  type UntypedServiceImplementation,
} from "@grpc/grpc-js";
import type { SimEngine } from "./engine.js";
import { jobIdOfRequest, type SimRpcMethod } from "./received-calls.js";

// The eight RPCs, answering as cuzk-server's service.rs does (docs/daemon-facts.md
// section 1): codes, messages and no-op methods included.

/** A gRPC status an RPC answers with instead of a response. */
export class RpcStatusError extends CuzkitError<`RPC_${string}`> {
  /** The gRPC status the RPC answers with. */
  readonly grpcCode: status;
  constructor(message: string, options: { grpcCode: status }) {
    super(message, {
      code: `RPC_${status[options.grpcCode]}`,
      hint: "the simulated daemon answered with this gRPC status",
    });
    this.grpcCode = options.grpcCode;
  }
}

type Handler = (call: ServerUnaryCall<Buffer, unknown>, callback: sendUnaryData<unknown>) => void;

/** What the handlers tell the daemon. */
export interface HandlerHooks {
  /** Called each time an answer (response or status) is handed to grpc-js for a live call. */
  onAnswer(): void;
  /** Called as each decoded request starts running, with the job it is about. */
  onReceived(method: SimRpcMethod, jobId: string | undefined): void;
}

function unary<Desc extends DescMessage>(
  name: SimRpcMethod,
  schema: Desc,
  logger: Logger,
  hooks: HandlerHooks,
  run: (request: MessageShape<Desc>) => unknown | Promise<unknown>,
): Handler {
  return (call, answer) => {
    const callback: sendUnaryData<unknown> = (error, value) => {
      if (!call.cancelled) hooks.onAnswer();
      answer(error, value);
    };
    const bytes = call.request;
    if (bytes.byteLength > daemonMaxMessageBytes) {
      // tonic checks the length prefix against max_decoding_message_size (128 MiB).
      callback({
        code: status.OUT_OF_RANGE,
        details: `Error, decoded message length too large: found ${bytes.byteLength} bytes, the limit is: ${daemonMaxMessageBytes} bytes`,
      });
      return;
    }
    let request: MessageShape<Desc>;
    try {
      request = fromBinary(schema, bytes);
    } catch (error) {
      callback({
        code: status.INTERNAL,
        details: `failed to decode Protobuf message: ${error instanceof Error ? error.message : String(error)}`,
      });
      return;
    }
    logger.debug("rpc", { method: name, bytes: bytes.byteLength });
    Promise.resolve()
      .then(() => {
        hooks.onReceived(name, jobIdOfRequest(request));
        return run(request);
      })
      .then(
        (response) => callback(null, response),
        (error: unknown) => {
          if (error instanceof RpcStatusError) callback({ code: error.grpcCode, details: error.message });
          else {
            logger.error("rpc failed", {
              method: name,
              error: error instanceof Error ? error.message : String(error),
            });
            callback({ code: status.INTERNAL, details: `internal error: ${String(error)}` });
          }
        },
      );
  };
}

function checkKind(value: number): void {
  if (proofKindFromWire(value) === undefined) {
    throw new RpcStatusError(`invalid proof_kind: ${value}`, { grpcCode: status.INVALID_ARGUMENT });
  }
}

/** The handlers of one daemon run, keyed by proto method name, all bound to `engine`. */
export function createProvingEngineHandlers(
  engine: SimEngine,
  logger: Logger,
  hooks: HandlerHooks,
): UntypedServiceImplementation {
  return {
    SubmitProof: unary("SubmitProof", SubmitProofRequestSchema, logger, hooks, (request) => {
      checkKind(request.proofKind);
      const submission = engine.submit(request, false);
      return create(SubmitProofResponseSchema, {
        jobId: submission.jobId,
        queuePosition: submission.queuePosition,
        assignedGpu: "",
      });
    }),
    AwaitProof: unary("AwaitProof", AwaitProofRequestSchema, logger, hooks, async (request) => {
      // timeout_ms is ignored, as upstream: the call blocks until the job ends or the client gives up.
      const result = engine.awaitJob(request.jobId);
      if (!result)
        throw new RpcStatusError(`job not found: ${request.jobId}`, { grpcCode: status.NOT_FOUND });
      return await result;
    }),
    Prove: unary("Prove", ProveRequestSchema, logger, hooks, async (request) => {
      const submit = request.submit;
      if (!submit) throw new RpcStatusError("missing submit field", { grpcCode: status.INVALID_ARGUMENT });
      checkKind(submit.proofKind);
      const submission = engine.submit(submit, true);
      const result = await submission.result!;
      // The service answers with the request id as given: "" when the engine generated one.
      return create(ProveResponseSchema, { result: { ...result, jobId: submit.requestId } });
    }),
    CancelProof: unary("CancelProof", CancelProofRequestSchema, logger, hooks, (request) => {
      logger.info("CancelProof is a no-op in the daemon; nothing cancelled", {
        jobId: request.jobId,
      });
      return create(CancelProofResponseSchema, { wasRunning: false });
    }),
    GetStatus: unary("GetStatus", GetStatusRequestSchema, logger, hooks, () => engine.getStatus()),
    GetMetrics: unary("GetMetrics", GetMetricsRequestSchema, logger, hooks, () =>
      create(GetMetricsResponseSchema, { prometheusText: engine.metricsText() }),
    ),
    PreloadSRS: unary("PreloadSRS", PreloadSrsRequestSchema, logger, hooks, async (request) => {
      if (!isCircuitId(request.circuitId)) {
        throw new RpcStatusError(`unknown circuit ID: ${request.circuitId}`, { grpcCode: status.INTERNAL });
      }
      const loaded = await engine.preloadSrs(request.circuitId);
      return create(PreloadSrsResponseSchema, {
        alreadyLoaded: loaded.alreadyLoaded,
        loadTimeMs: BigInt(loaded.loadTimeMs),
      });
    }),
    EvictSRS: unary("EvictSRS", EvictSrsRequestSchema, logger, hooks, (request) => {
      logger.info("EvictSRS is a no-op in the daemon; nothing evicted", {
        circuitId: request.circuitId,
      });
      return create(EvictSrsResponseSchema, { wasLoaded: false, freedBytes: 0n });
    }),
  };
}
