// The request ids this client has sent. The daemon does not deduplicate ids (a second
// submission runs the work again and can mix two proofs' partitions, cuzk-daemon.md), so
// submitProof and proveOnce refuse an id already sent. Bounded: the oldest ids are forgotten
// first, far beyond any realistic window in which a caller would repeat one.

/** A bounded set of sent request ids. */
export interface SentIds {
  /** True when `id` was sent and not forgotten. */
  has(id: string): boolean;
  /** Records `id` as sent. */
  add(id: string): void;
  /** Forgets `id` (its request provably never reached the daemon). */
  forget(id: string): void;
}

/** Default number of ids remembered. */
export const defaultSentIdsCapacity = 100_000;

/** Creates the set, remembering at most `capacity` ids. */
export function createSentIds(capacity = defaultSentIdsCapacity): SentIds {
  const ids = new Set<string>();
  return {
    has: (id) => ids.has(id),
    add(id) {
      ids.delete(id);
      ids.add(id);
      if (ids.size > capacity) {
        const oldest = ids.values().next();
        if (!oldest.done) ids.delete(oldest.value);
      }
    },
    forget(id) {
      ids.delete(id);
    },
  };
}
