import type { CircuitId } from "@cuzkit/core";
import type { ResolvedSimOptions, SimFaults } from "./options.js";
import type { ReceivedCallQuery, SimRpcMethod } from "./received-calls.js";

// The simulated daemon's public shapes: its handle, its life states, crashes and statistics.

/** Life states of the simulated daemon. */
export type SimState = "starting" | "running" | "stalled" | "crashed" | "stopped";

/** Why the daemon died: modelled memory over usable RAM, crash() called, or a scheduled fault. */
export type SimCrashReason = "oom" | "killed" | "scheduled";

/** What a crash listener learns. */
export interface SimCrashDetail {
  reason: SimCrashReason;
  /** One line for people, e.g. "oom-kill: modelled memory 270.0 GiB exceeds 251.0 GiB". */
  message: string;
  /** Modelled memory in use when it died, in bytes. */
  memoryInUseBytes: number;
  /** Usable RAM of the simulated machine, in bytes. */
  usableRamBytes: number;
}

/** Counters over the daemon object's whole life (all runs), except memoryInUseBytes (current run). */
export interface SimStats {
  /** Submissions (SubmitProof and Prove) per job id; a duplicate request id counts twice. */
  submissionsByRequestId: Record<string, number>;
  proofsCompleted: number;
  proofsFailed: number;
  /** Modelled memory in use by the current run, in bytes (0 in fixed-time mode). */
  memoryInUseBytes: number;
  /** Highest modelled memory in use over all runs, in bytes. */
  peakMemoryBytes: number;
  restarts: number;
  /** Crashes of every reason (oom, killed, scheduled). */
  crashes: number;
  oomKills: number;
  /** gRPC connections accepted over the daemon's life. */
  connections: number;
  /** gRPC connections open now. */
  openConnections: number;
  /** The last crash, if any. */
  lastCrash: SimCrashDetail | undefined;
  /** RPCs received per method, over all runs. */
  callsReceived: Partial<Record<SimRpcMethod, number>>;
  /** Circuits whose PCE file the current run loaded at start (its first proof of them is warm); empty for the budget daemon. */
  pceFilesLoaded: CircuitId[];
}

/** Options of restart(). */
export interface SimRestartOptions {
  /** Faults for the new run. Default: the faults the daemon was started with. */
  faults?: SimFaults | undefined;
}

/** A running simulated cuzk daemon. */
export interface SimDaemon {
  /** What a client dials: "127.0.0.1:PORT", "[::1]:PORT" or "unix:///path"; the same after restarts. */
  readonly address: string;
  /** "http://127.0.0.1:PORT/status" when statusListen was given. */
  readonly statusUrl: string | undefined;
  readonly state: SimState;
  /** The resolved options (defaults applied). */
  readonly options: ResolvedSimOptions;
  /** Resolves once the daemon listens (at once unless faults.startDelayMs delays it); rejects if it cannot. */
  ready(): Promise<void>;
  /** Closes every connection and the listeners and removes the socket file; idempotent. */
  stop(): Promise<void>;
  /** Dies at once: every connection dropped mid-call, listeners closed, jobs lost. Default reason "killed". */
  crash(reason?: "oom" | "killed"): void;
  /** Comes back on the same address with a new uptime and no jobs (also after a crash); resolves once listening. */
  restart(options?: SimRestartOptions): Promise<void>;
  /** Answers nothing (no responses, no PING acks) on every connection, current and new, until unstall. */
  stall(): void;
  unstall(): void;
  /** Destroys every gRPC connection mid-call but keeps listening and keeps the jobs. */
  dropConnections(): void;
  /** Fails the next `count` proofs submitted with `message` (FAILED result, timings 0). */
  failNextProofs(count: number, message?: string): void;
  stats(): SimStats;
  /**
   * Resolves once the daemon has received `method` (for `query.jobId`, `query.count` times;
   * calls before the wait count too), e.g. "until the daemon holds the AwaitProof of job X".
   * Rejects with SIM_STOPPED when the daemon stops first. For tests: wait on this, never sleep.
   */
  whenReceived(method: SimRpcMethod, query?: ReceivedCallQuery): Promise<void>;
  /**
   * Resolves with the file's path once the daemon has written `circuit`'s PCE file into
   * paramCacheDir (a file written earlier in the object's life counts too). Rejects with
   * SIM_STOPPED when the daemon stops first. For tests: wait on this, never poll the folder.
   */
  whenPceFileWritten(circuit: CircuitId, options?: { signal?: AbortSignal | undefined }): Promise<string>;
  /** Resolves once every gRPC connection open now has closed (e.g. a client's close() has reached the daemon). */
  whenConnectionsClosed(): Promise<void>;
  /** Calls `listener` on every crash; returns an unsubscribe function. */
  onCrash(listener: (reason: SimCrashReason, detail: SimCrashDetail) => void): () => void;
}
