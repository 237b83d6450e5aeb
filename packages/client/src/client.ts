import {
  cancelProof,
  closeClient,
  evictSrs,
  getMetrics,
  getStatus,
  preloadSrs,
  waitForReady,
} from "./client/daemon-calls.js";
import { awaitProof, prove, proveDeps, proveOnce, submitProof } from "./client/proof-calls.js";
import { createClientState } from "./client/state.js";
import type { CuzkClient } from "./client/types.js";
import type { CuzkClientOptions } from "./options.js";
import { porepRequest, snapRequest, windowPostRequest, winningPostRequest } from "./requests.js";

export type {
  CallOptions,
  CuzkClient,
  ProofCallOptions,
  ProveOnceOptions,
  SubmitOptions,
  SubmitProofInput,
  WaitForReadyOptions,
} from "./client/types.js";

// The client's methods are step modules over one explicit state object (client/state.ts): every
// RPC runs through client/invoke.ts (deadline, close signal, typed errors); client/proof-calls.ts
// holds submit, await, prove and proveOnce; client/daemon-calls.ts the calls about the daemon;
// client/status-cache.ts the GetStatus answers that prove's recovery and stuck watch share.

/**
 * Creates a client of one cuzk daemon over gRPC (HTTP/2, TCP or unix socket). Nothing is
 * dialled until the first call, but the options and address are checked here: a bad address
 * throws InvalidAddressError now.
 */
export function createCuzkClient(clientOptions: CuzkClientOptions): CuzkClient {
  const state = createClientState(clientOptions);
  const deps = proveDeps(state);
  return {
    address: state.address,
    options: state.options,
    submitProof: (request, callOptions) => submitProof(state, request, callOptions),
    awaitProof: (request, callOptions) => awaitProof(state, request, callOptions),
    prove: (request, callOptions = {}) => prove(state, deps, request, callOptions),
    proveOnce: (request, callOptions) => proveOnce(state, request, callOptions),
    cancelProof: (request, callOptions) => cancelProof(state, request, callOptions),
    getStatus: (callOptions) => getStatus(state, callOptions),
    getMetrics: (callOptions) => getMetrics(state, callOptions),
    preloadSrs: (request, callOptions) => preloadSrs(state, request, callOptions),
    evictSrs: (request, callOptions) => evictSrs(state, request, callOptions),
    waitForReady: (waitOptions = {}) => waitForReady(state, waitOptions),
    admit(task, admitOptions) {
      return state.admission.run(task, admitOptions?.signal);
    },
    inFlight() {
      return { active: state.admission.active, pending: state.admission.pending };
    },
    porepRequest,
    snapRequest,
    windowPostRequest,
    winningPostRequest,
    close: () => closeClient(state),
  };
}
