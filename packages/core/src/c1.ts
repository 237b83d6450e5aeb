import { InvalidInputError } from "./errors.js";
import { daemonMaxMessageBytes, sectorSizeBytes } from "./vocabulary.js";

// The PoRep C1 input as Curio and cuzk-bench send it: a JSON wrapper
// {"SectorNum": n, "Phase1Out": "<base64 of the SealCommitPhase1Output JSON>", "SectorSize": bytes}.
// Source: docs/daemon-facts.md section 5.

/** The fields of a C1 wrapper that the SDK needs to build a request. */
export interface C1Summary {
  /** SectorNum of the wrapper. */
  sectorNumber: number;
  /** SectorSize of the wrapper, in bytes. */
  sectorSizeBytes: number;
  /** Length of the decoded Phase1Out in bytes. */
  phase1OutBytes: number;
  /** `registered_proof` inside Phase1Out when it can be read, e.g. "StackedDrg32GiBV1_1". */
  registeredProof?: string | undefined;
  /** Size of the whole wrapper in bytes. */
  wrapperBytes: number;
}

const hint =
  'give the C1 output wrapper that cuzk-bench reads: a JSON object {"SectorNum", "Phase1Out" (base64), "SectorSize"} as Curio writes it';

/**
 * Checks that `bytes` is a C1 wrapper and summarises it, without keeping a copy. Throws
 * InvalidInputError naming what is wrong (not JSON, a missing field, a wrapper over the
 * daemon's 128 MiB message cap, a sector size the daemon does not prove).
 */
export function inspectC1(bytes: Uint8Array): C1Summary {
  if (bytes.byteLength === 0) throw new InvalidInputError("the C1 input is empty", { hint });
  if (bytes.byteLength > daemonMaxMessageBytes) {
    throw new InvalidInputError(
      `the C1 input is ${(bytes.byteLength / 2 ** 20).toFixed(1)} MiB, over the daemon's 128 MiB message cap`,
      { hint: "a 32 GiB PoRep C1 output is about 51 MB; check that this is the right file" },
    );
  }
  let wrapper: unknown;
  try {
    wrapper = JSON.parse(new TextDecoder("utf-8", { fatal: true }).decode(bytes));
  } catch (error) {
    throw new InvalidInputError("the C1 input is not JSON", { hint, cause: error });
  }
  if (wrapper === null || typeof wrapper !== "object" || Array.isArray(wrapper)) {
    throw new InvalidInputError("the C1 input is JSON but not an object", { hint });
  }
  const { SectorNum, Phase1Out, SectorSize } = wrapper as Record<string, unknown>;
  if (typeof SectorNum !== "number" || !Number.isInteger(SectorNum) || SectorNum < 0) {
    throw new InvalidInputError("the C1 input has no valid SectorNum", { hint });
  }
  if (typeof SectorSize !== "number" || !Object.values<number>(sectorSizeBytes).includes(SectorSize)) {
    throw new InvalidInputError(
      `the C1 input's SectorSize ${String(SectorSize)} is not 32 GiB (34359738368) or 64 GiB`,
      { hint: "the daemon proves 32 GiB sectors in its default pipeline mode" },
    );
  }
  if (typeof Phase1Out !== "string" || Phase1Out.length === 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(Phase1Out)) {
    throw new InvalidInputError("the C1 input's Phase1Out is missing or not base64", { hint });
  }
  const decoded = Buffer.from(Phase1Out, "base64");
  const registeredProof = /"registered_proof"\s*:\s*"([^"]+)"/.exec(
    decoded.subarray(0, 4096).toString("utf8"),
  )?.[1];
  return {
    sectorNumber: SectorNum,
    sectorSizeBytes: SectorSize,
    phase1OutBytes: decoded.byteLength,
    registeredProof,
    wrapperBytes: bytes.byteLength,
  };
}
