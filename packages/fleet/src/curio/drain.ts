import { retry, toCuzkitError } from "@cuzkit/core";
import type { InstanceRecord } from "../store/records.js";
import type { CurioContext } from "./curio-context.js";
import { dbRetryOptions } from "./drain-db.js";
import { drainDb, drainRecord, openDrain } from "./drain-run.js";
import type { DrainOptions, DrainOutcome } from "./drain-types.js";
import { abortDrain, failDrain } from "./drain-undo.js";
import { watchDrain } from "./drain-watch.js";

export type { DrainConflict, DrainOptions, DrainOutcome } from "./drain-types.js";

/**
 * Cordons the instance's Curio node (found by mapCurioInstances: by name, else by a unique
 * address; a stored drain's node when resuming) and waits until Curio has seen the cordon and
 * the node owns no task, or the deadline. The steps, each an event on the instance:
 *
 * 1. The drain is stored on the instance first (`draining`, the node, since), so a manager
 *    killed from here on resumes it at its next start.
 * 2. `UPDATE harmony_machines SET unschedulable = true WHERE id = $1` (Curio's own cordon):
 *    `curio-cordoned`.
 * 3. Every drainPollMs: `SELECT id, name FROM harmony_task WHERE owner_id = $1`. A task seen for
 *    the first time (or at the cordon plus curioPollMs, if earlier: no claim comes after Curio
 *    saw the flag) is expected to end by then plus the longest work time of its type in
 *    `harmony_task_history` over the window (else 30 min); the deadline is the latest of those
 *    plus drainMarginMs (or the link's drainDeadlineMs), stored with a `curio-draining` event.
 * 4. Drained when the node owns nothing and at least curioPollMs has passed since the cordon
 *    (Curio reads the flag on that timer, so a task claimed meanwhile is waited for):
 *    `curio-drained`. Past the deadline with tasks still owned: `curio-drain-deadline`.
 *
 * Each HarmonyDB query is retried within the link's dbRetry; a failure past it uncordons the
 * node (best effort) and answers "failed" (see DrainOutcome). When the node cannot be told
 * apart, nothing is written to Curio and "conflict" is answered.
 */
export async function cordonAndDrain(
  ctx: CurioContext,
  record: InstanceRecord,
  options: DrainOptions = {},
): Promise<DrainOutcome> {
  const link = ctx.curio;
  if (link === undefined) return "not-curio";
  const run = await openDrain(ctx, link, record, options);
  if (typeof run === "string") return run;
  const { id, machineId } = run;
  // The intent first: a manager killed after the UPDATE below finds it and resumes.
  if ((await ctx.store.setCurioDrain(id, drainRecord(run))) === undefined) return "gone";
  try {
    await drainDb(run, "cordon", () => link.harmony.setUnschedulable(machineId, true));
  } catch (error) {
    if (options.signal?.aborted) return abortDrain(run);
    return failDrain(run, error, "cordon");
  }
  await ctx.store.appendEvent(id, "curio-cordoned", {
    ...run.nodeDetail,
    since: run.since,
    curioPollMs: link.curioPollMs,
  });
  ctx.logger.info("fleet cordoned a Curio machine before destroying it", {
    instanceId: id,
    curioMachineId: machineId,
  });
  try {
    return await watchDrain(run);
  } catch (error) {
    if (options.signal?.aborted) return abortDrain(run);
    return failDrain(run, error, "drain");
  }
}

/**
 * Uncordons the node of a drain stored `cordoned` (or `draining` with no destroy to follow) and
 * clears it: what a manager's start does with a drain it will not resume. Answers whether it
 * was uncordoned (false: still stored, retried at the next start).
 */
export async function releaseStoredDrain(ctx: CurioContext, record: InstanceRecord): Promise<boolean> {
  const link = ctx.curio;
  const drain = record.curioDrain;
  if (link === undefined || drain === undefined) return false;
  try {
    await retry(() => link.harmony.setUnschedulable(drain.curioMachineId, false), dbRetryOptions(link, ctx));
  } catch (error) {
    ctx.logger.warn("fleet could not uncordon a Curio machine left cordoned", {
      instanceId: record.id,
      curioMachineId: drain.curioMachineId,
      code: toCuzkitError(error).code,
    });
    return false;
  }
  await ctx.store.setCurioDrain(record.id, undefined, {
    type: "curio-uncordoned",
    detail: { curioMachineId: drain.curioMachineId, resumed: true, was: drain.state },
  });
  return true;
}
