/**
 * Orders overlapping reads: each `begin()` starts a read and returns `mayPaint()`, true unless a
 * read begun later has already painted. A page refreshed by every stream event has several reads
 * in flight; an older one answering last must not paint its stale rows over newer ones, and a
 * read is never dropped only because another began (with events arriving faster than reads
 * answer, that would paint nothing at all).
 */
export function createPaintOrder(): { begin(): () => boolean } {
  let started = 0;
  let painted = 0;
  return {
    begin() {
      const mine = ++started;
      return () => {
        if (mine < painted) return false;
        painted = mine;
        return true;
      };
    },
  };
}
