// One seeded generator for every simulation in the workspace (the simulator's jitter, the
// benchmark's synthetic proofs, the fleet's markets), so a seed means the same draws everywhere.

/** A seeded uniform generator in [0, 1): mulberry32, small and fast; a seed repeats exactly. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
}
