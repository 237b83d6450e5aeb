import { toCuzkitError } from "@cuzkit/core";
import { recordCurioProduction } from "../curio/production-sync.js";
import { fleetDefaults } from "../defaults.js";
import type { ManagerContext } from "./context.js";
import { monitor } from "./monitor.js";
import { reconcile } from "./reconcile.js";

/** Options of the manager's loops. */
export interface LoopOptions {
  /** Reconcile interval, ms. Default 60 000. */
  reconcileEveryMs?: number | undefined;
  /** Deadline, heartbeat and destroy pass interval, ms. Default 10 000. */
  monitorEveryMs?: number | undefined;
}

/** What the manager's loops last did. */
export interface LoopState {
  /** When the last pass ended (ok or not), epoch ms. */
  lastPassAt: number | undefined;
  /** Which loop it was: `reconcile`, `monitor` or `curio`. */
  lastPass: string | undefined;
  /** The monitor's interval while the loops run, ms: a pass older than a few of these is news. */
  monitorEveryMs: number | undefined;
}

/**
 * Runs reconcile, monitor (and the Curio production record, with a Curio link) on timers, one
 * pass at a time, noting each pass in `loops`; answers the function that stops them.
 */
export function startManagerLoops(
  ctx: ManagerContext,
  loops: LoopState,
  loopOptions: LoopOptions = {},
): () => Promise<void> {
  let running: Promise<unknown> = Promise.resolve();
  let busy = false;
  const guarded = (name: string, pass: () => Promise<unknown>) => () => {
    if (busy) return; // one pass at a time; a slow Vast call delays the next tick
    busy = true;
    running = pass()
      .catch((error) => ctx.logger.warn(`fleet ${name} pass failed`, { code: toCuzkitError(error).code }))
      .finally(() => {
        busy = false;
        loops.lastPassAt = ctx.clock.now();
        loops.lastPass = name;
      });
  };
  loops.monitorEveryMs = loopOptions.monitorEveryMs ?? fleetDefaults.monitorEveryMs;
  const curio = ctx.curio;
  const timers = [
    ...(curio === undefined
      ? []
      : [
          setInterval(
            guarded("curio", () => recordCurioProduction(ctx)),
            curio.everyMs,
          ),
        ]),
    setInterval(
      guarded("reconcile", () => reconcile(ctx)),
      loopOptions.reconcileEveryMs ?? fleetDefaults.reconcileEveryMs,
    ),
    setInterval(
      guarded("monitor", () => monitor(ctx)),
      loopOptions.monitorEveryMs ?? fleetDefaults.monitorEveryMs,
    ),
  ];
  return async () => {
    for (const timer of timers) clearInterval(timer);
    await running;
    loops.monitorEveryMs = undefined;
  };
}
