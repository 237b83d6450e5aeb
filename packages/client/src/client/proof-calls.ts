import { create } from "@bufbuild/protobuf";
import {
  type AwaitProofResponse,
  type ProveResponse,
  SubmitProofRequestSchema,
  type SubmitProofResponse,
} from "@cuzkit/proto";
import { toSubmitRequest } from "../encode.js";
import { AbortedError, InvalidRequestError } from "../errors.js";
import { toCuzkError } from "../map-error.js";
import { newUpload, withUploadOutcome } from "../outcome.js";
import {
  defaultRequestIdBase,
  type InternalCallOptions,
  type ProofResult,
  type ProveDeps,
  type ProveOptions,
  proveWithResume,
  submitTimeoutMs,
} from "../prove.js";
import { validateSubmitRequest } from "../validate.js";
import { checkFreshId, checkTimeout, invoke, sendEncoded } from "./invoke.js";
import type { ClientState } from "./state.js";
import { fetchStatus, recentStatus } from "./status-cache.js";
import type {
  CuzkClient,
  ProofCallOptions,
  ProveOnceOptions,
  SubmitOptions,
  SubmitProofInput,
} from "./types.js";

// The client's proof RPCs: submitProof, awaitProof, prove (with resume) and proveOnce.

/** The deadline of a proof-waiting call: the caller's, else the proof (or warmup) deadline. */
function proofDeadline(state: ClientState, method: string, o: ProofCallOptions | undefined): number {
  const { deadlines } = state.options;
  return checkTimeout(method, o?.timeoutMs, o?.warmup ? deadlines.warmupProofMs : deadlines.proofMs);
}

/** AwaitProof on a job id. */
export async function awaitJob(
  state: ClientState,
  jobId: string,
  call: InternalCallOptions,
): Promise<AwaitProofResponse> {
  // timeout_ms is ignored by the daemon; sent anyway for daemons that honour it.
  return invoke(state, "AwaitProof", { ...call, jobId }, (o) =>
    state.rpc.awaitProof({ jobId, timeoutMs: BigInt(o.timeoutMs) }, o),
  );
}

/** The operations prove() runs on, over this client's connection. */
export function proveDeps(state: ClientState): ProveDeps {
  return {
    options: state.options,
    address: state.address,
    submit: (request, call) => sendEncoded<SubmitProofResponse>(state, "SubmitProof", request, call),
    awaitJob: (jobId, call) => awaitJob(state, jobId, call),
    status: (call) => fetchStatus(state, call),
    recentStatus: (maxAgeMs, call) => recentStatus(state, maxAgeMs, call),
    lastStatus: () => state.lastStatus,
  };
}

/** CuzkClient.submitProof: validated, a fresh id, and the upload's outcome on failure. */
export async function submitProof(
  state: ClientState,
  request: SubmitProofInput,
  callOptions: SubmitOptions | undefined,
): Promise<SubmitProofResponse> {
  const { options } = state;
  const message = toSubmitRequest(request);
  const { sizeBytes } = validateSubmitRequest(message, {
    maxRequestBytes: options.maxRequestBytes,
    rpc: "SubmitProof",
  });
  checkFreshId(state, "SubmitProof", message.requestId, callOptions?.allowReusedId);
  const upload = newUpload();
  try {
    return await sendEncoded<SubmitProofResponse>(state, "SubmitProof", message, {
      signal: callOptions?.signal,
      timeoutMs: checkTimeout("submitProof", callOptions?.timeoutMs, submitTimeoutMs(options, sizeBytes)),
      upload,
    });
  } catch (error) {
    throw withUploadOutcome(toCuzkError(error), message.requestId, upload, sizeBytes);
  }
}

/** CuzkClient.awaitProof: a job id is required. */
export async function awaitProof(
  state: ClientState,
  request: Parameters<CuzkClient["awaitProof"]>[0],
  callOptions: ProofCallOptions | undefined,
): Promise<AwaitProofResponse> {
  const jobId = typeof request === "string" ? request : (request.jobId ?? "");
  if (jobId === "") {
    return Promise.reject(
      new InvalidRequestError("awaitProof needs a job id", {
        hint: "pass the request id the job was submitted with",
        rpc: "AwaitProof",
        address: state.address,
      }),
    );
  }
  return awaitJob(state, jobId, {
    signal: callOptions?.signal,
    timeoutMs: proofDeadline(state, "awaitProof", callOptions),
  });
}

/** CuzkClient.prove: proveWithResume inside an admission slot. */
export async function prove(
  state: ClientState,
  deps: ProveDeps,
  request: SubmitProofInput,
  callOptions: ProveOptions,
): Promise<ProofResult> {
  const message = toSubmitRequest(request);
  // Checked before admission and before any byte is sent; the checked (whole ms) value is used.
  const checked =
    callOptions.timeoutMs === undefined
      ? callOptions
      : { ...callOptions, timeoutMs: checkTimeout("prove", callOptions.timeoutMs, 0) };
  return state.admission.run(() => {
    if (state.closing.signal.aborted)
      throw new AbortedError("the client is closed", { rpc: "SubmitProof", address: state.address });
    return proveWithResume(deps, message, checked);
  }, callOptions.signal);
}

/** CuzkClient.proveOnce: the daemon's Prove RPC inside an admission slot; an empty id is filled in. */
export async function proveOnce(
  state: ClientState,
  request: SubmitProofInput,
  callOptions: ProveOnceOptions | undefined,
): Promise<ProveResponse> {
  const { options } = state;
  let message = toSubmitRequest(request);
  const { kind, sizeBytes } = validateSubmitRequest(message, {
    requireRequestId: false,
    maxRequestBytes: options.maxRequestBytes,
    asProve: true,
    rpc: "Prove",
  });
  if (message.requestId.trim() !== "")
    checkFreshId(state, "Prove", message.requestId, callOptions?.allowReusedId);
  if (message.requestId.trim() === "") {
    // The daemon answers job_id "" to a Prove without an id; give it a unique one.
    const suffix = Math.floor(options.random() * 36 ** 6).toString(36);
    message = create(SubmitProofRequestSchema, {
      ...message,
      requestId: `${defaultRequestIdBase(kind, message)}-p-${suffix}`,
    });
  }
  const timeoutMs = checkTimeout(
    "proveOnce",
    callOptions?.timeoutMs,
    proofDeadline(state, "proveOnce", callOptions) + submitTimeoutMs(options, sizeBytes),
  );
  const upload = newUpload();
  return state.admission.run(async () => {
    try {
      return await sendEncoded<ProveResponse>(state, "Prove", message, {
        signal: callOptions?.signal,
        timeoutMs,
        upload,
      });
    } catch (error) {
      throw withUploadOutcome(toCuzkError(error), message.requestId, upload, sizeBytes);
    }
  }, callOptions?.signal);
}
