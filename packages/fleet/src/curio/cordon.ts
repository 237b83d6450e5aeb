import { FleetConfigError, FleetCurioNodeError } from "../errors.js";
import type { CurioContext } from "./curio-context.js";
import type { CurioMachine } from "./harmony-source.js";
import { noteCurioConflict } from "./identity-events.js";
import { curioNodeOf } from "./machine-map.js";

/**
 * Cordons (or uncordons) one instance's Curio node by hand (`cuzkit fleet cordon|uncordon`):
 * `UPDATE harmony_machines SET unschedulable = $1 WHERE id = $2`, Curio's own cordon, and an
 * event (`curio-cordoned` / `curio-uncordoned`). Refused without a Curio link, and when the node
 * is not found or cannot be told apart (nothing is written then).
 */
export async function setCurioCordon(
  ctx: CurioContext,
  instanceId: string,
  cordoned: boolean,
): Promise<CurioMachine> {
  const link = ctx.curio;
  if (link === undefined) {
    throw new FleetConfigError(`${cordoned ? "cordon" : "uncordon"} needs the Curio cluster's HarmonyDB`, {
      hint: "pass --curio-db postgres://USER@HOST:PORT/DB, or set CUZKIT_CURIO_DB",
      instanceId,
    });
  }
  await ctx.store.require(instanceId);
  const node = await curioNodeOf(ctx, instanceId);
  if (node.kind === "conflict") {
    await noteCurioConflict(
      ctx,
      instanceId,
      node.reason,
      node.candidates.map((m) => m.id),
    );
    throw new FleetCurioNodeError(
      `${instanceId}'s Curio node cannot be told apart: ${node.reason}; nothing was written`,
      {
        instanceId,
      },
    );
  }
  if (node.kind === "none") {
    throw new FleetCurioNodeError(
      `no Curio node is ${instanceId}'s: none is named ${(await ctx.store.require(instanceId)).label}, and none unnamed is at its public IP`,
      { instanceId },
    );
  }
  await link.harmony.setUnschedulable(node.machine.id, cordoned);
  await ctx.store.appendEvent(instanceId, cordoned ? "curio-cordoned" : "curio-uncordoned", {
    curioMachineId: node.machine.id,
    hostAndPort: node.machine.hostAndPort,
    matchedBy: node.matchedBy,
    byOperator: true,
  });
  return { ...node.machine, unschedulable: cordoned };
}
