import { InvalidInputError, type ProofKind } from "@cuzkit/core";
import type { ProofInputFlags } from "./proof-input-flags.js";

/** The proof-input flags each kind reads; any other given flag is a mistake, not something to ignore. */
const flagsOfKind: Record<ProofKind, readonly (keyof ProofInputFlags)[]> = {
  porep: ["c1", "synthetic"],
  snap: ["vanilla", "commROld", "commRNew", "commDNew"],
  wpost: ["vanilla", "randomness", "partition"],
  winning: ["vanilla", "randomness"],
};

const flagNames: Partial<Record<keyof ProofInputFlags, string>> = {
  c1: "--c1",
  synthetic: "--synthetic",
  vanilla: "--vanilla",
  randomness: "--randomness",
  partition: "--partition",
  commROld: "--comm-r-old",
  commRNew: "--comm-r-new",
  commDNew: "--comm-d-new",
};

/**
 * Refuses input flags the kind does not read (`--synthetic --vanilla f`, `--kind winning
 * --c1 f`, ...), and `--c1` with `--synthetic`, instead of silently dropping one of them.
 */
export function rejectConflictingInputs(kind: ProofKind, flags: ProofInputFlags): void {
  if (flags.c1 !== undefined && flags.synthetic === true) {
    throw new InvalidInputError("--c1 and --synthetic cannot be combined", {
      hint: "give --c1 FILE for a real proof, or --synthetic against the simulator",
    });
  }
  const readByKind = flagsOfKind[kind];
  const extra = (Object.keys(flagNames) as (keyof ProofInputFlags)[]).filter(
    (key) => flags[key] !== undefined && flags[key] !== false && !readByKind.includes(key),
  );
  if (extra.length > 0) {
    const names = extra.map((key) => flagNames[key]).join(", ");
    throw new InvalidInputError(`${names} ${extra.length === 1 ? "is" : "are"} not used by --kind ${kind}`, {
      hint: `--kind ${kind} reads ${readByKind.map((key) => flagNames[key]).join(", ")}; remove ${names}, or pick the kind they belong to`,
    });
  }
}
