import { type CircuitId, circuitForKind, type ProofKind } from "@cuzkit/core";
import type { PipelineModel } from "./pipeline-model.js";
import type { SimScheduler } from "./scheduler.js";

// The simulated proving pipeline of one daemon run. A proof goes: dispatch (at most
// synthesis_concurrency at once; loads the circuit's parameters on first use) -> its partitions
// wait for a synthesis slot (at most the model's synthesizing partitions at once) -> synthesis
// -> a GPU worker -> assembly -> done. Memory in use is recomputed at every step with core's
// envelope (see pipeline-model.ts): parameters and PCE resident or being built, the extraction
// transient, the working set of the partitions synthesizing at once, per-proof state beyond the
// envelope's baseline; when it exceeds usable RAM the daemon is OOM-killed (onOom). After the first
// completed proof of a kind, its PCE is extracted in the background; until then synthesis is
// slower by the model's cold factor.

/** Timing fields of a finished proof, in real milliseconds, as the daemon reports them. */
export interface ProofTimings {
  queueWaitMs: number;
  synthesisMs: number;
  gpuComputeMs: number;
  totalMs: number;
}

/** How a proof ended. */
export type ProofOutcome =
  | { status: "completed"; timings: ProofTimings }
  | { status: "failed"; errorMessage: string };

/** One proof handed to the pipeline. */
export interface PipelineJobSpec {
  jobId: string;
  kind: ProofKind;
  /** Proto priority (higher first at dispatch). */
  priority: number;
  /** Set when the input is bad: the proof fails at dispatch with this message. */
  inputFailure?: string | undefined;
  /** Set by the failNextProofs fault: the proof runs, then fails with this message. */
  injectedFailure?: string | undefined;
}

/** State of one partition, with the daemon's /status names. */
export type PartitionState = "pending" | "synthesizing" | "synth_done" | "gpu" | "done" | "failed";

interface Partition {
  job: Job;
  index: number;
  state: PartitionState;
  synthMs: number | null;
  gpuMs: number | null;
}

interface Job {
  seq: number;
  spec: PipelineJobSpec;
  submittedAt: number;
  registeredAt: number | undefined;
  finishedAt: number | undefined;
  partitions: Partition[];
  partitionsDone: number;
  onDone: (outcome: ProofOutcome) => void;
}

interface GpuWorker {
  workerId: number;
  gpuOrdinal: number;
  partition: Partition | undefined;
  busySince: number;
}

type SrsState = { state: "loading"; waiters: (() => void)[] } | { state: "loaded"; lastUsedAt: number };
type PceState = "extracting" | "resident";

/** A GPU worker as status reports show it. */
export interface GpuWorkerView {
  workerId: number;
  gpuOrdinal: number;
  jobId: string | undefined;
  kind: ProofKind | undefined;
  partition: number | undefined;
  busyMs: number | undefined;
}

/** A partitioned proof in flight (or finished less than 30 s ago), as /status shows it. */
export interface PipelineView {
  jobId: string;
  kind: ProofKind;
  startedMsAgo: number;
  totalPartitions: number;
  partitionsDone: number;
  partitions: { index: number; state: PartitionState; synthMs: number | null; gpuMs: number | null }[];
}

/** A resident allocation (parameters or PCE). */
export interface AllocationView {
  circuitId: CircuitId;
  bytes: number;
  lastUsedMsAgo: number;
  evictable: boolean;
}

/** What the pipeline looks like now. */
export interface PipelineSnapshot {
  memoryInUseBytes: number;
  synthesizing: number;
  waitingForGpu: number;
  onGpu: number;
  /** Proofs not yet dispatched, per kind. */
  queued: Partial<Record<ProofKind, number>>;
  queueDepth: number;
  gpuWorkers: GpuWorkerView[];
  pipelines: PipelineView[];
  srs: AllocationView[];
  pce: AllocationView[];
}

/** Why the pipeline killed the daemon. */
export interface OomDetail {
  memoryInUseBytes: number;
  usableRamBytes: number;
}

/** What the pipeline needs around it. */
export interface PipelineDeps {
  model: PipelineModel;
  scheduler: SimScheduler;
  /** Real seconds per modelled second. */
  timeScale: number;
  /** Whether a PCE for `circuit` exists at start (loaded with the parameters). */
  pceCached(circuit: CircuitId): boolean;
  /** Called once a circuit's PCE extraction has finished and it is resident (the daemon then writes its file). */
  onPceExtracted?(circuit: CircuitId): void;
  /** RAM the daemon may use before it is OOM-killed, in bytes. */
  usableRamBytes: number;
  /** GPU ordinals, one per GPU. */
  gpuCount: number;
  /** pipeline.synthesis_concurrency: proofs dispatched at once. */
  dispatchConcurrency: number;
  /** Called once when memory in use exceeds usable RAM; the pipeline stops itself first. */
  onOom(detail: OomDetail): void;
  /** Called whenever memory in use changes. */
  onMemory?(bytes: number): void;
}

/** The simulated pipeline of one daemon run. */
export interface Pipeline {
  /** Queues a proof; `onDone` is called once when it ends (never after dispose). */
  submit(spec: PipelineJobSpec, onDone: (outcome: ProofOutcome) => void): void;
  /** Loads a circuit's parameters like PreloadSRS; calls back with whether they were loaded already. */
  preload(circuit: CircuitId, onDone: (alreadyLoaded: boolean) => void): void;
  /** Proofs not yet dispatched. */
  queueDepth(): number;
  snapshot(): PipelineSnapshot;
  memoryInUseBytes(): number;
  /** Stops every timer; nothing calls back afterwards. */
  dispose(): void;
}

/** How long /status keeps a finished pipeline entry (the daemon GCs it 30 s after completion). */
export const pipelineRetentionMs = 30_000;

/** Creates the pipeline of one daemon run. */
export function createPipeline(deps: PipelineDeps): Pipeline {
  const { model, scheduler } = deps;
  const realMs = (modelSec: number) => modelSec * 1000 * deps.timeScale;
  const timers = new Set<() => void>();
  let disposed = false;
  let memory = 0;
  let seq = 0;
  let activeDispatch = 0;
  let synthesizing = 0;
  // What memory in use is made of; memory is recomputed from these at every change.
  let residentBytes = 0;
  let transientBytes = 0;
  const synthesizingByKind = new Map<ProofKind, number>();
  let gpuStageBytes = 0;
  const inFlight = new Set<Job>();
  const dispatchQueue: Job[] = [];
  const synthQueue: Partition[] = [];
  const gpuQueue: Partition[] = [];
  const jobs = new Set<Job>();
  const srs = new Map<CircuitId, SrsState>();
  const pce = new Map<CircuitId, PceState>();
  const workers: GpuWorker[] = Array.from({ length: model.gpuWorkers }, (_, workerId) => ({
    workerId,
    gpuOrdinal: Math.min(deps.gpuCount - 1, Math.floor(workerId / model.gpuWorkersPerDevice)),
    partition: undefined,
    busySince: 0,
  }));

  const after = (modelSec: number, callback: () => void) => {
    const cancel = scheduler.setTimer(() => {
      timers.delete(cancel);
      if (!disposed) callback();
    }, realMs(modelSec));
    timers.add(cancel);
  };

  const dispose = () => {
    disposed = true;
    for (const cancel of timers) cancel();
    timers.clear();
  };

  /** Memory in use from the pipeline's state, by the model's law. */
  const memoryNow = (): number => {
    let bytes = residentBytes + transientBytes + gpuStageBytes;
    for (const [kind, count] of synthesizingByKind) bytes += model.workingSetBytes(count, kind);
    let rank = 0;
    let porepInFlight = false;
    for (const job of inFlight) {
      if (rank++ >= model.inFlightBaseline) bytes += model.kinds[job.spec.kind].inFlightBytes;
      if (job.spec.kind === "porep") porepInFlight = true;
    }
    return porepInFlight ? Math.max(bytes, model.porepBatchPeakBytes) : bytes;
  };

  /** Recomputes memory in use after a change; returns false when that OOM-killed the daemon. */
  const updateMemory = (): boolean => {
    memory = memoryNow();
    deps.onMemory?.(memory);
    if (memory > deps.usableRamBytes) {
      const detail = { memoryInUseBytes: memory, usableRamBytes: deps.usableRamBytes };
      dispose();
      deps.onOom(detail);
      return false;
    }
    return true;
  };
  const setSynthesizing = (kind: ProofKind, delta: number) => {
    synthesizing += delta;
    synthesizingByKind.set(kind, (synthesizingByKind.get(kind) ?? 0) + delta);
  };

  const pceResident = (kind: ProofKind) => pce.get(circuitForKind[kind]) === "resident";

  const finish = (job: Job, outcome: ProofOutcome) => {
    job.finishedAt = scheduler.now();
    // /status keeps a finished partitioned proof for a while; one that never started is dropped.
    if (job.registeredAt === undefined) jobs.delete(job);
    inFlight.delete(job);
    updateMemory();
    if (outcome.status === "completed") extractPce(job.spec.kind);
    job.onDone(outcome);
  };

  const extractPce = (kind: ProofKind) => {
    const circuit = circuitForKind[kind];
    if (pce.has(circuit)) return;
    pce.set(circuit, "extracting");
    // The PCE being built counts from the start, with the extraction's working memory on top
    // (the model's cold-start peak: PCE + transient + the next proofs' synthesis).
    residentBytes += model.pceBytes[circuit];
    transientBytes += model.pceExtractionBytes;
    if (!updateMemory()) return;
    after(model.pceExtractionSec, () => {
      transientBytes -= model.pceExtractionBytes;
      pce.set(circuit, "resident");
      updateMemory();
      deps.onPceExtracted?.(circuit);
      pumpSynthesis();
    });
  };

  const ensureSrs = (circuit: CircuitId, ready: () => void) => {
    const current = srs.get(circuit);
    if (current?.state === "loaded") {
      current.lastUsedAt = scheduler.now();
      ready();
      return;
    }
    if (current?.state === "loading") {
      current.waiters.push(ready);
      return;
    }
    const loading: SrsState = { state: "loading", waiters: [ready] };
    srs.set(circuit, loading);
    residentBytes += model.srsBytes[circuit];
    if (deps.pceCached(circuit) && !pce.has(circuit)) {
      // A PCE file from an earlier run is loaded along with the parameters.
      pce.set(circuit, "resident");
      residentBytes += model.pceBytes[circuit];
    }
    if (!updateMemory()) return;
    after(model.srsLoadSec, () => {
      srs.set(circuit, { state: "loaded", lastUsedAt: scheduler.now() });
      for (const waiter of loading.waiters) if (!disposed) waiter();
    });
  };

  const pumpDispatch = () => {
    while (!disposed && activeDispatch < Math.max(1, deps.dispatchConcurrency) && dispatchQueue.length > 0) {
      const job = dispatchQueue.shift()!;
      if (job.spec.inputFailure !== undefined) {
        finish(job, { status: "failed", errorMessage: job.spec.inputFailure });
        continue;
      }
      activeDispatch++;
      ensureSrs(circuitForKind[job.spec.kind], () => {
        activeDispatch--;
        job.registeredAt = scheduler.now();
        synthQueue.push(...job.partitions);
        pumpSynthesis();
        pumpDispatch();
      });
    }
  };

  const pumpSynthesis = () => {
    while (!disposed && synthQueue.length > 0) {
      const head = synthQueue[0]!;
      if (synthesizing >= model.synthesisSlots(head.job.spec.kind, pceResident(head.job.spec.kind))) return;
      synthQueue.shift();
      startSynthesis(head);
    }
  };

  const startSynthesis = (partition: Partition) => {
    const kind = partition.job.spec.kind;
    const figures = model.kinds[kind];
    const warm = pceResident(kind);
    setSynthesizing(kind, 1);
    partition.state = "synthesizing";
    if (!updateMemory()) return;
    let sameKind = 0;
    for (const job of inFlight) if (job.spec.kind === kind) sameKind++;
    const synthesisSec = model.synthesisSecAt(kind, warm, sameKind) * (warm ? 1 : model.coldSynthesisFactor);
    after(synthesisSec, () => {
      setSynthesizing(kind, -1);
      partition.state = "synth_done";
      // The modelled duration, not the timer's: a late timer on a busy machine is not the daemon's time.
      partition.synthMs = realMs(synthesisSec);
      gpuStageBytes += figures.gpuStageBytes;
      if (!updateMemory()) return;
      insertByJobOrder(gpuQueue, partition);
      pumpGpu();
      pumpSynthesis();
    });
  };

  const pumpGpu = () => {
    for (const worker of workers) {
      if (disposed || gpuQueue.length === 0) return;
      if (worker.partition) continue;
      const partition = gpuQueue.shift()!;
      worker.partition = partition;
      worker.busySince = scheduler.now();
      partition.state = "gpu";
      const figures = model.kinds[partition.job.spec.kind];
      after(figures.gpuWorkerSec, () => {
        worker.partition = undefined;
        partition.state = "done";
        partition.gpuMs = realMs(figures.gpuWorkerSec);
        gpuStageBytes -= figures.gpuStageBytes;
        updateMemory();
        const job = partition.job;
        job.partitionsDone++;
        if (job.partitionsDone === job.partitions.length) after(figures.overheadSec, () => complete(job));
        pumpGpu();
      });
    }
  };

  const complete = (job: Job) => {
    if (job.spec.injectedFailure !== undefined) {
      finish(job, { status: "failed", errorMessage: job.spec.injectedFailure });
      return;
    }
    const now = scheduler.now();
    const totalMs = now - job.submittedAt;
    const synthesisMs = job.partitions.reduce((sum, p) => sum + (p.synthMs ?? 0), 0);
    const gpuComputeMs = job.partitions.reduce((sum, p) => sum + (p.gpuMs ?? 0), 0);
    // Partitioned proofs: wait = total minus time since the assembler was registered (after
    // C1 parse and parameter load); others: total minus synthesis and GPU time.
    const partitioned = job.partitions.length > 1 || job.spec.kind === "porep" || job.spec.kind === "snap";
    const queueWaitMs = partitioned
      ? totalMs - (now - (job.registeredAt ?? job.submittedAt))
      : totalMs - synthesisMs - gpuComputeMs;
    finish(job, {
      status: "completed",
      timings: {
        queueWaitMs: Math.max(0, Math.round(queueWaitMs)),
        synthesisMs: Math.round(synthesisMs),
        gpuComputeMs: Math.round(gpuComputeMs),
        totalMs: Math.round(totalMs),
      },
    });
  };

  return {
    submit(spec, onDone) {
      if (disposed) return;
      const figures = model.kinds[spec.kind];
      const job: Job = {
        seq: seq++,
        spec,
        submittedAt: scheduler.now(),
        registeredAt: undefined,
        finishedAt: undefined,
        partitions: [],
        partitionsDone: 0,
        onDone,
      };
      job.partitions = Array.from({ length: figures.partitions }, (_, index) => ({
        job,
        index,
        state: "pending" as PartitionState,
        synthMs: null,
        gpuMs: null,
      }));
      if (spec.kind === "porep" || spec.kind === "snap") jobs.add(job);
      inFlight.add(job);
      if (!updateMemory()) return;
      // Higher priority first, then submission order.
      const at = dispatchQueue.findIndex((queued) => queued.spec.priority < spec.priority);
      if (at < 0) dispatchQueue.push(job);
      else dispatchQueue.splice(at, 0, job);
      pumpDispatch();
    },
    preload(circuit, onDone) {
      if (disposed) return;
      const loaded = srs.get(circuit)?.state === "loaded";
      ensureSrs(circuit, () => onDone(loaded));
    },
    queueDepth: () => dispatchQueue.length,
    memoryInUseBytes: () => memory,
    snapshot() {
      const now = scheduler.now();
      const queued: Partial<Record<ProofKind, number>> = {};
      for (const job of dispatchQueue) queued[job.spec.kind] = (queued[job.spec.kind] ?? 0) + 1;
      for (const job of jobs) {
        if (job.finishedAt !== undefined && now - job.finishedAt > pipelineRetentionMs) jobs.delete(job);
      }
      const allocation = (circuit: CircuitId, bytes: number, lastUsedAt: number): AllocationView => ({
        circuitId: circuit,
        bytes,
        lastUsedMsAgo: Math.max(0, now - lastUsedAt),
        evictable: ![...workers].some(
          (w) => w.partition && circuitForKind[w.partition.job.spec.kind] === circuit,
        ),
      });
      const srsViews: AllocationView[] = [];
      for (const [circuit, state] of srs) {
        if (state.state === "loaded")
          srsViews.push(allocation(circuit, model.srsBytes[circuit], state.lastUsedAt));
      }
      const pceViews: AllocationView[] = [];
      for (const [circuit, state] of pce) {
        if (state === "resident") {
          const used = srs.get(circuit);
          pceViews.push(
            allocation(circuit, model.pceBytes[circuit], used?.state === "loaded" ? used.lastUsedAt : now),
          );
        }
      }
      return {
        memoryInUseBytes: memory,
        synthesizing,
        waitingForGpu: gpuQueue.length,
        onGpu: workers.filter((w) => w.partition).length,
        queued,
        queueDepth: dispatchQueue.length,
        gpuWorkers: workers.map((w) => ({
          workerId: w.workerId,
          gpuOrdinal: w.gpuOrdinal,
          jobId: w.partition?.job.spec.jobId,
          kind: w.partition?.job.spec.kind,
          partition: w.partition?.index,
          busyMs: w.partition ? now - w.busySince : undefined,
        })),
        pipelines: [...jobs]
          .filter((job) => job.registeredAt !== undefined)
          .map((job) => ({
            jobId: job.spec.jobId,
            kind: job.spec.kind,
            startedMsAgo: now - (job.registeredAt ?? job.submittedAt),
            totalPartitions: job.partitions.length,
            partitionsDone: job.partitionsDone,
            partitions: job.partitions.map((p) => ({
              index: p.index,
              state: p.state,
              synthMs: p.synthMs,
              gpuMs: p.gpuMs,
            })),
          })),
        srs: srsViews,
        pce: pceViews,
      };
    },
    dispose,
  };
}

function insertByJobOrder(queue: Partition[], partition: Partition): void {
  const at = queue.findIndex(
    (queued) =>
      queued.job.seq > partition.job.seq ||
      (queued.job.seq === partition.job.seq && queued.index > partition.index),
  );
  if (at < 0) queue.push(partition);
  else queue.splice(at, 0, partition);
}
