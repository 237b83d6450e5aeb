import { isHeartbeatLost, isPastDeadline } from "../deadlines.js";
import { decidedToDestroy, heartbeatStates, timedStates } from "../lifecycle.js";
import type { ManagerContext } from "./context.js";
import { attemptDestroy, beginDestroy, failAndDestroy } from "./destroyer.js";
import { reviewAllProduction } from "./production-review.js";

/** What one monitor pass did. */
export interface MonitorSummary {
  /** Instances failed for running past their phase deadline. */
  pastDeadline: string[];
  /** Instances failed because their agent went silent. */
  lost: string[];
  /** Destroy attempts made. */
  destroyAttempts: number;
  /** Active instances replaced because their production stayed below the keep rule for a full window. */
  replaced: string[];
}

const minutes = (ms: number) => `${Math.round(ms / 60_000)} min`;

/**
 * One pass over the live instances: phase deadlines, silent agents, destroys that are due,
 * decided instances a crash left before their destroy, and the production review of active
 * machines (their counted rate follows production; the keep rule replaces under-producers). Every step is a guarded
 * transition, so running it twice, or after a restart, does nothing twice.
 */
export async function monitor(ctx: ManagerContext): Promise<MonitorSummary> {
  const { store, clock, config } = ctx;
  const summary: MonitorSummary = { pastDeadline: [], lost: [], destroyAttempts: 0, replaced: [] };
  const now = clock.now();
  for (const record of await store.list()) {
    if (
      (timedStates as readonly string[]).includes(record.state) &&
      isPastDeadline(record.phaseDeadlineAt, now)
    ) {
      const allowedMs = (record.phaseDeadlineAt ?? now) - record.phaseStartedAt;
      const failed = await failAndDestroy(
        ctx,
        record.id,
        record.state,
        `deadline: ${record.state} ran past its ${minutes(allowedMs)} deadline`,
        "deadline",
        { phase: record.state, deadlineMs: allowedMs },
      );
      if (failed !== undefined) summary.pastDeadline.push(record.id);
      continue;
    }
    if (
      heartbeatStates.includes(record.state) &&
      isHeartbeatLost(
        record.lastHeartbeatAt,
        // Heartbeats sent while this manager was down were lost, not missed: count from its start.
        Math.max(record.phaseStartedAt, ctx.startedAt),
        now,
        config.heartbeatIntervalMs,
      )
    ) {
      const failed = await failAndDestroy(
        ctx,
        record.id,
        record.state,
        `lost: no heartbeat from the agent for 3 intervals (in ${record.state})`,
        "lost",
        { phase: record.state, lastHeartbeatAt: record.lastHeartbeatAt },
      );
      if (failed !== undefined) summary.lost.push(record.id);
      continue;
    }
    if (decidedToDestroy.includes(record.state)) {
      await beginDestroy(ctx, record.id, [record.state]);
      summary.destroyAttempts++;
      continue;
    }
    if (
      record.state === "destroying" &&
      !record.destroyManual &&
      (record.destroyNextAttemptAt === undefined || record.destroyNextAttemptAt <= now)
    ) {
      await attemptDestroy(ctx, record);
      summary.destroyAttempts++;
    }
  }
  summary.replaced = await reviewAllProduction(ctx);
  return summary;
}
