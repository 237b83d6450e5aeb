import { retry, toCuzkitError } from "@cuzkit/core";
import { FleetCurioDbError } from "../errors.js";
import type { CurioDrainRecord, InstanceRecord } from "../store/records.js";
import type { CurioContext } from "./curio-context.js";
import { fallbackDrainDeadlineMs } from "./curio-link.js";
import { noteCurioConflict } from "./identity-events.js";
import { curioNodeOf } from "./machine-map.js";

/** How a drain ended. */
export type DrainOutcome =
  /** Not a Curio node (or no Curio link): nothing to drain. */
  | "not-curio"
  /** The node owns no task any more, and Curio has had a poll to see the cordon. */
  | "drained"
  /** The deadline passed with tasks still owned: destroyed anyway. */
  | "deadline"
  /** The destroy was cancelled: the node is schedulable again (or, when that failed, stored `cordoned`). */
  | "cancelled"
  /** The manager stopped mid-drain (`onAbort: "keep"`): the drain stays stored and is resumed at the next start. */
  | "interrupted"
  /**
   * HarmonyDB kept failing (past the link's retries, or a refusal such as no UPDATE grant): the
   * node was uncordoned (best effort; else stored `cordoned`), the instance is kept, and a
   * `curio-drain-failed` event says why with the error's code.
   */
  | "failed"
  /** The instance left `active` (before the cordon, or during the drain: its destroy is elsewhere). */
  | "gone"
  /**
   * Two nodes could be the instance's (or its node is another instance's too): nothing was
   * cordoned, and the instance must not be destroyed automatically (a `curio-identity-conflict`
   * event says why).
   */
  | "conflict";

/** What a drain that answered "conflict" found (for the caller's error). */
export interface DrainConflict {
  reason: string;
}

/** Options of cordonAndDrain. */
export interface DrainOptions {
  /** Stops the drain (see onAbort). Default: none. */
  signal?: AbortSignal | undefined;
  /**
   * What an abort does: `uncordon` (an operator's cancel: the node is schedulable again and the
   * instance stays) or `keep` (a manager stopping: the stored `draining` state stays, with a
   * `curio-drain-interrupted` event, and the next start resumes it). Default `uncordon`.
   */
  onAbort?: "uncordon" | "keep" | undefined;
  /** Hears why a drain answered "conflict". Default: nothing. */
  onConflict?: ((conflict: DrainConflict) => void) | undefined;
  /** Hears the HarmonyDB error of a drain that answered "failed". Default: nothing. */
  onFailed?: ((error: unknown) => void) | undefined;
}

// PostgreSQL refusals that another attempt does not cure: privileges, credentials, schema.
const permanentCodes = new Set(["42501", "28P01", "28000", "42P01", "42703", "3F000"]);

/** Whether a HarmonyDB failure may pass on its own (a restart, a dropped connection). */
function transient(error: unknown): boolean {
  if (!(error instanceof FleetCurioDbError)) return false;
  const code = (error.cause as { code?: unknown } | undefined)?.code;
  return typeof code !== "string" || !permanentCodes.has(code);
}

/** The bounded retry of a drain's HarmonyDB calls: the link's policy, transient errors only. */
function dbRetryOptions(link: NonNullable<CurioContext["curio"]>, ctx: Pick<CurioContext, "random">) {
  return {
    maxAttempts: link.dbRetry.maxAttempts,
    minDelayMs: link.dbRetry.minDelayMs,
    maxDelayMs: link.dbRetry.maxDelayMs,
    shouldRetry: transient,
    sleep: link.sleep,
    random: ctx.random,
  };
}

/**
 * Cordons the instance's Curio node (found by mapCurioInstances: by name, else by a unique
 * address; a stored drain's node when resuming) and waits until Curio has seen the cordon and
 * the node owns no task, or the deadline. The steps, each an event on the instance:
 *
 * 1. The drain is stored on the instance first (`draining`, the node, since), so a manager
 *    killed from here on resumes it at its next start.
 * 2. `UPDATE harmony_machines SET unschedulable = true WHERE id = $1` (Curio's own cordon):
 *    `curio-cordoned`.
 * 3. Every drainPollMs: `SELECT id, name FROM harmony_task WHERE owner_id = $1`. A task seen for
 *    the first time (or at the cordon plus curioPollMs, if earlier: no claim comes after Curio
 *    saw the flag) is expected to end by then plus the longest work time of its type in
 *    `harmony_task_history` over the window (else 30 min); the deadline is the latest of those
 *    plus drainMarginMs (or the link's drainDeadlineMs), stored with a `curio-draining` event.
 * 4. Drained when the node owns nothing and at least curioPollMs has passed since the cordon
 *    (Curio reads the flag on that timer, so a task claimed meanwhile is waited for):
 *    `curio-drained`. Past the deadline with tasks still owned: `curio-drain-deadline`.
 *
 * Each HarmonyDB query is retried within the link's dbRetry; a failure past it uncordons the
 * node (best effort) and answers "failed" (see DrainOutcome). When the node cannot be told
 * apart, nothing is written to Curio and "conflict" is answered.
 */
// shape-exception: one drain is a resumable state machine over one stored record; splitting it scatters the states
export async function cordonAndDrain(
  ctx: CurioContext,
  record: InstanceRecord,
  options: DrainOptions = {},
): Promise<DrainOutcome> {
  const link = ctx.curio;
  if (link === undefined) return "not-curio";
  const { signal } = options;
  const { harmony } = link;
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
  let deadlineAt =
    resumed?.deadlineAt ??
    (link.drainDeadlineMs === undefined ? seenAt : since + Math.max(link.drainDeadlineMs, link.curioPollMs));
  const drainState = (): CurioDrainRecord => ({
    state: "draining",
    curioMachineId: machineId,
    since,
    deadlineAt,
    destroyPending: true,
  });
  // The intent first: a manager killed after the UPDATE below finds it and resumes.
  if ((await ctx.store.setCurioDrain(id, drainState())) === undefined) return "gone";

  const db = <T>(what: string, op: () => Promise<T>, stoppable = true) =>
    retry(op, {
      ...dbRetryOptions(link, ctx),
      signal: stoppable ? signal : undefined,
      onRetry: (e) =>
        ctx.logger.warn(`fleet retries a HarmonyDB ${what} during a drain`, {
          instanceId: id,
          attempt: e.attempt,
          delayMs: e.delayMs,
          code: toCuzkitError(e.error).code,
        }),
    });

  /**
   * Uncordons (within the retry policy, not stoppable) and clears the stored drain, with a
   * `curio-uncordoned` event; when that fails, the drain is stored `cordoned` (the next start
   * retries) with a `curio-uncordon-failed` event.
   */
  const uncordon = async (detail: Record<string, unknown>): Promise<void> => {
    try {
      await db("uncordon", () => harmony.setUnschedulable(machineId, false), false);
    } catch (error) {
      const failure = toCuzkitError(error);
      const event = {
        type: "curio-uncordon-failed",
        detail: { ...detail, curioMachineId: machineId, code: failure.code, hint: failure.hint ?? null },
      };
      ctx.logger.warn("fleet could not uncordon a Curio machine: the next start retries", {
        instanceId: id,
        curioMachineId: machineId,
        code: failure.code,
      });
      const cordoned: CurioDrainRecord = { ...drainState(), state: "cordoned", destroyPending: false };
      if ((await ctx.store.setCurioDrain(id, cordoned, event)) === undefined)
        await ctx.store.appendEvent(id, event.type, event.detail);
      return;
    }
    await ctx.store.setCurioDrain(id, undefined, {
      type: "curio-uncordoned",
      detail: { ...detail, curioMachineId: machineId },
    });
  };

  const fail = async (error: unknown, step: string): Promise<DrainOutcome> => {
    const failure = toCuzkitError(error);
    ctx.logger.warn("fleet gives up a Curio drain: HarmonyDB failed", {
      instanceId: id,
      step,
      code: failure.code,
    });
    await ctx.store.appendEvent(id, "curio-drain-failed", {
      curioMachineId: machineId,
      step,
      code: failure.code,
      message: failure.message,
      hint: failure.hint ?? null,
    });
    if (step === "cordon" && !transient(error)) {
      // Refused (no UPDATE grant, say): the flag was not written, so there is nothing to undo.
      await ctx.store.setCurioDrain(id, undefined);
    } else {
      // A lost connection may have committed the cordon: undo it either way.
      await uncordon({ reason: `the drain failed (${failure.code})` });
    }
    options.onFailed?.(error);
    return "failed";
  };

  const aborted = async (): Promise<DrainOutcome> => {
    const reason =
      signal?.reason instanceof Error ? signal.reason.message : String(signal?.reason ?? "aborted");
    if (options.onAbort === "keep") {
      await ctx.store.appendEvent(id, "curio-drain-interrupted", {
        curioMachineId: machineId,
        reason,
        deadlineAt,
        resumes: "at the manager's next start",
      });
      return "interrupted";
    }
    await uncordon({ reason: `cancelled: ${reason}` });
    return "cancelled";
  };

  try {
    await db("cordon", () => harmony.setUnschedulable(machineId, true));
  } catch (error) {
    if (signal?.aborted) return aborted();
    return fail(error, "cordon");
  }
  await ctx.store.appendEvent(id, "curio-cordoned", { ...nodeDetail, since, curioPollMs: link.curioPollMs });
  ctx.logger.info("fleet cordoned a Curio machine before destroying it", {
    instanceId: id,
    curioMachineId: machineId,
  });

  // When each task started, at the latest: when the drain first saw it owned (Curio's claim sets
  // only owner_id, so harmony_task holds no claim time), and never after seenAt (once its poller
  // has read the flag, a cordoned node claims nothing). So start + expected is never early, and a
  // resumed drain does not push the deadline out again.
  const firstSeen = new Map<number, number>();
  let announced = false;
  try {
    for (;;) {
      if (signal?.aborted) throw signal.reason ?? new Error("aborted");
      // Failed or destroyed meanwhile (lost heartbeats, an operator): the destroy is underway
      // elsewhere, and leaving `active` cleared the stored drain.
      if ((await ctx.store.get(id))?.state !== "active") return "gone";
      const owned = await db("task read", () => harmony.ownedTasks(machineId));
      const now = ctx.clock.now();
      const fresh = owned.filter((t) => !firstSeen.has(t.id));
      for (const t of fresh) firstSeen.set(t.id, Math.min(now, seenAt));
      let expectedMs: Record<string, number> = {};
      let next = deadlineAt;
      if (fresh.length > 0 && link.drainDeadlineMs === undefined) {
        const names = [...new Set(fresh.map((t) => t.name))];
        const longest = await db("history read", () =>
          harmony.longestTaskMs(names, { sinceMs: now - link.windowMs, untilMs: now }),
        );
        expectedMs = Object.fromEntries(names.map((n) => [n, longest.get(n) ?? fallbackDrainDeadlineMs]));
        for (const t of fresh)
          next = Math.max(
            next,
            (firstSeen.get(t.id) ?? now) + (expectedMs[t.name] ?? 0) + link.drainMarginMs,
          );
      }
      if (!announced || next !== deadlineAt) {
        announced = true;
        deadlineAt = next;
        await ctx.store.setCurioDrain(id, drainState(), {
          type: "curio-draining",
          detail: {
            curioMachineId: machineId,
            deadlineAt,
            seenAt,
            tasks: owned.map((t) => ({ id: t.id, name: t.name, firstSeenAt: firstSeen.get(t.id) ?? now })),
            expectedMs,
          },
        });
      }
      if (owned.length === 0 && now >= seenAt) {
        await ctx.store.appendEvent(id, "curio-drained", { curioMachineId: machineId });
        return "drained";
      }
      if (owned.length > 0 && now >= deadlineAt) {
        const reason = `drain deadline passed after ${Math.round((deadlineAt - since) / 60_000)} min with ${owned.length} Curio task(s) still running (${owned.map((t) => `${t.name} ${t.id}`).join(", ")})`;
        ctx.logger.warn("fleet destroys a Curio machine that did not drain in time", {
          instanceId: id,
          reason,
        });
        await ctx.store.appendEvent(id, "curio-drain-deadline", {
          curioMachineId: machineId,
          reason,
          tasks: owned.map((t) => ({ id: t.id, name: t.name })),
        });
        return "deadline";
      }
      const wakeAt = owned.length === 0 ? seenAt : deadlineAt;
      await link.sleep(Math.min(link.drainPollMs, Math.max(0, wakeAt - now)), signal);
    }
  } catch (error) {
    if (signal?.aborted) return aborted();
    return fail(error, "drain");
  }
}

/**
 * Uncordons the node of a drain stored `cordoned` (or `draining` with no destroy to follow) and
 * clears it: what a manager's start does with a drain it will not resume. Answers whether it
 * was uncordoned (false: still stored, retried at the next start).
 */
export async function releaseStoredDrain(ctx: CurioContext, record: InstanceRecord): Promise<boolean> {
  const link = ctx.curio;
  const drain = record.curioDrain;
  if (link === undefined || drain === undefined) return false;
  try {
    await retry(() => link.harmony.setUnschedulable(drain.curioMachineId, false), dbRetryOptions(link, ctx));
  } catch (error) {
    ctx.logger.warn("fleet could not uncordon a Curio machine left cordoned", {
      instanceId: record.id,
      curioMachineId: drain.curioMachineId,
      code: toCuzkitError(error).code,
    });
    return false;
  }
  await ctx.store.setCurioDrain(record.id, undefined, {
    type: "curio-uncordoned",
    detail: { curioMachineId: drain.curioMachineId, resumed: true, was: drain.state },
  });
  return true;
}
