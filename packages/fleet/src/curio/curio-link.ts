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
   * The longest a drain waits before destroying anyway, ms after the cordon (overrides the
   * computed deadline). Default: computed per owned task, when the drain first saw it owned plus
   * the longest work time of its type in Curio's history over the window (else 30 min), plus
   * drainMarginMs; the latest of those.
   */
  drainDeadlineMs?: number | undefined;
  /**
   * How often a Curio node reads its cordon flag, ms: a drain waits at least this long after the
   * cordon before it may call the node drained, so a task claimed before the node saw the flag
   * is waited for. Default 30 000: Curio's `pollRarely`, the background poller that runs
   * `checkNodeFlags` (`SELECT unschedulable ... FROM harmony_machines`) in
   * filecoin-project/curio harmony/harmonytask/harmonytask.go and scheduler.go.
   */
  curioPollMs?: number | undefined;
  /** Added to the longest running task's expected end to make the drain's deadline, ms. Default 300 000 (5 min). */
  drainMarginMs?: number | undefined;
  /**
   * How a drain retries a HarmonyDB failure before it gives up and uncordons: attempts per
   * query (the first included) and the backoff between them (@cuzkit/core retry). Default
   * 5 attempts, 1 s doubling to 30 s: about a minute, a database restart's length.
   */
  dbRetry?:
    | { maxAttempts?: number | undefined; minDelayMs?: number | undefined; maxDelayMs?: number | undefined }
    | undefined;
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
  curioPollMs: number;
  drainMarginMs: number;
  dbRetry: { maxAttempts: number; minDelayMs: number; maxDelayMs: number };
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
}

/** Curio's poll of its cordon flag, ms (pollRarely in harmony/harmonytask/harmonytask.go). */
export const curioPollRarelyMs = 30_000;

/** A task's expected duration when Curio's history has none of its type, ms. */
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
    curioPollMs: options.curioPollMs ?? curioPollRarelyMs,
    drainMarginMs: options.drainMarginMs ?? 300_000,
    dbRetry: {
      maxAttempts: options.dbRetry?.maxAttempts ?? 5,
      minDelayMs: options.dbRetry?.minDelayMs ?? 1_000,
      maxDelayMs: options.dbRetry?.maxDelayMs ?? 30_000,
    },
    sleep: options.sleep ?? abortableSleep,
  };
}
