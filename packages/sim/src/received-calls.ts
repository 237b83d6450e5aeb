import { CuzkitError } from "@cuzkit/core";
import { SimStoppedError } from "./errors.js";
import { createWaitList } from "./wait-list.js";

// Which RPCs the daemon has received, so a test can wait for "the daemon has this AwaitProof"
// instead of sleeping and hoping it arrived. Counts cover the daemon object's whole life (every
// run), and a wait is satisfied by calls received before it began as well as after.

/** The RPC methods of cuzk.v1.ProvingEngine. */
export type SimRpcMethod =
  | "SubmitProof"
  | "AwaitProof"
  | "Prove"
  | "CancelProof"
  | "GetStatus"
  | "GetMetrics"
  | "PreloadSRS"
  | "EvictSRS";

/** Which calls a wait is for. */
export interface ReceivedCallQuery {
  /** Only calls for this job (AwaitProof/CancelProof job_id, SubmitProof/Prove request_id). Default: any. */
  jobId?: string | undefined;
  /** How many such calls must have arrived, counting from the daemon's start. Default 1. */
  count?: number | undefined;
  /** Gives up waiting (rejects with the signal's reason). */
  signal?: AbortSignal | undefined;
}

/** The ledger of received calls. */
export interface ReceivedCalls {
  /** Records one call the handlers have taken in (decoded, about to be run). */
  record(method: SimRpcMethod, jobId: string | undefined): void;
  /** How many calls of `method` (for `jobId`, when given) have arrived. */
  count(method: SimRpcMethod, jobId?: string | undefined): number;
  /** Every method's count. */
  counts(): Partial<Record<SimRpcMethod, number>>;
  /** Resolves once the query's calls have arrived; rejects when the ledger closes first. */
  whenReceived(method: SimRpcMethod, query?: ReceivedCallQuery): Promise<void>;
  /** Rejects every pending wait (the daemon stopped: no call will come). */
  close(): void;
}

interface Wanted {
  method: SimRpcMethod;
  jobId: string | undefined;
  count: number;
}

/** The job a request is about: job_id, or the request_id it will run under. */
export function jobIdOfRequest(request: object): string | undefined {
  const fields = request as { jobId?: unknown; requestId?: unknown; submit?: { requestId?: unknown } };
  const id = fields.jobId ?? fields.requestId ?? fields.submit?.requestId;
  return typeof id === "string" && id !== "" ? id : undefined;
}

/** Creates an empty ledger. */
export function createReceivedCalls(): ReceivedCalls {
  const byKey = new Map<string, number>();
  const waits = createWaitList<Wanted, void>();
  const key = (method: SimRpcMethod, jobId: string | undefined) =>
    jobId === undefined ? method : `${method}\u0000${jobId}`;
  const count = (method: SimRpcMethod, jobId?: string | undefined) => byKey.get(key(method, jobId)) ?? 0;
  const stoppedError = () =>
    new SimStoppedError("the simulated daemon stopped before the awaited call arrived", {
      hint: "the call the test waits for was never sent, or the daemon was stopped too early",
    });

  return {
    record(method, jobId) {
      byKey.set(method, count(method) + 1);
      if (jobId !== undefined) byKey.set(key(method, jobId), count(method, jobId) + 1);
      waits.settle((wanted) => count(wanted.method, wanted.jobId) >= wanted.count, undefined);
    },
    count,
    counts: () =>
      Object.fromEntries([...byKey].filter(([k]) => !k.includes("\u0000"))) as Partial<
        Record<SimRpcMethod, number>
      >,
    whenReceived(method, query = {}) {
      const wanted = query.count ?? 1;
      if (!Number.isInteger(wanted) || wanted < 1) {
        return Promise.reject(
          new CuzkitError(`count must be a whole number >= 1, got ${wanted}`, {
            code: "INVALID_INPUT",
            hint: "pass count: 1 (the default) or more",
          }),
        );
      }
      if (count(method, query.jobId) >= wanted) return Promise.resolve();
      return waits.wait({ method, jobId: query.jobId, count: wanted }, query.signal);
    },
    close() {
      waits.close(stoppedError());
    },
  };
}
