import type { CurioRate, InstanceRecord, RankedCandidate } from "@cuzkit/fleet";

/** One status row, for people and for --json. */
export function statusRow(record: InstanceRecord, now: number, curio: readonly CurioRate[] = []) {
  return {
    id: record.id,
    state: record.state,
    vastId: record.vastId ?? null,
    offerId: record.offerId,
    gpus: `${record.offer.numGpus}x ${record.offer.gpuName}`,
    elapsedMs: now - record.phaseStartedAt,
    deadlineMs: record.phaseDeadlineAt === undefined ? null : record.phaseDeadlineAt - record.phaseStartedAt,
    proofsPerHour: record.proofsPerHour ?? null,
    dphPerHour: record.dphPerHour,
    reason: record.reason ?? null,
    destroyManually: record.destroyManual,
    /** Curio's latest production of this machine per proof type (when it is a Curio node). */
    curioProduction: curio,
  };
}

/** One `fleet offers` row, for people and for --json. */
export function offerRow(r: RankedCandidate, gpuName: string, numGpus: number) {
  return {
    offerId: r.candidate.offerId,
    machineId: r.candidate.machineId ?? null,
    gpus: `${numGpus}x ${gpuName}`,
    fits: true,
    predictedProofsPerHour: r.predictedProofsPerHour,
    correctedProofsPerHour: r.correctedProofsPerHour ?? null,
    measuredProofsPerHour: r.measured?.proofsPerHour ?? null,
    measuredRuns: r.measured?.runs ?? 0,
    source: r.source,
    dphPerHour: r.candidate.dphTotal,
    costPer1000: r.costPer1000,
    optimisticCostPer1000: r.optimisticCostPer1000,
    reliability: r.reliability,
    worthTrying: r.worthTrying,
  };
}
