import { readdirSync } from "node:fs";
import { mkdir, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type CircuitId, circuitIds } from "@cuzkit/core";
import { SimStoppedError } from "./errors.js";
import { createWaitList } from "./wait-list.js";

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

/** Waits for PCE files to be written, so a test waits on the write instead of polling the folder. */
export interface PceFileWaits {
  /** Records that `circuit`'s file was written at `path`; settles its waits. */
  written(circuit: CircuitId, path: string): void;
  /** Resolves with the path once `circuit`'s file is written (at once if it already was); rejects after close() or on abort. */
  when(circuit: CircuitId, signal?: AbortSignal | undefined): Promise<string>;
  /** Rejects every pending wait (the daemon stopped: no file will be written). */
  close(): void;
}

/** Creates the waits of one daemon object (over all its runs). */
export function createPceFileWaits(): PceFileWaits {
  const paths = new Map<CircuitId, string>();
  const waits = createWaitList<CircuitId, string>();
  const stoppedError = () =>
    new SimStoppedError("the simulated daemon stopped before it wrote the awaited PCE file", {
      hint: "give the daemon a paramCacheDir and let a cold proof of that circuit complete before stopping it",
    });
  return {
    written(circuit, path) {
      paths.set(circuit, path);
      waits.settle((waiting) => waiting === circuit, path);
    },
    when(circuit, signal) {
      const path = paths.get(circuit);
      return path === undefined ? waits.wait(circuit, signal) : Promise.resolve(path);
    },
    close() {
      waits.close(stoppedError());
    },
  };
}
