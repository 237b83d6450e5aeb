import { mayBeBilling } from "../lifecycle.js";
import type { FleetStore } from "../store/fleet-store.js";
import type { InstanceRecord } from "../store/records.js";
import type { CurioContext } from "./curio-context.js";
import type { CurioMapping } from "./machine-map.js";

// An instance whose Curio node cannot be told apart is flagged by an event
// (`curio-identity-conflict`, with the reason) and cleared by another (`curio-identity-resolved`)
// once one node is its own again; status and the dashboard show the latest.

const conflictType = "curio-identity-conflict";
const resolvedType = "curio-identity-resolved";

/** The latest identity event of an instance, if any. */
async function latestIdentityEvent(store: FleetStore, instanceId: string) {
  const events = await store.events({ instanceId });
  for (let k = events.length - 1; k >= 0; k--) {
    const e = events[k];
    if (e !== undefined && (e.type === conflictType || e.type === resolvedType)) return e;
  }
  return undefined;
}

/** Records a conflict on an instance (once per reason), with the candidate nodes. */
export async function noteCurioConflict(
  ctx: CurioContext,
  instanceId: string,
  reason: string,
  candidateIds: readonly number[],
): Promise<void> {
  const latest = await latestIdentityEvent(ctx.store, instanceId);
  if (latest?.type === conflictType && latest.detail?.reason === reason) return;
  ctx.logger.warn("fleet cannot tell an instance's Curio node apart: it is not cordoned or destroyed", {
    instanceId,
    reason,
  });
  await ctx.store.appendEvent(instanceId, conflictType, { reason, curioMachineIds: [...candidateIds] });
}

/** Records a mapping's conflicts, and clears the flag of instances no longer in conflict. */
export async function noteCurioMapping(ctx: CurioContext, mapping: CurioMapping): Promise<void> {
  for (const c of mapping.conflicts)
    await noteCurioConflict(
      ctx,
      c.instance.id,
      c.reason,
      c.candidates.map((m) => m.id),
    );
  const settled = [
    ...mapping.matched.map((m) => ({
      id: m.instance.id,
      curioMachineId: m.machine.id,
      matchedBy: m.matchedBy,
    })),
    ...mapping.unmatched.map((r) => ({ id: r.id, curioMachineId: null, matchedBy: null })),
  ];
  for (const { id, ...detail } of settled) {
    if ((await latestIdentityEvent(ctx.store, id))?.type !== conflictType) continue;
    await ctx.store.appendEvent(id, resolvedType, detail);
  }
}

/** The open identity conflict of each live instance (its reason), for status and the dashboard. */
export async function curioIdentityIssues(
  store: FleetStore,
  records: readonly InstanceRecord[],
): Promise<Map<string, string>> {
  const issues = new Map<string, string>();
  for (const r of records) {
    if (!mayBeBilling(r.state)) continue;
    const latest = await latestIdentityEvent(store, r.id);
    if (latest?.type === conflictType)
      issues.set(r.id, String(latest.detail?.reason ?? "ambiguous Curio node"));
  }
  return issues;
}
