import pLimit from "p-limit";
import { AbortedError } from "./errors.js";

// Admission control shared by every caller of one client, as Curio limits pending proofs
// with one MaxPending pool: at most `maxInFlight` proofs run, the rest wait in FIFO order.
// A caller that aborts while waiting leaves the queue at once.

/** A FIFO admission gate. */
export interface Admission {
  /** Runs `task` when a slot is free; rejects with AbortedError if `signal` fires while waiting. */
  run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T>;
  /** Tasks running now. */
  readonly active: number;
  /** Tasks waiting for a slot. */
  readonly pending: number;
}

/** Creates an admission gate letting `maxInFlight` tasks run at once (Infinity: no limit). */
export function createAdmission(maxInFlight: number): Admission {
  const limit = pLimit(maxInFlight);
  return {
    run<T>(task: () => Promise<T>, signal?: AbortSignal): Promise<T> {
      if (signal?.aborted) {
        return Promise.reject(
          new AbortedError("aborted by the caller before a proof slot was free", { cause: signal.reason }),
        );
      }
      return new Promise<T>((resolve, reject) => {
        let started = false;
        let abandoned = false;
        const onAbort = () => {
          if (started) return; // the task itself watches the signal
          abandoned = true;
          reject(
            new AbortedError("aborted by the caller while waiting for a proof slot", {
              cause: signal?.reason,
            }),
          );
        };
        signal?.addEventListener("abort", onAbort, { once: true });
        void limit(async () => {
          started = true;
          signal?.removeEventListener("abort", onAbort);
          if (abandoned) return; // free the slot at once
          try {
            resolve(await task());
          } catch (error) {
            reject(error);
          }
        });
      });
    },
    get active() {
      return limit.activeCount;
    },
    get pending() {
      return limit.pendingCount;
    },
  };
}
