import { describe, expect, it } from "vitest";
import {
  canTransition,
  type InstanceState,
  instanceStates,
  isFinalState,
  mayBeBilling,
  transitions,
  vettingStates,
} from "./lifecycle.js";
import { keptPath } from "./test-support/fixtures.js";

/** Every state reachable from `start`, walking the table. */
function reachableFrom(start: InstanceState): Set<InstanceState> {
  const seen = new Set<InstanceState>([start]);
  const queue: InstanceState[] = [start];
  for (let state = queue.shift(); state !== undefined; state = queue.shift()) {
    for (const next of transitions[state]) {
      if (!seen.has(next)) {
        seen.add(next);
        queue.push(next);
      }
    }
  }
  return seen;
}

describe("lifecycle", () => {
  it("walks the happy path planned -> active -> destroyed", () => {
    const path: InstanceState[] = [...keptPath, "draining", "destroying", "destroyed"];
    for (let i = 1; i < path.length; i++) {
      expect(canTransition(path[i - 1] as InstanceState, path[i] as InstanceState)).toBe(true);
    }
  });

  // Written out by hand, not read from `transitions`: an edit of the table that allows or
  // forbids one of these moves must fail here.
  it.each([
    ["benchmarking", "rejected", true],
    ["benchmarking", "failed", true],
    ["rejected", "destroying", true],
    ["failed", "destroying", true],
    ["active", "benchmarking", false],
    ["rejected", "active", false],
    ["destroyed", "planned", false],
    ["params", "registered", false],
    ["registered", "warmup", false],
    ["planned", "booting", false],
    ["renting", "active", false],
    ["destroying", "failed", false],
  ] as const)("%s -> %s is %s", (from, to, allowed) => {
    expect(canTransition(from, to)).toBe(allowed);
  });

  it("lets every vetting phase fail, and every live state end in destroyed", () => {
    for (const phase of vettingStates) expect(canTransition(phase, "failed")).toBe(true);
    expect([...reachableFrom("planned")].sort()).toEqual([...instanceStates].sort());
    for (const state of instanceStates) {
      expect(reachableFrom(state).has("destroyed"), `${state} reaches destroyed`).toBe(true);
    }
  });

  it("has destroyed as its only final state, and planned/destroyed as the only unbilled ones", () => {
    expect(instanceStates.filter(isFinalState)).toEqual(["destroyed"]);
    expect(instanceStates.filter((s) => !mayBeBilling(s))).toEqual(["planned", "destroyed"]);
  });
});
