import { randomBytes } from "node:crypto";
import { rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { Verdict } from "./verdict.js";

/** The phases of a run, in order. */
export type BenchPhase =
  | "starting-daemon"
  | "waiting-for-daemon"
  | "warmup"
  | "waiting-for-pce"
  | "restarting-daemon"
  | "timed"
  | "done";

/** The `--status-file` JSON: what a container's watcher or a fleet manager reads while the run goes. */
export interface BenchStatusFile {
  schema: "cuzkit.bench.status/v1";
  /** The benchmark's process id. */
  pid: number;
  /** When the run started (ISO 8601). */
  runStartedAt: string;
  /** When this file was written (ISO 8601). */
  updatedAt: string;
  /** The current phase. */
  phase: BenchPhase;
  /** When the phase started (ISO 8601). */
  phaseStartedAt: string;
  /** The modelled duration of the phase, in ms, when known. */
  phaseEtaMs: number | null;
  /** When the phase is given up on (ISO 8601), when it has a deadline. */
  phaseDeadlineAt: string | null;
  /** Results so far. */
  results: {
    /** Timed proofs asked for. */
    total: number;
    completed: number;
    failed: number;
    inFlight: number;
    /** Timed proofs per hour so far: the report's figure (slots x completions per slot-hour) over the proofs completed. */
    proofsPerHour: number;
    /** Daemon restarts done by the benchmark. */
    restarts: number;
    /** Unexpected daemon exits (and kills of a frozen daemon). */
    crashes: number;
  };
  /** The verdict, once the phase is "done". */
  verdict: Verdict | null;
}

/** Writes the status file atomically; writes are queued so the last one always wins. */
export interface StatusFileWriter {
  write(status: BenchStatusFile): Promise<void>;
}

/** A writer that replaces `path` whole on every write (temporary sibling + rename). */
export function createStatusFileWriter(path: string): StatusFileWriter {
  let queue = Promise.resolve();
  return {
    write(status) {
      const text = `${JSON.stringify(status, null, 2)}\n`;
      queue = queue.then(async () => {
        const temporary = join(dirname(path), `.${basename(path)}.${randomBytes(4).toString("hex")}.tmp`);
        try {
          await writeFile(temporary, text);
          await rename(temporary, path);
        } catch {
          // A status file that cannot be written must not end the benchmark; the report says the rest.
          await rm(temporary, { force: true });
        }
      });
      return queue;
    },
  };
}
