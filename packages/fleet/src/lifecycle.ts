// The instance lifecycle as data: which state may follow which. The store refuses any other
// move, so a replayed report, a late heartbeat or a second manager cannot move an instance
// backwards or out of a final state.

/** Every state an instance of the fleet can be in. */
export const instanceStates = [
  "planned",
  "renting",
  "booting",
  "registered",
  "params",
  "warmup",
  "benchmarking",
  "active",
  "rejected",
  "failed",
  "draining",
  "destroying",
  "destroyed",
] as const;

/** One state of an instance. */
export type InstanceState = (typeof instanceStates)[number];

/** States in which the agent is vetting the machine, in the order it reports them. */
export const vettingStates = ["registered", "params", "warmup", "benchmarking"] as const;

/** A phase the agent reports. */
export type VettingState = (typeof vettingStates)[number];

/** States that have a deadline: each is a phase of the rent-and-vet flow. */
export const timedStates = ["renting", "booting", ...vettingStates] as const;

/** Where an instance may go from each state. Failing is allowed from every live state. */
export const transitions: Readonly<Record<InstanceState, readonly InstanceState[]>> = {
  planned: ["renting", "destroyed"],
  // A create refused for certain leaves nothing billed: failed, then destroyed with no Vast id.
  renting: ["booting", "failed"],
  booting: ["registered", "failed"],
  registered: ["params", "failed"],
  params: ["warmup", "failed"],
  warmup: ["benchmarking", "failed"],
  benchmarking: ["active", "rejected", "failed"],
  active: ["draining", "failed"],
  rejected: ["destroying"],
  failed: ["destroying"],
  draining: ["destroying"],
  destroying: ["destroyed"],
  destroyed: [],
};

/** True when `to` may follow `from`. */
export function canTransition(from: InstanceState, to: InstanceState): boolean {
  return transitions[from].includes(to);
}

/** True for a state nothing follows. */
export function isFinalState(state: InstanceState): boolean {
  return transitions[state].length === 0;
}

/** True for a state in which an instance may be billing (it has, or may have, a Vast rental). */
export function mayBeBilling(state: InstanceState): boolean {
  return state !== "planned" && state !== "destroyed";
}

/** States that end in a destroy: the decision was taken, the rental must go. */
export const decidedToDestroy: readonly InstanceState[] = ["rejected", "failed", "draining"];

/** States in which the agent must heartbeat; silence for 3 intervals means the machine is lost. */
export const heartbeatStates: readonly InstanceState[] = [...vettingStates, "active"];

/** True when `value` names a state. */
export function isInstanceState(value: unknown): value is InstanceState {
  return typeof value === "string" && (instanceStates as readonly string[]).includes(value);
}
