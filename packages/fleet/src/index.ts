// @cuzkit/fleet: rents GPU machines on Vast.ai, lets each vet itself with the agent (parameters,
// tuning, a benchmark), and keeps only those whose measured proofs/hour clears the minimum.
export {
  FleetBudgetError,
  FleetInstanceNotFoundError,
  FleetStoreError,
  FleetTransitionError,
} from "./errors.js";
export {
  canTransition,
  decidedToDestroy,
  type InstanceState,
  instanceStates,
  isFinalState,
  isInstanceState,
  mayBeBilling,
  timedStates,
  transitions,
  type VettingState,
  vettingStates,
} from "./lifecycle.js";
export {
  type FleetStore,
  type FleetStoreOptions,
  openFleetStore,
  type PlanInstanceInput,
  type TransitionChanges,
  type TransitionOptions,
} from "./store/fleet-store.js";
export { busyTimeoutMs, defaultStorePath } from "./store/open-database.js";
export type { BenchmarkResultRecord, FleetEvent, InstanceRecord, OfferSnapshot } from "./store/records.js";
