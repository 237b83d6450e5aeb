import {
  defaultExclusionPolicy,
  type EvidenceKind,
  type ExclusionPolicy,
  type MachineEvidenceInput,
  type MachineEvidenceRecord,
  type MachineExclusion,
  machineExclusion,
} from "../economics/machine-evidence.js";
import type { SqlExecutor } from "./sql-executor.js";
import { type SqlStoreContext, writeEvent } from "./sql-store-context.js";

// The store's machine evidence (failures, deaths, cordons, lifts) and the exclusions read from it.

interface EvidenceRow {
  seq: number;
  machine_id: number;
  host_id: number | null;
  instance_id: string | null;
  at: number;
  kind: string;
  reason: string;
}

const sql = {
  insertEvidence: `INSERT INTO machine_evidence (machine_id, host_id, instance_id, at, kind, reason)
    VALUES (?, ?, ?, ?, ?, ?) RETURNING *`,
  selectEvidence: "SELECT * FROM machine_evidence ORDER BY seq",
  selectEvidenceOfMachine: "SELECT * FROM machine_evidence WHERE machine_id = ? ORDER BY seq",
} as const;

const evidenceFromRow = (row: EvidenceRow): MachineEvidenceRecord => ({
  seq: row.seq,
  machineId: row.machine_id,
  hostId: row.host_id ?? undefined,
  instanceId: row.instance_id ?? undefined,
  at: row.at,
  kind: row.kind as EvidenceKind,
  reason: row.reason,
});

/** Appends one evidence row on `q`; the stored record. */
async function insertEvidence(
  ctx: SqlStoreContext,
  q: SqlExecutor,
  input: MachineEvidenceInput,
): Promise<MachineEvidenceRecord> {
  return evidenceFromRow(
    (await q.get<EvidenceRow>(sql.insertEvidence, [
      input.machineId,
      input.hostId ?? null,
      input.instanceId ?? null,
      input.at ?? ctx.clock.now(),
      input.kind,
      input.reason,
    ])) as EvidenceRow,
  );
}

/** FleetStore.recordEvidence. */
export const recordEvidence = (ctx: SqlStoreContext, input: MachineEvidenceInput) =>
  insertEvidence(ctx, ctx.db, input);

/** FleetStore.machineEvidence: oldest first, of one machine or all. */
export async function machineEvidence(
  ctx: SqlStoreContext,
  machineId: number | undefined,
): Promise<MachineEvidenceRecord[]> {
  return (
    machineId === undefined
      ? await ctx.db.all<EvidenceRow>(sql.selectEvidence)
      : await ctx.db.all<EvidenceRow>(sql.selectEvidenceOfMachine, [machineId])
  ).map(evidenceFromRow);
}

/** FleetStore.machineExclusion: now (the store's clock). Default policy: defaultExclusionPolicy. */
export async function exclusionOf(
  ctx: SqlStoreContext,
  machineId: number,
  policy: ExclusionPolicy = defaultExclusionPolicy,
): Promise<MachineExclusion | undefined> {
  return machineExclusion(await machineEvidence(ctx, machineId), ctx.clock.now(), policy);
}

/** FleetStore.excludeMachine: the operator's cordon. */
export async function excludeMachine(ctx: SqlStoreContext, machineId: number, reason: string): Promise<void> {
  await insertEvidence(ctx, ctx.db, {
    machineId,
    hostId: undefined,
    instanceId: undefined,
    kind: "cordon",
    reason,
  });
}

/** FleetStore.liftExclusion: a `lift` row and a `machine-lifted` event, in one transaction. */
export function liftExclusion(
  ctx: SqlStoreContext,
  machineId: number,
  reason: string,
): Promise<MachineEvidenceRecord> {
  return ctx.db.transaction(async (tx) => {
    const lifted = await insertEvidence(ctx, tx, {
      machineId,
      hostId: undefined,
      instanceId: undefined,
      kind: "lift",
      reason,
    });
    await writeEvent(ctx, tx, `machine-${machineId}`, "machine-lifted", undefined, undefined, {
      machineId,
      reason,
    });
    return lifted;
  });
}
