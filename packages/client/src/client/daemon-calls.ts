import { isCircuitId } from "@cuzkit/core";
import type { CancelProofResponse, EvictSrsResponse, PreloadSrsResponse } from "@cuzkit/proto";
import { AbortedError, InvalidRequestError } from "../errors.js";
import { type DaemonMetrics, parseDaemonMetrics } from "../metrics.js";
import { waitUntilReady } from "../ready.js";
import type { DaemonStatus } from "../status.js";
import { callDeadline, checkTimeout, invoke } from "./invoke.js";
import type { ClientState } from "./state.js";
import { fetchStatus } from "./status-cache.js";
import type { CallOptions, CuzkClient, WaitForReadyOptions } from "./types.js";

// The client's calls about the daemon rather than one proof: cancel, status, metrics, SRS,
// readiness, and close.

/** CuzkClient.cancelProof (a no-op in the daemon). */
export async function cancelProof(
  state: ClientState,
  request: Parameters<CuzkClient["cancelProof"]>[0],
  callOptions: CallOptions | undefined,
): Promise<CancelProofResponse> {
  const jobId = typeof request === "string" ? request : (request.jobId ?? "");
  return invoke(
    state,
    "CancelProof",
    { ...callDeadline("cancelProof", callOptions, state.options.deadlines.cancelMs), jobId },
    (o) => state.rpc.cancelProof({ jobId }, o),
  );
}

/** CuzkClient.getStatus. */
export async function getStatus(
  state: ClientState,
  callOptions: CallOptions | undefined,
): Promise<DaemonStatus> {
  return fetchStatus(state, callDeadline("getStatus", callOptions, state.options.deadlines.statusMs));
}

/** CuzkClient.getMetrics: the Prometheus text, parsed. */
export async function getMetrics(
  state: ClientState,
  callOptions: CallOptions | undefined,
): Promise<DaemonMetrics> {
  const raw = await invoke(
    state,
    "GetMetrics",
    callDeadline("getMetrics", callOptions, state.options.deadlines.metricsMs),
    (o) => state.rpc.getMetrics({}, o),
  );
  return parseDaemonMetrics(raw.prometheusText);
}

/** The circuit id of an SRS request, checked (InvalidRequestError for an unknown one). */
function circuit(state: ClientState, rpc: string, value: string | { circuitId?: string }): string {
  const circuitId = typeof value === "string" ? value : (value.circuitId ?? "");
  if (!isCircuitId(circuitId)) {
    throw new InvalidRequestError(`unknown circuit id ${JSON.stringify(circuitId)}`, {
      hint: "use one of porep-32g, porep-64g, wpost-32g, winning-32g, snap-32g, snap-64g",
      rpc,
      address: state.address,
    });
  }
  return circuitId;
}

/** CuzkClient.preloadSrs. */
export async function preloadSrs(
  state: ClientState,
  request: Parameters<CuzkClient["preloadSrs"]>[0],
  callOptions: CallOptions | undefined,
): Promise<PreloadSrsResponse> {
  const circuitId = circuit(state, "PreloadSRS", request);
  return invoke(
    state,
    "PreloadSRS",
    callDeadline("preloadSrs", callOptions, state.options.deadlines.preloadMs),
    (o) => state.rpc.preloadSRS({ circuitId }, o),
  );
}

/** CuzkClient.evictSrs (a no-op in the daemon). */
export async function evictSrs(
  state: ClientState,
  request: Parameters<CuzkClient["evictSrs"]>[0],
  callOptions: CallOptions | undefined,
): Promise<EvictSrsResponse> {
  const circuitId = circuit(state, "EvictSRS", request);
  return invoke(
    state,
    "EvictSRS",
    callDeadline("evictSrs", callOptions, state.options.deadlines.evictMs),
    (o) => state.rpc.evictSRS({ circuitId }, o),
  );
}

/** CuzkClient.waitForReady: GetStatus with backoff; 10 min unless told. */
export async function waitForReady(
  state: ClientState,
  waitOptions: WaitForReadyOptions,
): Promise<DaemonStatus> {
  return waitUntilReady(
    { options: state.options, address: state.address, status: (call) => fetchStatus(state, call) },
    {
      timeoutMs: checkTimeout("waitForReady", waitOptions.timeoutMs, 10 * 60_000),
      signal: waitOptions.signal,
    },
  );
}

/** CuzkClient.close: fails open calls with AbortedError and releases the HTTP/2 session; once. */
export async function closeClient(state: ClientState): Promise<void> {
  if (state.closing.signal.aborted) return;
  state.closing.abort(new AbortedError("the client was closed", { address: state.address }));
  state.daemonTransport.close();
}
