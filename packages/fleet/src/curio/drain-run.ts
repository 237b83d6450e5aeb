import type { CurioDrainRecord, InstanceRecord } from "../store/records.js";
import type { CurioContext } from "./curio-context.js";
import type { CurioLink } from "./curio-link.js";
import { drainDbCall } from "./drain-db.js";
import type { DrainOptions } from "./drain-types.js";
import { noteCurioConflict } from "./identity-events.js";
import { curioNodeOf } from "./machine-map.js";

/** The state of one drain of one instance's Curio node, shared by its steps. */
export interface DrainRun {
  ctx: CurioContext;
  link: CurioLink;
  options: DrainOptions;
  /** The instance. */
  id: string;
  /** The node's harmony_machines id. */
  machineId: number;
  /** What the `curio-cordoned` event says about the node. */
  nodeDetail: Record<string, unknown>;
  /** When the drain began (epoch ms; a resumed drain's own). */
  since: number;
  /** When Curio has read the flag at least once (its poller's interval after the cordon). */
  seenAt: number;
  /** The drain's deadline, pushed out as tasks are seen. */
  deadlineAt: number;
}

/**
 * The drain's node and times: a stored `draining` drain's node as it was (not matched again), else
 * the instance's node found now. Answers "not-curio" or "conflict" (noted) when there is none to drain.
 */
export async function openDrain(
  ctx: CurioContext,
  link: CurioLink,
  record: InstanceRecord,
  options: DrainOptions,
): Promise<DrainRun | "not-curio" | "conflict"> {
  const id = record.id;
  const resumed = record.curioDrain?.state === "draining" ? record.curioDrain : undefined;
  let machineId: number;
  let nodeDetail: Record<string, unknown>;
  if (resumed !== undefined) {
    // The node this instance's drain cordoned: resumed as it was, not matched again.
    machineId = resumed.curioMachineId;
    nodeDetail = { curioMachineId: machineId, resumed: true };
  } else {
    const node = await curioNodeOf(ctx, id);
    if (node.kind === "none") return "not-curio";
    if (node.kind === "conflict") {
      await noteCurioConflict(
        ctx,
        id,
        node.reason,
        node.candidates.map((m) => m.id),
      );
      options.onConflict?.({ reason: node.reason });
      return "conflict";
    }
    machineId = node.machine.id;
    nodeDetail = {
      curioMachineId: machineId,
      hostAndPort: node.machine.hostAndPort,
      curioNodeName: node.machine.name ?? null,
      matchedBy: node.matchedBy,
    };
  }
  const since = resumed?.since ?? ctx.clock.now();
  // Curio has read the flag at least once by then (its poller's interval after the cordon).
  const seenAt = since + link.curioPollMs;
  const deadlineAt =
    resumed?.deadlineAt ??
    (link.drainDeadlineMs === undefined ? seenAt : since + Math.max(link.drainDeadlineMs, link.curioPollMs));
  return { ctx, link, options, id, machineId, nodeDetail, since, seenAt, deadlineAt };
}

/** The drain as stored on the instance (`draining`, a destroy pending). */
export function drainRecord(run: DrainRun): CurioDrainRecord {
  return {
    state: "draining",
    curioMachineId: run.machineId,
    since: run.since,
    deadlineAt: run.deadlineAt,
    destroyPending: true,
  };
}

/** A HarmonyDB call of this drain, retried; stopped by the drain's signal unless `stoppable` is false. */
export function drainDb<T>(run: DrainRun, what: string, op: () => Promise<T>, stoppable = true): Promise<T> {
  return drainDbCall(run.ctx, run.link, run.id, what, op, stoppable ? run.options.signal : undefined);
}
