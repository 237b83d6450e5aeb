import { type DaemonConfig, type ProofKind, sectorSizeBytes } from "@cuzkit/core";
import type { SubmitProofRequest } from "@cuzkit/proto";
import { parseC1Wrapper } from "./c1-wrapper.js";
import { C1ParseError } from "./errors.js";

// The daemon validates proof inputs late: SubmitProof accepts anything with a valid kind, and
// a bad input comes back as a FAILED result. These are the checks the simulator makes, with
// error messages shaped like the daemon's (docs/daemon-facts.md sections 1 and 6).

/** The message of the FAILED result the daemon would return for this input, or undefined if it is acceptable. */
export function inputFailure(
  kind: ProofKind,
  request: SubmitProofRequest,
  config: DaemonConfig,
): string | undefined {
  switch (kind) {
    case "porep":
      return porepFailure(request, config);
    case "snap":
      if (request.vanillaProofs.length === 0)
        return "SnapDeals parse failed: no partition proofs in vanilla_proofs";
      if (request.registeredProof > 4n)
        return `unknown RegisteredUpdateProof value: ${request.registeredProof}`;
      return undefined;
    case "wpost":
    case "winning":
      if (request.vanillaProofs.length === 0) return "synthesis failed: no vanilla proofs in vanilla_proofs";
      if (request.randomness.byteLength !== 32) {
        return `synthesis failed: randomness must be 32 bytes, got ${request.randomness.byteLength}`;
      }
      if (request.registeredProof > 14n)
        return `unknown RegisteredPoStProof value: ${request.registeredProof}`;
      return undefined;
  }
}

function porepFailure(request: SubmitProofRequest, config: DaemonConfig): string | undefined {
  try {
    const wrapper = parseC1Wrapper(request.vanillaProof);
    const is32 =
      wrapper.sectorSizeBytes === sectorSizeBytes["32GiB"] &&
      wrapper.registeredProofSectorBytes === sectorSizeBytes["32GiB"];
    if (config.pipelineEnabled && !is32) return "pipelined synthesis currently supports only 32 GiB sectors";
    const supported = Object.values<number>(sectorSizeBytes);
    if (!supported.includes(wrapper.sectorSizeBytes)) {
      return `C1 parse failed: unsupported sector size ${wrapper.sectorSizeBytes}`;
    }
    return undefined;
  } catch (error) {
    if (error instanceof C1ParseError) return `C1 parse failed: ${error.message}`;
    throw error;
  }
}
