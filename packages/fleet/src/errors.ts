import { CuzkitError } from "@cuzkit/core";
import type { InstanceState } from "./lifecycle.js";

/** A transition the store refused: the instance was not in the expected state (a replay, a race, a late report). */
export class FleetTransitionError extends CuzkitError {
  constructor(
    readonly instanceId: string,
    readonly from: InstanceState | readonly InstanceState[],
    readonly to: InstanceState,
    readonly actual: InstanceState | undefined,
  ) {
    const expected = Array.isArray(from) ? from.join("|") : String(from);
    super(
      actual === undefined
        ? `instance ${instanceId} does not exist`
        : `instance ${instanceId} is ${actual}, not ${expected}: cannot move it to ${to}`,
      {
        code: "FLEET_TRANSITION_REFUSED",
        hint: "nothing was changed; run cuzkit fleet status to see where the instance is",
        retryable: false,
      },
    );
  }
}

/** No instance with that id in the fleet's store. */
export class FleetInstanceNotFoundError extends CuzkitError {
  constructor(readonly instanceId: string) {
    super(`no instance ${instanceId} in the fleet's store`, {
      code: "FLEET_INSTANCE_NOT_FOUND",
      hint: "run cuzkit fleet status to list the instances (ids look like i-...)",
    });
  }
}

/** A rental refused before it was sent because it would break a budget cap. */
export class FleetBudgetError extends CuzkitError {
  constructor(message: string, hint: string) {
    super(message, { code: "FLEET_BUDGET_EXCEEDED", hint, retryable: false });
  }
}

/** The store cannot be opened or migrated. */
export class FleetStoreError extends CuzkitError {
  constructor(message: string, hint: string, cause?: unknown) {
    super(message, { code: "FLEET_STORE", hint, cause });
  }
}

/** An offer the fleet will not rent (its machine is excluded, or the tuner finds no safe config). */
export class FleetOfferRefusedError extends CuzkitError {
  constructor(message: string, hint: string) {
    super(message, { code: "FLEET_OFFER_REFUSED", hint, retryable: false });
  }
}

/** Deploy needs something the config lacks (image, manager URL). */
export class FleetConfigError extends CuzkitError {
  constructor(message: string, hint: string) {
    super(message, { code: "FLEET_CONFIG", hint, retryable: false });
  }
}

/** A heartbeat or report for an instance that is no longer live (destroyed, failed): the agent should stop. */
export class FleetInstanceNotLiveError extends CuzkitError {
  constructor(
    readonly instanceId: string,
    readonly state: InstanceState | undefined,
  ) {
    super(`instance ${instanceId} is ${state ?? "unknown"}, not live`, {
      code: "FLEET_INSTANCE_NOT_LIVE",
      hint: "the manager has given this machine up; the agent stops",
    });
  }
}
