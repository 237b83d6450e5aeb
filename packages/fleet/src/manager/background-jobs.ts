import { toCuzkitError } from "@cuzkit/core";
import type { ManagerContext } from "./context.js";

/**
 * Jobs running after their caller returned (background destroys, production replacements on
 * Curio), by instance: one at a time per instance; the manager's stop aborts and awaits them.
 */
export interface BackgroundJobs {
  /** Starts a job for an instance; dropped while one runs for it. A failure is a `destroy-refused` event. */
  run(id: string, job: (signal: AbortSignal) => Promise<void>): void;
  /** Aborts every running job with the reason and waits until they have ended. */
  abortAll(reason: Error): Promise<void>;
  /** Waits until no job runs (jobs started meanwhile included). */
  settled(): Promise<void>;
}

/** Creates an empty set of background jobs. */
export function createBackgroundJobs(ctx: Pick<ManagerContext, "store" | "logger">): BackgroundJobs {
  const jobs = new Map<string, { controller: AbortController; done: Promise<void> }>();
  const allDone = () => Promise.all([...jobs.values()].map((job) => job.done));
  return {
    run(id, job) {
      if (jobs.has(id)) return;
      const controller = new AbortController();
      const done = job(controller.signal)
        .catch((error: unknown) => noteRefusedDestroy(ctx, id, error))
        .finally(() => jobs.delete(id));
      jobs.set(id, { controller, done });
    },
    async abortAll(reason) {
      for (const job of jobs.values()) job.controller.abort(reason);
      await allDone();
    },
    async settled() {
      while (jobs.size > 0) await allDone();
    },
  };
}

/** A background job failed: the drain's own events say what happened; this one says the destroy did not go ahead. */
async function noteRefusedDestroy(
  ctx: Pick<ManagerContext, "store" | "logger">,
  id: string,
  error: unknown,
): Promise<void> {
  const failure = toCuzkitError(error);
  ctx.logger.warn("fleet background destroy failed", { instanceId: id, code: failure.code });
  await ctx.store
    .appendEvent(id, "destroy-refused", {
      code: failure.code,
      message: failure.message,
      hint: failure.hint ?? null,
    })
    .catch(() => {});
}
