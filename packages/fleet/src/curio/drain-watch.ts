import { fallbackDrainDeadlineMs } from "./curio-link.js";
import { type DrainRun, drainDb, drainRecord } from "./drain-run.js";
import type { DrainOutcome } from "./drain-types.js";

/** A task the node owns (harmony_task). */
type OwnedTask = { id: number; name: string };

/**
 * Polls the cordoned node every drainPollMs until it owns no task (and Curio has seen the flag),
 * the deadline passes, or the instance leaves `active` ("gone"). Throws on an abort and on a
 * HarmonyDB failure past its retries (the caller undoes the cordon).
 *
 * When each task started, at the latest: when the drain first saw it owned (Curio's claim sets
 * only owner_id, so harmony_task holds no claim time), and never after seenAt (once its poller
 * has read the flag, a cordoned node claims nothing). So start + expected is never early, and a
 * resumed drain does not push the deadline out again.
 */
export async function watchDrain(run: DrainRun): Promise<DrainOutcome> {
  const { ctx, link, id } = run;
  const { signal } = run.options;
  const firstSeen = new Map<number, number>();
  let announced = false;
  for (;;) {
    if (signal?.aborted) throw signal.reason ?? new Error("aborted");
    // Failed or destroyed meanwhile (lost heartbeats, an operator): the destroy is underway
    // elsewhere, and leaving `active` cleared the stored drain.
    if ((await ctx.store.get(id))?.state !== "active") return "gone";
    const owned = await drainDb(run, "task read", () => link.harmony.ownedTasks(run.machineId));
    const now = ctx.clock.now();
    const fresh = owned.filter((t) => !firstSeen.has(t.id));
    for (const t of fresh) firstSeen.set(t.id, Math.min(now, run.seenAt));
    const { next, expectedMs } = await expectedDeadline(run, fresh, firstSeen, now);
    if (!announced || next !== run.deadlineAt) {
      announced = true;
      run.deadlineAt = next;
      await ctx.store.setCurioDrain(id, drainRecord(run), {
        type: "curio-draining",
        detail: {
          curioMachineId: run.machineId,
          deadlineAt: run.deadlineAt,
          seenAt: run.seenAt,
          tasks: owned.map((t) => ({ id: t.id, name: t.name, firstSeenAt: firstSeen.get(t.id) ?? now })),
          expectedMs,
        },
      });
    }
    const ended = await drainEnded(run, owned, now);
    if (ended !== undefined) return ended;
    const wakeAt = owned.length === 0 ? run.seenAt : run.deadlineAt;
    await link.sleep(Math.min(link.drainPollMs, Math.max(0, wakeAt - now)), signal);
  }
}

/**
 * The deadline with the tasks seen for the first time: each is expected to end by its first
 * sighting plus the longest work time of its type over the window (else 30 min), plus
 * drainMarginMs. A fixed drainDeadlineMs is never moved.
 */
async function expectedDeadline(
  run: DrainRun,
  fresh: readonly OwnedTask[],
  firstSeen: ReadonlyMap<number, number>,
  now: number,
): Promise<{ next: number; expectedMs: Record<string, number> }> {
  const { link } = run;
  let expectedMs: Record<string, number> = {};
  let next = run.deadlineAt;
  if (fresh.length > 0 && link.drainDeadlineMs === undefined) {
    const names = [...new Set(fresh.map((t) => t.name))];
    const longest = await drainDb(run, "history read", () =>
      link.harmony.longestTaskMs(names, { sinceMs: now - link.windowMs, untilMs: now }),
    );
    expectedMs = Object.fromEntries(names.map((n) => [n, longest.get(n) ?? fallbackDrainDeadlineMs]));
    for (const t of fresh)
      next = Math.max(next, (firstSeen.get(t.id) ?? now) + (expectedMs[t.name] ?? 0) + link.drainMarginMs);
  }
  return { next, expectedMs };
}

/** "drained" (nothing owned once Curio saw the flag) or "deadline" (tasks past it), with its event; else undefined. */
async function drainEnded(
  run: DrainRun,
  owned: readonly OwnedTask[],
  now: number,
): Promise<DrainOutcome | undefined> {
  const { ctx, id } = run;
  if (owned.length === 0 && now >= run.seenAt) {
    await ctx.store.appendEvent(id, "curio-drained", { curioMachineId: run.machineId });
    return "drained";
  }
  if (owned.length > 0 && now >= run.deadlineAt) {
    const reason = `drain deadline passed after ${Math.round((run.deadlineAt - run.since) / 60_000)} min with ${owned.length} Curio task(s) still running (${owned.map((t) => `${t.name} ${t.id}`).join(", ")})`;
    ctx.logger.warn("fleet destroys a Curio machine that did not drain in time", {
      instanceId: id,
      reason,
    });
    await ctx.store.appendEvent(id, "curio-drain-deadline", {
      curioMachineId: run.machineId,
      reason,
      tasks: owned.map((t) => ({ id: t.id, name: t.name })),
    });
    return "deadline";
  }
  return undefined;
}
