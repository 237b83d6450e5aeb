import { toCuzkitError } from "@cuzkit/core";
import {
  defaultExclusionPolicy,
  type EvidenceKind,
  type ExclusionPolicy,
} from "../economics/machine-evidence.js";
import type { InstanceRecord } from "../store/records.js";
import type { ManagerContext } from "./context.js";

/** The fleet's exclusion policy: its configured period with the default thresholds. */
export function exclusionPolicyOf(ctx: Pick<ManagerContext, "config">): ExclusionPolicy {
  return { ...defaultExclusionPolicy, periodMs: ctx.config.exclusionPeriodMs };
}

/**
 * Whose fault a failed instance is, from how it failed (the event type) and when. Only the
 * machine's own failures count against it: an operator's destroy, a Vast refusal, and a
 * deadline of a phase the manager was down for (it began before this manager started, or it is
 * `renting`, which the manager and Vast alone drive) are not the machine's.
 */
export function failureKind(
  ctx: Pick<ManagerContext, "startedAt">,
  record: Pick<InstanceRecord, "state" | "phaseStartedAt">,
  eventType: string,
): EvidenceKind {
  switch (eventType) {
    case "operator-destroy":
      return "operator-destroy";
    case "rent-refused":
      return "vast-error";
    case "preempted":
      return "preempted";
    case "lost":
    case "vast-status":
    case "gone":
      return "death";
    case "deadline":
      if (record.phaseStartedAt < ctx.startedAt) return "manager-outage";
      return record.state === "renting" ? "vast-error" : "failure";
    default:
      return "failure";
  }
}

/**
 * Appends one evidence row for an instance's machine (nothing when it has no machine id). A
 * failed write is logged, not thrown: the failure itself is already recorded on the instance.
 */
export async function recordInstanceEvidence(
  ctx: Pick<ManagerContext, "store" | "logger">,
  record: InstanceRecord,
  kind: EvidenceKind,
  reason: string,
): Promise<void> {
  if (record.machineId === undefined) return;
  try {
    await ctx.store.recordEvidence({
      machineId: record.machineId,
      hostId: record.offer.hostId,
      instanceId: record.id,
      kind,
      reason,
    });
  } catch (error) {
    ctx.logger.warn("fleet could not record machine evidence", {
      instanceId: record.id,
      machineId: record.machineId,
      code: toCuzkitError(error).code,
    });
  }
}
