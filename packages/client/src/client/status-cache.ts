import type { InternalCallOptions } from "../prove.js";
import { statusSample } from "../recovery.js";
import { type DaemonStatus, normalizeStatus } from "../status.js";
import { invoke } from "./invoke.js";
import type { ClientState } from "./state.js";

// GetStatus, remembered: the last sample is evidence for prove's recovery, and recent answers
// are shared by the stuck watches of the proofs in flight.

/** GetStatus, normalised; records the answer as the latest sample. */
export async function fetchStatus(state: ClientState, call: InternalCallOptions): Promise<DaemonStatus> {
  const { clock } = state.options;
  const sentAtMs = clock.now();
  const raw = await invoke(state, "GetStatus", call, (o) => state.rpc.getStatus({}, o));
  const normalized = normalizeStatus(raw);
  state.lastStatus = statusSample(normalized, sentAtMs, clock.now());
  state.latest = { status: normalized, atMs: state.lastStatus.atMs };
  return normalized;
}

/** A GetStatus no older than `maxAgeMs`, or the one in flight, else a new one: the stuck watches of several proofs share them. */
export async function recentStatus(
  state: ClientState,
  maxAgeMs: number,
  call: InternalCallOptions,
): Promise<DaemonStatus> {
  const { latest } = state;
  if (latest !== undefined && state.options.clock.now() - latest.atMs <= maxAgeMs) return latest.status;
  const shared = sharedFetch(state, call.timeoutMs);
  if (call.signal === undefined) return shared;
  const signal = call.signal;
  if (signal.aborted) throw signal.reason;
  return new Promise<DaemonStatus>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    shared.then(resolve, reject).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** The GetStatus in flight for recentStatus, or a new one, forgotten once it settles. */
function sharedFetch(state: ClientState, timeoutMs: number): Promise<DaemonStatus> {
  if (state.fetching === undefined) {
    // Not tied to one caller's signal: another proof may be waiting on the same answer.
    const request = fetchStatus(state, { timeoutMs });
    state.fetching = request;
    const settled = () => {
      if (state.fetching === request) state.fetching = undefined;
    };
    void request.then(settled, settled);
  }
  return state.fetching;
}
