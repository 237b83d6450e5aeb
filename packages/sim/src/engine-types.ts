import type { CircuitId, ProofKind } from "@cuzkit/core";
import type { AwaitProofResponse, GetStatusResponse, SubmitProofRequest } from "@cuzkit/proto";
import type { ResolvedSimOptions } from "./options.js";
import type { OomDetail } from "./pipeline.js";
import type { StatusJson } from "./status-views.js";

// The engine's public shapes: what it needs from the daemon around it and what it offers.

/** A proof that has ended, for the daemon's statistics and faults. */
export interface FinishedProof {
  jobId: string;
  kind: ProofKind;
  status: "completed" | "failed";
}

/** What the engine needs from the daemon around it. */
export interface SimEngineDeps {
  options: ResolvedSimOptions;
  /** Takes one injected failure message if the failNextProofs fault has any left. */
  takeInjectedFailure(): string | undefined;
  onSubmitted(jobId: string): void;
  onFinished(proof: FinishedProof): void;
  /** Whether a proof that has just ended is held: its result is never delivered (the holdAfterProofs fault). Default: never. */
  holdsResult?(): boolean;
  /** Whether a proof that is about to end sticks instead: it never ends, and stays on a GPU (the stickAfterProofs fault). Default: never. */
  sticks?(): boolean;
  onOom(detail: OomDetail): void;
  onMemory(bytes: number): void;
  /** Circuits whose PCE file this run loaded at start. Default: none. */
  pceOnDisk?: ReadonlySet<CircuitId> | undefined;
  /** Called when a circuit's PCE extraction has finished. */
  onPceExtracted?(circuit: CircuitId): void;
}

/** What SubmitProof/Prove get back from the engine. */
export interface Submission {
  jobId: string;
  /** Proofs waiting for dispatch before this one. */
  queuePosition: number;
  /** The result of this submission's own wait (Prove); undefined for SubmitProof. */
  result: Promise<AwaitProofResponse> | undefined;
}

/** The engine of one daemon run. */
export interface SimEngine {
  /** Scheduler time at which this run started, in ms. */
  readonly startedAt: number;
  /** Queues a proof of a valid kind (1..4); `waitForResult` registers a Prove-style waiter. */
  submit(request: SubmitProofRequest, waitForResult: boolean): Submission;
  /** AwaitProof: undefined when the id is unknown to this run. */
  awaitJob(jobId: string): Promise<AwaitProofResponse> | undefined;
  /** PreloadSRS for a known circuit id. */
  preloadSrs(circuit: CircuitId): Promise<{ alreadyLoaded: boolean; loadTimeMs: number }>;
  getStatus(): GetStatusResponse;
  metricsText(): string;
  statusJson(): StatusJson;
  memoryInUseBytes(): number;
  /** Stops all work; no result is delivered afterwards. */
  dispose(): void;
}
