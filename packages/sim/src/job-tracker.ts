import type { AwaitProofResponse } from "@cuzkit/proto";

// The daemon's JobTracker (engine.rs): job id = request id, no deduplication. A submit adds a
// pending entry; every waiter registered on an id gets the FIRST completion of that id; a later
// completion of a duplicate only overwrites the cached result. Results are kept until restart.

type Waiter = (result: AwaitProofResponse) => void;

/** Pending waiters and finished results, keyed by job id. */
export interface JobTracker {
  /** Notes that a job with this id was submitted (a duplicate adds nothing but keeps the entry). */
  submitted(jobId: string): void;
  /** Adds a waiter that receives the next completion of `jobId` (how Prove waits on its own job). */
  addWaiter(jobId: string, waiter: Waiter): void;
  /** AwaitProof: the cached result at once, else the next completion; undefined when the id is unknown. */
  await(jobId: string): Promise<AwaitProofResponse> | undefined;
  /** Records a completion: delivers it to every waiter on the id and caches it (overwriting). */
  complete(jobId: string, result: AwaitProofResponse): void;
  /** Finished results held. */
  finishedCount(): number;
}

/** Creates an empty JobTracker. */
export function createJobTracker(): JobTracker {
  const pending = new Map<string, Waiter[]>();
  const completed = new Map<string, AwaitProofResponse>();
  return {
    submitted(jobId) {
      if (!pending.has(jobId)) pending.set(jobId, []);
    },
    addWaiter(jobId, waiter) {
      const waiters = pending.get(jobId);
      if (waiters) waiters.push(waiter);
      else pending.set(jobId, [waiter]);
    },
    await(jobId) {
      const done = completed.get(jobId);
      if (done) return Promise.resolve(done);
      const waiters = pending.get(jobId);
      if (!waiters) return undefined;
      return new Promise((resolve) => waiters.push(resolve));
    },
    complete(jobId, result) {
      const waiters = pending.get(jobId);
      pending.delete(jobId);
      completed.set(jobId, result);
      for (const waiter of waiters ?? []) waiter(result);
    },
    finishedCount: () => completed.size,
  };
}
