import { formatBytes, type ProofKind, proofKindFromWire, proofKindLabel } from "@cuzkit/core";
import type { SubmitProofRequest } from "@cuzkit/proto";
import { proveRequestBytes, submitRequestBytes } from "./encode.js";
import { InvalidRequestError, PayloadTooLargeError } from "./errors.js";

// Client-side checks before anything is sent. The daemon validates almost nothing at submit
// (bad inputs come back minutes later as FAILED, or never, see cuzk-daemon.md gotcha 8), and
// rejects a message over 128 MiB only after receiving all of it.

/** Options of validateSubmitRequest. */
export interface ValidateOptions {
  /** Require a non-empty request id (SubmitProof, and Prove: the daemon returns job_id "" otherwise). Default true. */
  requireRequestId?: boolean | undefined;
  /** Largest encoded request accepted, in bytes. */
  maxRequestBytes: number;
  /** Check the size as a ProveRequest (one more length prefix) instead of a SubmitProofRequest. Default false. */
  asProve?: boolean | undefined;
  /** The RPC the request is for, for error messages. */
  rpc?: string | undefined;
}

const digestBytes = 32;

function checkDigest(name: string, value: Uint8Array, required: boolean, rpc: string | undefined): void {
  if (value.byteLength === 0 && !required) return;
  if (value.byteLength !== digestBytes) {
    throw new InvalidRequestError(`${name} must be ${digestBytes} bytes, got ${value.byteLength}`, {
      hint: `give ${name} as 32 raw bytes or 64 hex characters (a raw digest, not a CID)`,
      rpc,
    });
  }
}

/**
 * Checks a SubmitProofRequest before it is sent and returns its kind and encoded size.
 * Throws InvalidRequestError (unknown kind, missing id, empty input, digests that are not
 * 32 bytes) or PayloadTooLargeError (over the cap), so nothing bad ever reaches the daemon.
 */
export function validateSubmitRequest(
  request: SubmitProofRequest,
  options: ValidateOptions,
): { kind: ProofKind; sizeBytes: number } {
  const rpc = options.rpc;
  const kind = proofKindFromWire(request.proofKind);
  if (kind === undefined) {
    throw new InvalidRequestError(`unknown proof kind ${String(request.proofKind)}`, {
      hint:
        "set proofKind to POREP_SEAL_COMMIT (1), SNAP_DEALS_UPDATE (2), WINDOW_POST_PARTITION (3) or WINNING_POST (4), " +
        "or use porepRequest/snapRequest/windowPostRequest/winningPostRequest",
      rpc,
    });
  }
  if ((options.requireRequestId ?? true) && request.requestId.trim() === "") {
    throw new InvalidRequestError("the request id is empty", {
      hint: "give every submission a unique request id: the daemon uses it as the job id and never deduplicates it",
      rpc,
    });
  }
  const label = proofKindLabel[kind];
  if (kind === "porep") {
    if (request.vanillaProof.byteLength === 0) {
      throw new InvalidRequestError(`${label} needs the C1 output in vanillaProof, and it is empty`, {
        hint: "pass the C1 wrapper JSON (about 51 MB for a 32 GiB sector), e.g. porepRequest({ c1: { path } })",
        rpc,
      });
    }
  } else {
    if (request.vanillaProofs.length === 0 || request.vanillaProofs.some((p) => p.byteLength === 0)) {
      throw new InvalidRequestError(
        `${label} needs vanillaProofs (${kind === "snap" ? "one per partition" : "one per sector"}), and ${
          request.vanillaProofs.length === 0 ? "there are none" : "one is empty"
        }`,
        {
          hint: "pass the vanilla proofs as produced by the sealing/PoSt pipeline (cuzk-bench reads a JSON array of base64)",
          rpc,
        },
      );
    }
  }
  const needsRandomness = kind === "wpost" || kind === "winning";
  checkDigest("randomness", request.randomness, needsRandomness, rpc);
  const isSnap = kind === "snap";
  checkDigest("commROld", request.commROld, isSnap, rpc);
  checkDigest("commRNew", request.commRNew, isSnap, rpc);
  checkDigest("commDNew", request.commDNew, isSnap, rpc);

  const sizeBytes = options.asProve ? proveRequestBytes(request) : submitRequestBytes(request);
  if (sizeBytes > options.maxRequestBytes) {
    throw new PayloadTooLargeError(
      `the ${label} request is ${formatBytes(sizeBytes)} (${sizeBytes} bytes), over the daemon's limit of ${formatBytes(
        options.maxRequestBytes,
      )}`,
      { sizeBytes, limitBytes: options.maxRequestBytes, rpc },
    );
  }
  return { kind, sizeBytes };
}
