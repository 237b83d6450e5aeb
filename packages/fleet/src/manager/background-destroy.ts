import { releaseStoredDrain } from "../curio/drain.js";
import { curioNodeOf } from "../curio/machine-map.js";
import type { InstanceRecord } from "../store/records.js";
import type { BackgroundJobs } from "./background-jobs.js";
import type { ManagerContext } from "./context.js";
import type { DestroyOptions } from "./operator-destroy.js";

/** The manager's destroy, as the background destroy calls it. */
export type DestroyFn = (id: string, options?: DestroyOptions) => Promise<InstanceRecord>;

/**
 * FleetManager.destroyInBackground: a destroy that drains a Curio node runs as a background job
 * (`background: true`); any other is done before the answer.
 */
export async function destroyInBackground(
  ctx: ManagerContext,
  jobs: BackgroundJobs,
  destroy: DestroyFn,
  id: string,
): Promise<{ record: InstanceRecord; background: boolean }> {
  const record = await ctx.store.require(id);
  // Only a drain takes long: a non-Curio machine is destroyed now, and a node that cannot be
  // told apart is refused now (the conflict's error), both before the answer.
  const drains =
    ctx.curio !== undefined &&
    record.state === "active" &&
    (record.curioDrain !== undefined || (await curioNodeOf(ctx, id)).kind === "node");
  if (!drains) return { record: await destroy(id), background: false };
  jobs.run(id, async (signal) => {
    await destroy(id, { signal, onAbort: "keep" });
  });
  return { record, background: true };
}

/** At start: drains left `draining` with a destroy pending are resumed in the background; the others uncordoned. */
export async function resumeCurioDrains(
  ctx: ManagerContext,
  inBackground: (id: string) => Promise<unknown>,
): Promise<void> {
  if (ctx.curio === undefined) return;
  for (const record of await ctx.store.list()) {
    const drain = record.curioDrain;
    if (drain === undefined) continue;
    if (record.state === "active" && drain.state === "draining" && drain.destroyPending) {
      await ctx.store.appendEvent(record.id, "curio-drain-resumed", {
        curioMachineId: drain.curioMachineId,
        deadlineAt: drain.deadlineAt ?? null,
      });
      await inBackground(record.id);
    } else {
      await releaseStoredDrain(ctx, record);
    }
  }
}
