import { randomUUID } from "node:crypto";
import { create } from "@bufbuild/protobuf";
import { type CircuitId, type ProofKind, proofKindFromWire, seededRandom } from "@cuzkit/core";
import {
  type AwaitProofResponse,
  AwaitProofResponse_Status,
  AwaitProofResponseSchema,
  type GetStatusResponse,
  type SubmitProofRequest,
} from "@cuzkit/proto";
import { createProofCounters } from "./counters.js";
import { createJobTracker } from "./job-tracker.js";
import { formatMetricsText } from "./metrics-text.js";
import type { ResolvedSimOptions } from "./options.js";
import {
  createPipeline,
  type OomDetail,
  type Pipeline,
  type PipelineSnapshot,
  type ProofOutcome,
} from "./pipeline.js";
import { createPipelineModel } from "./pipeline-model.js";
import { simulatedProofBytes } from "./proof-bytes.js";
import { buildStatusJson, buildStatusResponse, type StatusInput, type StatusJson } from "./status-views.js";
import { inputFailure } from "./validate-request.js";

// The engine of one daemon run: job tracking, the pipeline (or the fixed-time mode), counters
// and the status views. A restart creates a new engine, so every job and counter is forgotten.

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

/** Share of a fixed-time proof reported as synthesis (the rest is GPU time). */
const fixedModeSynthesisShare = 0.6;

/** Creates the engine of one daemon run. */
export function createSimEngine(deps: SimEngineDeps): SimEngine {
  const { options } = deps;
  const { scheduler, hardware, config } = options;
  const startedAt = scheduler.now();
  const tracker = createJobTracker();
  const counters = createProofCounters();
  const partitionedCounters = createProofCounters();
  const preloaded: CircuitId[] = [];
  const fixedTimers = new Set<() => void>();
  let fixedInFlight = 0;
  // Seeded, so a jittered run repeats exactly from its seed.
  const random = seededRandom(options.seed);
  let gpusUsed = false;
  /** Proofs that stuck (the stickAfterProofs fault): shown on GPU workers, never ended. */
  const stuckJobs: { jobId: string; kind: ProofKind }[] = [];
  let disposed = false;
  const model = createPipelineModel(hardware, config);
  const pipeline: Pipeline = createPipeline({
    model,
    scheduler,
    timeScale: options.timeScale,
    pceCached: (circuit) => options.pceCached || (deps.pceOnDisk?.has(circuit) ?? false),
    onPceExtracted: (circuit) => deps.onPceExtracted?.(circuit),
    usableRamBytes: hardware.usableRamBytes,
    gpuCount: hardware.gpus.length,
    dispatchConcurrency: config.synthesisConcurrency,
    onOom: (detail) => {
      disposed = true;
      deps.onOom(detail);
    },
    onMemory: deps.onMemory,
  });

  const fixedSnapshot = (): PipelineSnapshot => ({
    ...pipeline.snapshot(),
    memoryInUseBytes: 0,
  });

  /** The snapshot with each stuck proof on an otherwise idle GPU worker (as a GPU call that never returns). */
  const withStuckJobs = (snapshot: PipelineSnapshot): PipelineSnapshot => {
    if (stuckJobs.length === 0) return snapshot;
    const pending = [...stuckJobs];
    return {
      ...snapshot,
      gpuWorkers: snapshot.gpuWorkers.map((worker) => {
        if (worker.jobId !== undefined) return worker;
        const job = pending.shift();
        return job === undefined ? worker : { ...worker, jobId: job.jobId, kind: job.kind, partition: 0 };
      }),
    };
  };

  const statusInput = (): StatusInput => ({
    hardware,
    config,
    snapshot: withStuckJobs(options.proofTimeMs === undefined ? pipeline.snapshot() : fixedSnapshot()),
    counters,
    partitionedCounters,
    preloaded,
    uptimeMs: scheduler.now() - startedAt,
    gpusUsed,
  });

  const finish = (
    jobId: string,
    kind: ProofKind,
    submittedAt: number,
    proof: Uint8Array,
    outcome: ProofOutcome,
  ) => {
    if (disposed) return;
    if (deps.sticks?.()) {
      options.logger.info("proof stuck", { jobId });
      stuckJobs.push({ jobId, kind });
      return;
    }
    if (deps.holdsResult?.()) {
      options.logger.info("proof held", { jobId });
      return;
    }
    const result =
      outcome.status === "completed"
        ? create(AwaitProofResponseSchema, {
            jobId,
            status: AwaitProofResponse_Status.COMPLETED,
            proof,
            queueWaitMs: BigInt(outcome.timings.queueWaitMs),
            srsLoadMs: 0n,
            synthesisMs: BigInt(outcome.timings.synthesisMs),
            gpuComputeMs: BigInt(outcome.timings.gpuComputeMs),
            totalMs: BigInt(outcome.timings.totalMs),
          })
        : create(AwaitProofResponseSchema, {
            jobId,
            status: AwaitProofResponse_Status.FAILED,
            errorMessage: outcome.errorMessage,
          });
    const durationSec = (scheduler.now() - submittedAt) / 1000;
    counters.record(kind, outcome.status, durationSec);
    if (kind === "porep" || kind === "snap") partitionedCounters.record(kind, outcome.status, durationSec);
    if (outcome.status === "completed") gpusUsed = true;
    tracker.complete(jobId, result);
    deps.onFinished({ jobId, kind, status: outcome.status });
  };

  const runFixed = (
    jobId: string,
    kind: ProofKind,
    failure: string | undefined,
    injected: string | undefined,
    proof: Uint8Array,
  ) => {
    const submittedAt = scheduler.now();
    const jitter = options.proofTimeJitter === 0 ? 1 : 1 + options.proofTimeJitter * (2 * random() - 1);
    const durationMs = failure === undefined ? (options.proofTimeMs ?? 0) * jitter : 0;
    fixedInFlight++;
    const cancel = scheduler.setTimer(() => {
      fixedTimers.delete(cancel);
      fixedInFlight--;
      const message = failure ?? injected;
      if (message !== undefined) {
        finish(jobId, kind, submittedAt, proof, { status: "failed", errorMessage: message });
        return;
      }
      // libuv fires timers by its loop's cached millisecond clock, which can trail
      // performance.now() by up to a millisecond: the elapsed time read here may come out just
      // under the delay the timer was set for, which a proof of fixed time never takes.
      const totalMs = Math.round(Math.max(scheduler.now() - submittedAt, durationMs));
      const partitions = model.kinds[kind].partitions;
      finish(jobId, kind, submittedAt, proof, {
        status: "completed",
        timings: {
          queueWaitMs: 0,
          synthesisMs: Math.round(totalMs * fixedModeSynthesisShare * partitions),
          gpuComputeMs: Math.round(totalMs * (1 - fixedModeSynthesisShare) * partitions),
          totalMs,
        },
      });
    }, durationMs);
    fixedTimers.add(cancel);
  };

  return {
    startedAt,
    submit(request, waitForResult) {
      const kind = proofKindFromWire(request.proofKind);
      if (kind === undefined) throw new RangeError(`invalid proof_kind: ${request.proofKind}`);
      const jobId = request.requestId === "" ? randomUUID() : request.requestId;
      const queuePosition = pipeline.queueDepth();
      deps.onSubmitted(jobId);
      tracker.submitted(jobId);
      const result = waitForResult
        ? new Promise<AwaitProofResponse>((resolve) => tracker.addWaiter(jobId, resolve))
        : undefined;
      if (disposed) return { jobId, queuePosition, result };
      // Checked and hashed now so the (up to 51 MB) request is not held while the proof runs.
      const failure = inputFailure(kind, request, config);
      const proof = failure === undefined ? simulatedProofBytes(request) : new Uint8Array(0);
      const injected = deps.takeInjectedFailure();
      if (options.proofTimeMs !== undefined) {
        runFixed(jobId, kind, failure, injected, proof);
      } else {
        const submittedAt = scheduler.now();
        pipeline.submit(
          { jobId, kind, priority: request.priority, inputFailure: failure, injectedFailure: injected },
          (outcome) => finish(jobId, kind, submittedAt, proof, outcome),
        );
      }
      return { jobId, queuePosition, result };
    },
    awaitJob: (jobId) => tracker.await(jobId),
    preloadSrs(circuit) {
      const startedLoadAt = scheduler.now();
      return new Promise((resolve) => {
        pipeline.preload(circuit, (alreadyLoaded) => {
          if (!preloaded.includes(circuit)) preloaded.push(circuit);
          resolve({
            alreadyLoaded,
            loadTimeMs: alreadyLoaded ? 0 : Math.round(scheduler.now() - startedLoadAt),
          });
        });
      });
    },
    getStatus() {
      const response = buildStatusResponse(statusInput());
      return response;
    },
    metricsText() {
      const snapshot = statusInput().snapshot;
      const running =
        options.proofTimeMs === undefined
          ? snapshot.gpuWorkers.filter((w) => w.jobId !== undefined).length
          : Math.min(fixedInFlight, model.gpuWorkers);
      return formatMetricsText({
        counters,
        uptimeSeconds: (scheduler.now() - startedAt) / 1000,
        queueDepth: snapshot.queueDepth,
        runningJobs: running,
        gpuWorkers: model.gpuWorkers,
      });
    },
    statusJson: () => buildStatusJson(statusInput()),
    memoryInUseBytes: () => (options.proofTimeMs === undefined ? pipeline.memoryInUseBytes() : 0),
    dispose() {
      disposed = true;
      pipeline.dispose();
      for (const cancel of fixedTimers) cancel();
      fixedTimers.clear();
    },
  };
}
