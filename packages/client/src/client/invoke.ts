import { linkSignals } from "@cuzkit/core";
import { ProvingEngine, type SubmitProofRequest } from "@cuzkit/proto";
import { checkDeadlineMs, wholeMs } from "../duration.js";
import { encodeSubmitFrame } from "../encode.js";
import {
  AbortedError,
  LocalTransportError,
  RequestIdReusedError,
  requestIdReusedMessage,
} from "../errors.js";
import { toCuzkError } from "../map-error.js";
import type { SubmitCallOptions } from "../prove.js";
import type { ClientState } from "./state.js";

// How every RPC of the client runs: its deadline, the caller's and the close signal, and the
// mapping of every failure to a typed error.

/** The `timeoutMs` option of `method()`, checked (see checkDeadlineMs), else `fallback`. */
export function checkTimeout(method: string, timeoutMs: number | undefined, fallback: number): number {
  return checkDeadlineMs(`${method}() option timeoutMs`, timeoutMs, fallback);
}

/** A call's signal and its checked deadline (the caller's, else `fallbackMs`). */
export function callDeadline(
  rpcName: string,
  callOptions: { signal?: AbortSignal | undefined; timeoutMs?: number | undefined } | undefined,
  fallbackMs: number,
): { signal: AbortSignal | undefined; timeoutMs: number } {
  return {
    signal: callOptions?.signal,
    timeoutMs: checkTimeout(rpcName, callOptions?.timeoutMs, fallbackMs),
  };
}

/** Runs one RPC with the caller's signal, the close signal and a deadline; maps every failure. */
export async function invoke<T>(
  state: ClientState,
  name: string,
  call: { signal?: AbortSignal | undefined; timeoutMs: number; jobId?: string | undefined },
  run: (o: { signal: AbortSignal; timeoutMs: number }) => Promise<T>,
): Promise<T> {
  const { closing, address } = state;
  if (closing.signal.aborted) throw new AbortedError("the client is closed", { rpc: name, address });
  const linked = linkSignals(call.signal, closing.signal);
  // Deadlines computed from a monotonic clock are fractional; the wire takes whole ms.
  const timeoutMs = wholeMs(call.timeoutMs);
  try {
    return await run({ signal: linked.signal, timeoutMs });
  } catch (error) {
    const typed = toCuzkError(error, {
      rpc: name,
      jobId: call.jobId,
      address,
      callerSignal: call.signal,
      clientClosed: closing.signal.aborted,
      timeoutMs,
    });
    // A fault of our own session: new calls must not land on it (the pre-encoded path
    // retires the session it used itself).
    if (typed instanceof LocalTransportError && name !== "SubmitProof" && name !== "Prove") {
      state.daemonTransport.retireCurrentSession();
    }
    throw typed;
  } finally {
    linked.dispose();
  }
}

/**
 * Sends SubmitProof (or Prove) from a frame encoded without copying the payload. The id
 * counts as sent from here on, unless the body provably never got out.
 */
export async function sendEncoded<T>(
  state: ClientState,
  name: "SubmitProof" | "Prove",
  request: SubmitProofRequest,
  call: SubmitCallOptions,
): Promise<T> {
  const { daemonTransport, sentIds } = state;
  const body = encodeSubmitFrame(request, name === "Prove");
  sentIds.add(request.requestId);
  try {
    return await invoke(state, name, { ...call, jobId: request.requestId }, (o): Promise<T> => {
      const pre = { ...o, upload: call.upload };
      return (
        name === "Prove"
          ? daemonTransport.unaryPreEncoded(ProvingEngine.method.prove, body, pre)
          : daemonTransport.unaryPreEncoded(ProvingEngine.method.submitProof, body, pre)
      ) as Promise<T>;
    });
  } catch (error) {
    if (!call.upload.complete) sentIds.forget(request.requestId);
    throw error;
  }
}

/** Refuses an id this client already sent, unless the caller says it may be reused. */
export function checkFreshId(
  state: ClientState,
  rpc: string,
  requestId: string,
  allowReusedId: boolean | undefined,
): void {
  if (allowReusedId !== true && state.sentIds.has(requestId)) {
    throw new RequestIdReusedError(requestIdReusedMessage(requestId), {
      requestId,
      rpc,
      address: state.address,
    });
  }
}
