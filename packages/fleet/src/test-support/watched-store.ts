import type { FleetStore } from "../store/fleet-store.js";

// Tests against live processes (agents, loops) wait for what the store will hold. Rather than
// reading it on a timer, a watched store wakes its waiters after every write, and they look again.

/** The store's writes: each one wakes the waiters of a watched store. */
const storeWrites = [
  "plan",
  "transition",
  "tryTransition",
  "update",
  "heartbeat",
  "appendEvent",
  "decideBenchmark",
  "noteDestroyAttempt",
  "noteUnknownInstance",
  "settleUnknownInstance",
  "saveSettings",
  "excludeMachine",
  "recordEvidence",
  "liftExclusion",
] as const satisfies readonly (keyof FleetStore)[];

/** Options of {@link WatchedStore.until}. */
export interface UntilOptions {
  /** How long to wait before failing, real ms. Default 90 000. */
  timeoutMs?: number | undefined;
  /** What the timeout error says after "nothing came in time" (the state seen, a process's output). Default: nothing. */
  explain?: (() => string | Promise<string>) | undefined;
}

/** A store whose writes can be waited on. */
export interface WatchedStore<S extends FleetStore> {
  /** The store to hand to the manager: the same store, each write waking the waiters. */
  readonly store: S;
  /**
   * Resolves with the first value `look` returns other than undefined: it looks now and again
   * after each write (never two looks at once). Rejects after `timeoutMs` with `explain()`.
   */
  until<T>(look: () => Promise<T | undefined>, options?: UntilOptions): Promise<T>;
}

/** Wraps a store so that tests can wait for what it will hold (see {@link WatchedStore.until}). */
export function watchStore<S extends FleetStore>(inner: S): WatchedStore<S> {
  const wakers = new Set<() => void>();
  const wake = () => {
    for (const waker of wakers) waker();
  };
  const watched =
    (fn: (...args: never[]) => Promise<unknown>) =>
    async (...args: never[]) => {
      try {
        return await fn(...args);
      } finally {
        wake();
      }
    };
  // The store's methods are closures (no `this`), so a copy with its writes wrapped is the same store.
  const store: Record<string, unknown> = { ...(inner as object) };
  store.performance = { ...inner.performance, record: watched(inner.performance.record) };
  for (const name of storeWrites)
    store[name] = watched(inner[name] as (...args: never[]) => Promise<unknown>);

  return {
    store: store as unknown as S,
    until(look, options = {}) {
      return new Promise((resolve, reject) => {
        let looking = false;
        let again = false;
        let done = false;
        const finish = () => {
          done = true;
          wakers.delete(waker);
          clearTimeout(timer);
        };
        const lookOnce = async () => {
          looking = true;
          try {
            do {
              again = false;
              const found = await look();
              if (found !== undefined && !done) {
                finish();
                resolve(found);
              }
            } while (again && !done);
          } catch (error) {
            finish();
            reject(error);
          } finally {
            looking = false;
          }
        };
        const waker = () => {
          if (looking) again = true;
          else void lookOnce();
        };
        const timeoutMs = options.timeoutMs ?? 90_000;
        const timer = setTimeout(async () => {
          if (done) return;
          finish();
          const why = await Promise.resolve(options.explain?.()).catch((error: unknown) => String(error));
          reject(
            new Error(
              `nothing the store held within ${timeoutMs} ms was what the test waited for${why ? `: ${why}` : ""}`,
            ),
          );
        }, timeoutMs);
        wakers.add(waker);
        void lookOnce();
      });
    },
  };
}
