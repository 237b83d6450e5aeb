import { CuzkitError, type CuzkitErrorOptions } from "@cuzkit/core";
import { logTailDefaults } from "./defaults.js";
import type { InstanceState } from "./lifecycle.js";

/** Stable codes of the fleet's errors (the manager's, the store's and the agent's). */
export const fleetErrorCodes = [
  "FLEET_TRANSITION_REFUSED",
  "FLEET_INSTANCE_NOT_FOUND",
  "FLEET_INSTANCE_NOT_LIVE",
  "FLEET_BUDGET_EXCEEDED",
  "FLEET_STORE",
  "FLEET_OFFER_REFUSED",
  "FLEET_CONFIG",
  "FLEET_AGENT_REFUSED",
  "FLEET_MANAGER_UNREACHABLE",
  "FLEET_LEASE_HELD",
  "FLEET_LEASE_LOST",
  "FLEET_MANAGER_URL",
  "FLEET_CURIO_DB",
  "FLEET_CURIO_NODE",
  "FLEET_LOG_TAIL_TOO_LARGE",
  // A failed vetting step on the machine, as the agent reports it to the manager.
  "PARAMS_COMMAND_FAILED",
  "NO_SAFE_CONFIG",
  "WARMUP_FAILED",
] as const;
/** A stable code of a fleet error. */
export type FleetErrorCode = (typeof fleetErrorCodes)[number];

/** What every fleet error takes: `new XError(message, { hint?, retryable?, cause?, instanceId? })`. */
export interface FleetErrorOptions<Code extends FleetErrorCode = FleetErrorCode>
  extends CuzkitErrorOptions<Code> {
  /** The fleet instance the error is about (`i-...`), when there is one. */
  instanceId?: string | undefined;
}

/** Options of a subclass: its code is its own. */
export type FleetSubclassOptions = Omit<FleetErrorOptions, "code">;

/** Base of the fleet's errors: a CuzkitError with the instance it concerns. */
export class FleetError<Code extends FleetErrorCode = FleetErrorCode> extends CuzkitError<Code> {
  /** The fleet instance the error is about, when there is one. */
  readonly instanceId: string | undefined;

  constructor(message: string, options: FleetErrorOptions<Code> = {}) {
    super(message, options);
    this.instanceId = options.instanceId;
  }
}

/** A subclass's options: its code, and its default hint and retryable unless the caller gave them. */
function classDefaults<Code extends FleetErrorCode>(
  options: FleetSubclassOptions,
  code: Code,
  retryable: boolean,
  hint: string,
): FleetErrorOptions<Code> {
  return { ...options, code, retryable: options.retryable ?? retryable, hint: options.hint ?? hint };
}

/** A transition the store refused: the instance was not in the expected state (a replay, a race, a late report). */
export class FleetTransitionError extends FleetError<"FLEET_TRANSITION_REFUSED"> {
  /** The state the instance was in (undefined: it does not exist). */
  readonly actual: InstanceState | undefined;

  constructor(message: string, options: FleetSubclassOptions & { actual?: InstanceState | undefined } = {}) {
    super(
      message,
      classDefaults(
        options,
        "FLEET_TRANSITION_REFUSED",
        false,
        "nothing was changed; run cuzkit fleet status to see where the instance is",
      ),
    );
    this.actual = options.actual;
  }
}

/** The refusal of moving `instanceId` from `from` to `to` while it is `actual`. */
export function transitionRefused(
  instanceId: string,
  from: InstanceState | readonly InstanceState[],
  to: InstanceState,
  actual: InstanceState | undefined,
): FleetTransitionError {
  const expected = typeof from === "string" ? from : from.join("|");
  const message =
    actual === undefined
      ? `instance ${instanceId} does not exist`
      : `instance ${instanceId} is ${actual}, not ${expected}: cannot move it to ${to}`;
  return new FleetTransitionError(message, { instanceId, actual });
}

/** No instance with that id in the fleet's store. */
export class FleetInstanceNotFoundError extends FleetError<"FLEET_INSTANCE_NOT_FOUND"> {
  constructor(message: string, options: FleetSubclassOptions = {}) {
    super(
      message,
      classDefaults(
        options,
        "FLEET_INSTANCE_NOT_FOUND",
        false,
        "run cuzkit fleet status to list the instances (ids look like i-...)",
      ),
    );
  }
}

/** The error for an instance id the store does not have. */
export const instanceNotFound = (instanceId: string) =>
  new FleetInstanceNotFoundError(`no instance ${instanceId} in the fleet's store`, { instanceId });

/** A log tail an agent shipped beyond the manager's bounds (lines, line length or bytes): nothing of it is kept. */
export class FleetLogTailTooLargeError extends FleetError<"FLEET_LOG_TAIL_TOO_LARGE"> {
  /** Which bound it broke: `lines`, `line` (one line's length) or `bytes`. */
  readonly bound: "lines" | "line" | "bytes";

  constructor(message: string, options: FleetSubclassOptions & { bound: "lines" | "line" | "bytes" }) {
    super(
      message,
      classDefaults(
        options,
        "FLEET_LOG_TAIL_TOO_LARGE",
        false,
        `an agent ships at most ${logTailDefaults.maxShipLines} lines of ${logTailDefaults.maxLineChars} characters, ${logTailDefaults.maxShipBytes / 1024} KiB in all; run agents of the manager's cuzkit version`,
      ),
    );
    this.bound = options.bound;
  }
}

/** A heartbeat or report for an instance that is no longer live (destroyed, failed): the agent should stop. */
export class FleetInstanceNotLiveError extends FleetError<"FLEET_INSTANCE_NOT_LIVE"> {
  /** The state it is in (undefined: unknown to the store). */
  readonly state: InstanceState | undefined;

  constructor(message: string, options: FleetSubclassOptions & { state?: InstanceState | undefined } = {}) {
    super(
      message,
      classDefaults(
        options,
        "FLEET_INSTANCE_NOT_LIVE",
        false,
        "the manager has given this machine up; the agent stops",
      ),
    );
    this.state = options.state;
  }
}

/** The error for a report from an instance that is `state`, not live. */
export const instanceNotLive = (instanceId: string, state: InstanceState | undefined) =>
  new FleetInstanceNotLiveError(`instance ${instanceId} is ${state ?? "unknown"}, not live`, {
    instanceId,
    state,
  });

/** A rental refused before it was sent because it would break a budget cap. */
export class FleetBudgetError extends FleetError<"FLEET_BUDGET_EXCEEDED"> {
  constructor(message: string, options: FleetSubclassOptions = {}) {
    super(
      message,
      classDefaults(
        options,
        "FLEET_BUDGET_EXCEEDED",
        false,
        "raise the budget caps, or destroy an instance first",
      ),
    );
  }
}

/** The store cannot be opened, migrated or reached. */
export class FleetStoreError extends FleetError<"FLEET_STORE"> {
  constructor(message: string, options: FleetSubclassOptions = {}) {
    super(message, classDefaults(options, "FLEET_STORE", false, "check the fleet store's path or URL"));
  }
}

/** An offer the fleet will not rent (its machine is excluded, or the tuner finds no safe config). */
export class FleetOfferRefusedError extends FleetError<"FLEET_OFFER_REFUSED"> {
  constructor(message: string, options: FleetSubclassOptions = {}) {
    super(message, classDefaults(options, "FLEET_OFFER_REFUSED", false, "pick another offer"));
  }
}

/** Deploy or a run needs something the config lacks (image, manager URL, target). */
export class FleetConfigError extends FleetError<"FLEET_CONFIG"> {
  constructor(message: string, options: FleetSubclassOptions = {}) {
    super(message, classDefaults(options, "FLEET_CONFIG", false, "complete the fleet's config"));
  }
}

/** Who holds a fleet's writer lease (a row of `writer_lease`). */
export interface LeaseHolding {
  /** The holder's readable name: host, pid and a per-process id. */
  holder: string;
  /** The tenure: +1 at every change of holder. */
  epoch: number;
  /** When the lease lapses unless renewed, epoch ms (the database's clock). */
  expiresAt: number;
}

const holdingText = (h: LeaseHolding) =>
  `${h.holder} (epoch ${h.epoch}, lease until ${new Date(h.expiresAt).toISOString()})`;

/** Another manager holds the fleet's writer lease: this command changes nothing. */
export class FleetLeaseHeldError extends FleetError<"FLEET_LEASE_HELD"> {
  /** The current holder, when known. */
  readonly holding: LeaseHolding | undefined;

  constructor(message: string, options: FleetSubclassOptions & { holding?: LeaseHolding | undefined } = {}) {
    super(
      message,
      classDefaults(
        options,
        "FLEET_LEASE_HELD",
        true,
        "stop the other manager (cuzkit fleet serve or fleet run), or wait until its lease lapses",
      ),
    );
    this.holding = options.holding;
  }
}

/** The refusal of a manager because `holding` has the writer lease of `fleet` in the store at `location`. */
export const leaseHeld = (fleet: string, location: string, holding: LeaseHolding) =>
  new FleetLeaseHeldError(
    `another manager writes to fleet ${fleet} in ${location}: ${holdingText(holding)}; nothing was changed`,
    {
      holding,
      hint: `stop the other manager (cuzkit fleet serve or fleet run held by ${holding.holder}), or wait until its lease lapses at ${new Date(holding.expiresAt).toISOString()}; while it runs, act through its dashboard or admin API (POST /api/deploy, POST /api/instances/ID/destroy)`,
    },
  );

/** A write refused because this manager no longer holds the writer lease (it froze, or another took over). */
export class FleetLeaseLostError extends FleetError<"FLEET_LEASE_LOST"> {
  /** The current holder; undefined when unknown (the lease row is gone). */
  readonly holding: LeaseHolding | undefined;

  constructor(message: string, options: FleetSubclassOptions & { holding?: LeaseHolding | undefined } = {}) {
    super(
      message,
      classDefaults(
        options,
        "FLEET_LEASE_LOST",
        true,
        "nothing was changed; the lease's holder acts now. This manager stops acting and follows (or exits); restart it once the other has stopped",
      ),
    );
    this.holding = options.holding;
  }
}

/** The refusal of a write by `holder`, which no longer holds the writer lease of `fleet` (`holding` does). */
export const leaseLost = (fleet: string, holder: string, holding: LeaseHolding | undefined) =>
  new FleetLeaseLostError(
    `${holder} no longer holds the writer lease of fleet ${fleet}${holding === undefined ? "" : `: ${holdingText(holding)} does`}; the write was refused`,
    { holding },
  );

/** Renting refused: no manager URL agents can reach (none given, loopback, or a stored one that does not answer as this manager). */
export class FleetManagerUrlError extends FleetError<"FLEET_MANAGER_URL"> {
  constructor(message: string, options: FleetSubclassOptions = {}) {
    super(
      message,
      classDefaults(
        options,
        "FLEET_MANAGER_URL",
        false,
        "pass --manager-url https://HOST:PORT, the manager's address reachable from the rented machines",
      ),
    );
  }
}

/** Curio's HarmonyDB (`--curio-db`) cannot be reached, refuses the credentials, or holds no Curio schema. */
export class FleetCurioDbError extends FleetError<"FLEET_CURIO_DB"> {
  constructor(message: string, options: FleetSubclassOptions = {}) {
    super(
      message,
      classDefaults(
        options,
        "FLEET_CURIO_DB",
        false,
        "check --curio-db (postgres://USER@HOST:PORT/DB, or CUZKIT_CURIO_DB) and --curio-schema (default curio)",
      ),
    );
  }
}

/** An instance's Curio node cannot be told apart: none found, or two candidates (nothing was cordoned). */
export class FleetCurioNodeError extends FleetError<"FLEET_CURIO_NODE"> {
  constructor(message: string, options: FleetSubclassOptions = {}) {
    super(
      message,
      classDefaults(
        options,
        "FLEET_CURIO_NODE",
        false,
        "start each instance's Curio with its own name (the agent sets CURIO_NODE_NAME to the instance's label; pass no --name in --serve-command), or cordon the node with `curio cordon`",
      ),
    );
  }
}
