import { toCuzkitError } from "@cuzkit/core";
import { FleetCurioDbError } from "../errors.js";
import type { InstanceRecord } from "../store/records.js";
import type { CurioContext } from "./curio-context.js";
import { cordonAndDrain, type DrainOutcome } from "./drain.js";
import { noteCurioConflict } from "./identity-events.js";
import { curioNodeOf } from "./machine-map.js";

// What each destroy path does to the instance's Curio node before the rental goes:
//
// - The machine may still be working (an operator's destroy, `fleet run` over target or a backlog
//   scale-down, a production replacement, a phase deadline): cordon and drain (cordonAndDrain).
// - The machine is dead or lost (no heartbeat, Vast says exited/offline, Vast no longer knows it,
//   the agent reported a failure): cordon at once, no drain wait (cordonLostNode), so Curio gives
//   a dead node no new work. A HarmonyDB that fails or hangs never stops the destroy: the failed
//   cordon is an event (`curio-cordon-failed`, with the error's code, FLEET_CURIO_DB).

/** How a cordon at once ended. */
export type LostNodeOutcome =
  /** No Curio link, or no node is the instance's. */
  | "not-curio"
  /** The node is cordoned (`curio-cordoned`, `drain: false`). */
  | "cordoned"
  /** The node cannot be told apart: nothing was cordoned (`curio-identity-conflict`). */
  | "conflict"
  /** HarmonyDB failed or did not answer in time: nothing known to be cordoned (`curio-cordon-failed`). */
  | "failed";

/** Records a Curio step that failed before a destroy, with its code; answers the code. */
async function noteFailure(
  ctx: CurioContext,
  instanceId: string,
  type: "curio-cordon-failed" | "curio-drain-failed",
  reason: string,
  error: unknown,
): Promise<string> {
  const { code, message } = toCuzkitError(error);
  ctx.logger.warn(
    type === "curio-cordon-failed"
      ? "fleet could not cordon a dead machine's Curio node; destroying it anyway"
      : "fleet could not drain a Curio node",
    { instanceId, code },
  );
  await ctx.store.appendEvent(instanceId, type, { reason, code, message });
  return code;
}

/**
 * Cordons the Curio node of an instance that is dead or lost, at once and without waiting for its
 * tasks: `UPDATE harmony_machines SET unschedulable = true WHERE id = $1`, with a `curio-cordoned`
 * event whose `reason` says why and `drain: false`. Never throws: a HarmonyDB error, or no answer
 * within the link's cordonTimeoutMs (default 30 s), is a `curio-cordon-failed` event with the
 * error's code (FLEET_CURIO_DB) and "failed"; a node that cannot be told apart is left alone
 * ("conflict"). The caller destroys the instance whatever this answers.
 */
export async function cordonLostNode(
  ctx: CurioContext,
  record: InstanceRecord,
  reason: string,
): Promise<LostNodeOutcome> {
  const link = ctx.curio;
  if (link === undefined) return "not-curio";
  let abandoned = false;
  const cordon = async (): Promise<LostNodeOutcome> => {
    const node = await curioNodeOf(ctx, record.id);
    if (node.kind === "none") return "not-curio";
    if (node.kind === "conflict") {
      await noteCurioConflict(
        ctx,
        record.id,
        node.reason,
        node.candidates.map((m) => m.id),
      );
      return "conflict";
    }
    // Past the bound the destroy has gone on: a late write would be a cordon nobody is told of.
    if (abandoned) return "failed";
    await link.harmony.setUnschedulable(node.machine.id, true);
    await ctx.store.appendEvent(record.id, "curio-cordoned", {
      curioMachineId: node.machine.id,
      hostAndPort: node.machine.hostAndPort,
      curioNodeName: node.machine.name ?? null,
      matchedBy: node.matchedBy,
      reason,
      drain: false,
      late: abandoned,
    });
    ctx.logger.info("fleet cordoned a dead machine's Curio node", {
      instanceId: record.id,
      curioMachineId: node.machine.id,
    });
    return "cordoned";
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const bound = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      abandoned = true;
      reject(
        new FleetCurioDbError(
          `the cordon of ${record.id}'s Curio node did not finish within ${link.cordonTimeoutMs} ms: HarmonyDB did not answer`,
          {
            hint: "check that HarmonyDB is reachable at --curio-db; the node may still take work until it is cordoned: cuzkit fleet cordon ID",
            instanceId: record.id,
          },
        ),
      );
    }, link.cordonTimeoutMs);
  });
  const work = cordon();
  // Settled late (after the bound), its outcome is already recorded or moot.
  work.catch(() => {});
  try {
    return await Promise.race([work, bound]);
  } catch (error) {
    await noteFailure(ctx, record.id, "curio-cordon-failed", reason, error);
    return "failed";
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Cordons and drains (cordonAndDrain) an instance's node before a destroy the manager decided on
 * its own (a production replacement, a phase deadline). Never throws: a HarmonyDB failure is a
 * `curio-drain-failed` event with the error's code (FLEET_CURIO_DB) and answers "failed"; the
 * caller decides whether the destroy goes on.
 */
export async function drainBeforeDestroy(
  ctx: CurioContext,
  record: InstanceRecord,
  reason: string,
  /** Aborts the drain, which stays stored for the next start. Default: the manager's stop signal. */
  signal: AbortSignal | undefined = ctx.stopSignal?.(),
): Promise<DrainOutcome | "failed"> {
  if (ctx.curio === undefined) return "not-curio";
  try {
    // A manager stopping mid-drain keeps the drain stored: the next start drains again and destroys.
    return await cordonAndDrain(ctx, record, { signal, onAbort: "keep" });
  } catch (error) {
    await noteFailure(ctx, record.id, "curio-drain-failed", reason, error);
    return "failed";
  }
}

/**
 * What a failed instance's Curio node gets before its destroy (failAndDestroy): it is cordoned at
 * once, whatever the failure (a phase deadline, an operator's destroy of a vetting instance, lost,
 * Vast status, the agent's failure). The drain (stored, resumable, waiting for Curio's poll) is
 * for `active` machines; a failed one is not, and a vetting machine has no Curio work of its own
 * (the agent starts `--serve-command` once kept). The destroy follows whatever this finds: the
 * instance has failed. Never throws.
 */
export async function settleFailedNode(
  ctx: CurioContext,
  record: InstanceRecord,
  reason: string,
): Promise<void> {
  if (ctx.curio === undefined) return;
  await cordonLostNode(ctx, record, reason);
}
