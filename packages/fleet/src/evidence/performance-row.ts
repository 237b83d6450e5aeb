import type { DaemonDialect } from "@cuzkit/core";
import { hardwareClassKey } from "../economics/hardware-class.js";
import { modelledDeadlineInputs } from "../modelled-durations.js";
import type { HostPerformanceInput } from "../store/host-performance.js";
import type { InstanceRecord } from "../store/records.js";

/** A host-performance row for an instance: its offer's hardware, price and the model's prediction. */
export function performanceOf(
  record: InstanceRecord,
  dialect: DaemonDialect,
  measured: Pick<HostPerformanceInput, "kind" | "proofsPerHour"> & Partial<HostPerformanceInput>,
): HostPerformanceInput {
  const offer = record.offer;
  const modelled = modelledDeadlineInputs(offer, { dialect });
  return {
    instanceId: record.id,
    verdict: undefined,
    predictedProofsPerHour: modelled.modelledProofsPerHour > 0 ? modelled.modelledProofsPerHour : undefined,
    dphPerHour: record.dphPerHour,
    offerId: record.offerId,
    machineId: record.machineId,
    hostId: offer.hostId,
    gpuName: offer.gpuName,
    numGpus: offer.numGpus,
    cpuRamBytes: offer.cpuRamBytes,
    cpuCores: offer.cpuCores,
    cpuName: offer.cpuName,
    classKey: hardwareClassKey(offer),
    windowMs: undefined,
    config: undefined,
    records: undefined,
    ...measured,
  };
}
