// The flags that say what to prove, apart from the code that reads them (proof-input.ts and
// proof-input-conflicts.ts both use them): defining them loads no client or simulator.
import type { Command } from "commander";
import { wholeNumberOption } from "./parse.js";

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

/** Adds the proof-input flags (cuzk-bench's names) to a command. */
export function addProofInputOptions(command: Command): Command {
  return command
    .option("--kind <kind>", "proof kind: porep, snap, wpost, winning (cuzk-bench aliases accepted)", "porep")
    .option("--c1 <file>", "PoRep: the C1 output wrapper JSON (as cuzk-bench reads it)")
    .option("--synthetic", "PoRep: send a small synthetic C1 input (only the simulator accepts it)")
    .option(
      "--vanilla <file>",
      "Snap/PoSt: vanilla proofs, a JSON array of base64 strings (else the whole file is one proof)",
    )
    .option("--sector-num <n>", "sector number", wholeNumberOption("--sector-num", 0), 1)
    .option("--miner-id <n>", "miner id (without f0)", wholeNumberOption("--miner-id", 0, "1000"), 1000)
    .option("--partition <n>", "WindowPoSt partition index (default 0)", wholeNumberOption("--partition", 0))
    .option("--randomness <hex>", "PoSt randomness, 32 bytes of hex (default: zeros, like cuzk-bench)")
    .option("--comm-r-old <hex>", "Snap: old CommR, 32 bytes of hex")
    .option("--comm-r-new <hex>", "Snap: new CommR, 32 bytes of hex")
    .option("--comm-d-new <hex>", "Snap: new CommD, 32 bytes of hex")
    .option(
      "--registered-proof <n>",
      "registered proof number (default: Curio's 32 GiB value for the kind)",
      wholeNumberOption("--registered-proof", 0, "3"),
    );
}
