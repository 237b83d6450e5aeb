import type { HarmonySource } from "./harmony-source.js";

/** How the fleet works with a Curio cluster (FleetManagerOptions.curio). */
export interface CurioLinkOptions {
  /** The cluster's HarmonyDB (openHarmonySource). Required. */
  harmony: HarmonySource;
  /** The window production rates are computed over, ms. Default 3 600 000 (1 h). */
  windowMs?: number | undefined;
  /** How often the manager's loop records Curio's rates, ms. Default 600 000 (10 min). */
  everyMs?: number | undefined;
  /**
   * The longest the cordon of a dead or lost machine's node may take (finding the node and the
   * UPDATE), ms: past it the destroy goes on and a `curio-cordon-failed` event says so. Default 30 000.
   */
  cordonTimeoutMs?: number | undefined;
  /** How often a drain checks whether the machine still owns tasks, ms. Default 15 000. */
  drainPollMs?: number | undefined;
  /**
   * The longest a drain waits before destroying anyway, ms. Default: the longest mean work time
   * of a proving task type in Curio's history over the window, else 30 min.
   */
  drainDeadlineMs?: number | undefined;
  /** Waits between drain checks (tests advance a manual clock). Default: setTimeout. */
  sleep?: ((ms: number, signal?: AbortSignal) => Promise<void>) | undefined;
}

/** The resolved link. */
export interface CurioLink {
  harmony: HarmonySource;
  windowMs: number;
  everyMs: number;
  cordonTimeoutMs: number;
  drainPollMs: number;
  drainDeadlineMs: number | undefined;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** The drain deadline when Curio's history says nothing, ms. */
export const fallbackDrainDeadlineMs = 30 * 60_000;

const abortableSleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      "abort",
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });

/** Fills a link's defaults. */
export function resolveCurioLink(options: CurioLinkOptions): CurioLink {
  return {
    harmony: options.harmony,
    windowMs: options.windowMs ?? 3_600_000,
    everyMs: options.everyMs ?? 600_000,
    cordonTimeoutMs: options.cordonTimeoutMs ?? 30_000,
    drainPollMs: options.drainPollMs ?? 15_000,
    drainDeadlineMs: options.drainDeadlineMs,
    sleep: options.sleep ?? abortableSleep,
  };
}
