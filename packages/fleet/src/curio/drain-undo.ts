import { toCuzkitError } from "@cuzkit/core";
import type { CurioDrainRecord } from "../store/records.js";
import { transient } from "./drain-db.js";
import { type DrainRun, drainDb, drainRecord } from "./drain-run.js";
import type { DrainOutcome } from "./drain-types.js";

/**
 * Uncordons (within the retry policy, not stoppable) and clears the stored drain, with a
 * `curio-uncordoned` event; when that fails, the drain is stored `cordoned` (the next start
 * retries) with a `curio-uncordon-failed` event.
 */
export async function uncordonDrain(run: DrainRun, detail: Record<string, unknown>): Promise<void> {
  const { ctx, id, machineId } = run;
  try {
    await drainDb(run, "uncordon", () => run.link.harmony.setUnschedulable(machineId, false), false);
  } catch (error) {
    const failure = toCuzkitError(error);
    const event = {
      type: "curio-uncordon-failed",
      detail: { ...detail, curioMachineId: machineId, code: failure.code, hint: failure.hint ?? null },
    };
    ctx.logger.warn("fleet could not uncordon a Curio machine: the next start retries", {
      instanceId: id,
      curioMachineId: machineId,
      code: failure.code,
    });
    const cordoned: CurioDrainRecord = { ...drainRecord(run), state: "cordoned", destroyPending: false };
    if ((await ctx.store.setCurioDrain(id, cordoned, event)) === undefined)
      await ctx.store.appendEvent(id, event.type, event.detail);
    return;
  }
  await ctx.store.setCurioDrain(id, undefined, {
    type: "curio-uncordoned",
    detail: { ...detail, curioMachineId: machineId },
  });
}

/** HarmonyDB failed past its retries at `step`: a `curio-drain-failed` event, and the cordon undone. */
export async function failDrain(run: DrainRun, error: unknown, step: string): Promise<DrainOutcome> {
  const { ctx, id } = run;
  const failure = toCuzkitError(error);
  ctx.logger.warn("fleet gives up a Curio drain: HarmonyDB failed", {
    instanceId: id,
    step,
    code: failure.code,
  });
  await ctx.store.appendEvent(id, "curio-drain-failed", {
    curioMachineId: run.machineId,
    step,
    code: failure.code,
    message: failure.message,
    hint: failure.hint ?? null,
  });
  if (step === "cordon" && !transient(error)) {
    // Refused (no UPDATE grant, say): the flag was not written, so there is nothing to undo.
    await ctx.store.setCurioDrain(id, undefined);
  } else {
    // A lost connection may have committed the cordon: undo it either way.
    await uncordonDrain(run, { reason: `the drain failed (${failure.code})` });
  }
  run.options.onFailed?.(error);
  return "failed";
}

/** The drain's signal aborted: kept stored for the next start (`keep`), or cancelled and uncordoned. */
export async function abortDrain(run: DrainRun): Promise<DrainOutcome> {
  const { signal } = run.options;
  const reason =
    signal?.reason instanceof Error ? signal.reason.message : String(signal?.reason ?? "aborted");
  if (run.options.onAbort === "keep") {
    await run.ctx.store.appendEvent(run.id, "curio-drain-interrupted", {
      curioMachineId: run.machineId,
      reason,
      deadlineAt: run.deadlineAt,
      resumes: "at the manager's next start",
    });
    return "interrupted";
  }
  await uncordonDrain(run, { reason: `cancelled: ${reason}` });
  return "cancelled";
}
