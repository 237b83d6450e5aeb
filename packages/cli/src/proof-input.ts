import { resolve } from "node:path";
import {
  maxProofInputFileBytes,
  maxVanillaProofsFileBytes,
  PayloadTooLargeError,
  parseVanillaProofsFile,
  porepRequest,
  readProofInputFile,
  type SubmitProofInput,
  snapRequest,
  windowPostRequest,
  winningPostRequest,
} from "@cuzkit/client";
import { InvalidInputError, type ProofKind, parseProofKind, proofKinds } from "@cuzkit/core";
import { createSyntheticC1 } from "@cuzkit/sim";
import type { CliIO } from "./io.js";
import { rejectConflictingInputs } from "./proof-input-conflicts.js";
import type { ProofInputFlags } from "./proof-input-flags.js";

export type { ProofInputFlags } from "./proof-input-flags.js";

/** A request ready to send, with what it is. */
export interface BuiltProofInput {
  kind: ProofKind;
  request: SubmitProofInput;
  inputBytes: number;
  description: string;
}

/**
 * Reads an input file once, into one buffer that the request then holds by reference (the
 * client sends it without copies). Its size is checked before the read: a file over the limit is
 * PAYLOAD_TOO_LARGE without being read. A file it cannot read is an InvalidInputError naming the flag.
 */
async function readInputFile(what: "C1" | "vanilla", path: string, io: CliIO): Promise<Uint8Array> {
  const full = resolve(io.cwd, path);
  try {
    return await readProofInputFile(full, {
      label: what === "C1" ? "--c1" : "--vanilla",
      limitBytes: what === "C1" ? maxProofInputFileBytes : maxVanillaProofsFileBytes,
    });
  } catch (error) {
    if (error instanceof PayloadTooLargeError) throw error;
    throw new InvalidInputError(
      `cannot read the ${what} file ${full}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
      { hint: `check the path given to --${what === "C1" ? "c1" : "vanilla"}`, cause: error },
    );
  }
}

/** Builds the request the flags describe; every mistake is an InvalidInputError before any daemon work. */
export async function buildProofInput(flags: ProofInputFlags, io: CliIO): Promise<BuiltProofInput> {
  const kind = parseProofKind(flags.kind);
  if (kind === undefined)
    throw new InvalidInputError(`unknown proof kind "${flags.kind}"`, {
      hint: `use one of ${proofKinds.join(", ")}`,
    });
  rejectConflictingInputs(kind, flags);
  const zeros = "00".repeat(32);
  const common = {
    minerId: flags.minerId,
    registeredProof: flags.registeredProof,
  };
  if (kind === "porep") {
    if ((flags.c1 === undefined) === (flags.synthetic !== true)) {
      throw new InvalidInputError("PoRep needs exactly one input: --c1 FILE or --synthetic", {
        hint: "give the C1 output file with --c1 (or --synthetic against the simulator)",
      });
    }
    const c1 =
      flags.c1 === undefined
        ? createSyntheticC1({ sectorNumber: flags.sectorNum })
        : await readInputFile("C1", flags.c1, io);
    // porepRequest reads SectorNum from the wrapper (core's copy-free C1 reader) and refuses a bad one.
    const request = await porepRequest({ ...common, c1 });
    return {
      kind,
      request,
      inputBytes: c1.byteLength,
      description:
        flags.c1 === undefined
          ? "synthetic C1 input"
          : `C1 ${flags.c1} (sector ${String(request.sectorNumber)})`,
    };
  }
  if (flags.vanilla === undefined)
    throw new InvalidInputError(`${kind} needs --vanilla FILE`, {
      hint: "give the vanilla proofs file (a JSON array of base64 strings)",
    });
  const vanillaFile = await readInputFile("vanilla", flags.vanilla, io);
  const vanillaBytes = vanillaFile.byteLength;
  const vanillaProofs = parseVanillaProofsFile(vanillaFile);
  const description = `vanilla proofs ${flags.vanilla}`;
  if (kind === "snap") {
    const missing = (["commROld", "commRNew", "commDNew"] as const).filter((key) => flags[key] === undefined);
    if (missing.length > 0) {
      throw new InvalidInputError(
        `SnapDeals needs ${missing.map((k) => `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`).join(", ")}`,
        { hint: "give the commitments as 64 hex characters" },
      );
    }
    return {
      kind,
      request: await snapRequest({
        ...common,
        vanillaProofs,
        sectorNumber: flags.sectorNum,
        commROld: flags.commROld as string,
        commRNew: flags.commRNew as string,
        commDNew: flags.commDNew as string,
      }),
      inputBytes: vanillaBytes,
      description,
    };
  }
  const randomness = flags.randomness ?? zeros;
  const request =
    kind === "wpost"
      ? await windowPostRequest({
          ...common,
          vanillaProofs,
          randomness,
          partitionIndex: flags.partition ?? 0,
        })
      : await winningPostRequest({ ...common, vanillaProofs, randomness });
  return { kind, request, inputBytes: vanillaBytes, description };
}
