import { readdirSync } from "node:fs";
import { mkdir, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type CircuitId, circuitIds } from "@cuzkit/core";

// The PCE files of the daemon's srs.param_cache: written once a circuit's PCE has been extracted
// after its first cold proof, and (by the partition-workers daemon) read at start so the first
// proof is warm. The simulator writes a small marker instead of ~25 GiB.

/** Modelled seconds to write a PoRep PCE file (22.3 s on NVMe, docs/daemon-facts.md section 4). */
export const pceWriteSec = 22.3;

/** The file name the daemon uses for a circuit's PCE: `pce-<circuit>.bin`. */
export function pceFileName(circuit: CircuitId): string {
  return `pce-${circuit}.bin`;
}

/** The circuits whose PCE file is in `dir` (none when the folder is missing). */
export function readPceFiles(dir: string): Set<CircuitId> {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return new Set();
  }
  return new Set(circuitIds.filter((circuit) => names.includes(pceFileName(circuit))));
}

/** Writes a circuit's PCE file atomically (temporary sibling, then rename), so a reader never sees half of one. */
export async function writePceFile(dir: string, circuit: CircuitId): Promise<string> {
  await mkdir(dir, { recursive: true });
  const target = join(dir, pceFileName(circuit));
  const temporary = `${target}.${process.pid}.tmp`;
  await writeFile(temporary, `simulated PCE of ${circuit} (cuzkit sim)\n`);
  await rename(temporary, target);
  return target;
}
