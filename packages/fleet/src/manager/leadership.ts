import { type Logger, silentLogger, toCuzkitError } from "@cuzkit/core";
import type { LeaderLease } from "../store/leader-lease.js";

/** Options of runLeadership. */
export interface LeadershipOptions {
  /** The lease (FleetStore.writerLease). Required. */
  lease: LeaderLease;
  /** Starts acting (startup, loops); resolves with the function that stops it. Required. */
  lead: () => Promise<() => Promise<void>>;
  /** Resolves when the replica should stop. Required. */
  until: Promise<void>;
  /** Told each change: true when this replica starts acting, false when it loses the lease and follows. Default: nothing. */
  onChange?: ((leading: boolean) => void) | undefined;
  /** Logger. Default: silent. */
  logger?: Logger | undefined;
}

/**
 * A replica's life: follow until the lease is taken, act while it is held, stop acting the
 * moment it is lost and follow again, until `until` resolves; then give the lease up.
 */
export async function runLeadership(options: LeadershipOptions): Promise<void> {
  const { lease, until } = options;
  const logger = options.logger ?? silentLogger;
  const stopping = new AbortController();
  let stopped = false;
  void until.then(() => {
    stopped = true;
    stopping.abort(new Error("stopping"));
  });
  try {
    while (!stopped) {
      try {
        await lease.acquire(stopping.signal);
      } catch {
        break; // stopping while following
      }
      logger.info("fleet replica leads: it reconciles, rents and destroys");
      options.onChange?.(true);
      let stop: () => Promise<void> = async () => {};
      try {
        stop = await options.lead();
      } catch (error) {
        logger.warn("fleet leader could not start acting", { code: toCuzkitError(error).code });
      }
      await Promise.race([lease.lost(), until]);
      await stop();
      // Stopping is not following: told only when the lease was lost.
      if (!stopped) {
        options.onChange?.(false);
        logger.warn("fleet replica lost the writer lease; it follows (serves reads only)");
      }
    }
  } finally {
    await lease.release();
  }
}
