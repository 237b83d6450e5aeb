// Pending waits of a test ("until the daemon has received X", "until it has written file Y"):
// each is settled by the event it waits for, by its AbortSignal, or by the daemon stopping.

/** Waits keyed by what they wait for. */
export interface WaitList<K, V> {
  /** A wait for `key`, settled by settle() or close() (rejected at once after close()); rejects with the signal's reason on abort. */
  wait(key: K, signal?: AbortSignal | undefined): Promise<V>;
  /** Resolves, with `value`, every wait whose key `done` accepts. */
  settle(done: (key: K) => boolean, value: V): void;
  /** Rejects every pending wait, and every later one, with `error` (nothing they wait for can happen any more). */
  close(error: unknown): void;
}

interface Waiter<K, V> {
  key: K;
  resolve(value: V): void;
  reject(error: unknown): void;
}

/** Creates an empty wait list. */
export function createWaitList<K, V>(): WaitList<K, V> {
  const waiters = new Set<Waiter<K, V>>();
  let closedWith: { error: unknown } | undefined;
  return {
    wait(key, signal) {
      if (closedWith) return Promise.reject(closedWith.error);
      if (signal?.aborted) return Promise.reject(signal.reason);
      return new Promise<V>((resolve, reject) => {
        const onAbort = () => waiter.reject(signal?.reason);
        const finish = () => {
          waiters.delete(waiter);
          signal?.removeEventListener("abort", onAbort);
        };
        const waiter: Waiter<K, V> = {
          key,
          resolve: (value) => {
            finish();
            resolve(value);
          },
          reject: (error) => {
            finish();
            reject(error);
          },
        };
        waiters.add(waiter);
        signal?.addEventListener("abort", onAbort, { once: true });
      });
    },
    settle(done, value) {
      for (const waiter of [...waiters]) if (done(waiter.key)) waiter.resolve(value);
    },
    close(error) {
      closedWith = { error };
      for (const waiter of [...waiters]) waiter.reject(error);
    },
  };
}
