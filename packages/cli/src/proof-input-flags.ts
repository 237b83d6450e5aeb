// The flags that say what to prove, apart from the code that reads them (proof-input.ts and
// proof-input-conflicts.ts both use them).

/** Flags that say what to prove, shared by `cuzkit prove` and `cuzkit bench`. */
export interface ProofInputFlags {
  kind: string;
  c1?: string;
  synthetic?: boolean;
  vanilla?: string;
  sectorNum: number;
  minerId: number;
  partition?: number;
  randomness?: string;
  commROld?: string;
  commRNew?: string;
  commDNew?: string;
  registeredProof?: number;
}
