import type { CurioRate, InstanceRecord } from "@cuzkit/fleet";

/** One status row, for people and for --json. */
export function statusRow(
  record: InstanceRecord,
  now: number,
  curio: readonly CurioRate[] = [],
  curioIdentityIssue: string | undefined = undefined,
) {
  return {
    id: record.id,
    state: record.state,
    vastId: record.vastId ?? null,
    offerId: record.offerId,
    gpus: `${record.offer.numGpus}x ${record.offer.gpuName}`,
    elapsedMs: now - record.phaseStartedAt,
    deadlineMs: record.phaseDeadlineAt === undefined ? null : record.phaseDeadlineAt - record.phaseStartedAt,
    /** The counted proofs/hour (what the planner counts), once benchmarked. */
    proofsPerHour: record.proofsPerHour ?? null,
    /** What it rests on: benchmark, probation (the model's rate, a suspect claim) or production. */
    rateBasis: record.proofsPerHour === undefined ? null : (record.rateBasis ?? "benchmark"),
    dphPerHour: record.dphPerHour,
    reason: record.reason ?? null,
    destroyManually: record.destroyManual,
    /** Curio's latest production of this machine per proof type (when it is a Curio node). */
    curioProduction: curio,
    /** Why its Curio node cannot be told apart (then never cordoned or destroyed automatically); null when it can. */
    curioIdentityIssue: curioIdentityIssue ?? null,
    /** The Curio drain held on its node (`draining` or `cordoned`, the node, since, deadline); null when none. */
    curioDrain:
      record.curioDrain === undefined
        ? null
        : {
            state: record.curioDrain.state,
            curioMachineId: record.curioDrain.curioMachineId,
            since: record.curioDrain.since,
            deadlineAt: record.curioDrain.deadlineAt ?? null,
            destroyPending: record.curioDrain.destroyPending,
          },
  };
}
