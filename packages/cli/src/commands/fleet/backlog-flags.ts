import { InvalidInputError } from "@cuzkit/core";
import type { BacklogPolicyOptions } from "@cuzkit/fleet";

/** The flags of `fleet run --follow-backlog`. */
export interface FollowBacklogFlags {
  followBacklog?: boolean | undefined;
  minInstances?: number | undefined;
  maxInstances?: number | undefined;
  backlogBound?: number | undefined;
  idleWindow?: number | undefined;
  proofDeadline?: number | undefined;
  proveTimeout?: number | undefined;
  curioDb?: string | undefined;
  targetProofsPerHour?: number | undefined;
  targetInstances?: number | undefined;
}

const policyFlags = [
  ["minInstances", "--min-instances"],
  ["backlogBound", "--backlog-bound"],
  ["idleWindow", "--idle-window"],
  ["proofDeadline", "--proof-deadline"],
  ["proveTimeout", "--prove-timeout"],
] as const;

/**
 * The backlog's HarmonyDB and policy, or undefined without --follow-backlog; throws
 * InvalidInputError naming the flags when --curio-db (or CUZKIT_CURIO_DB) is missing, when a
 * --target-* is given too, or when a backlog flag comes without --follow-backlog.
 */
export function backlogFlagsOf(
  flags: FollowBacklogFlags,
  env: Record<string, string | undefined>,
): { curioDb: string; policy: BacklogPolicyOptions } | undefined {
  if (flags.followBacklog !== true) {
    const stray = policyFlags.filter(([key]) => flags[key] !== undefined).map(([, flag]) => flag);
    if (stray.length > 0) {
      throw new InvalidInputError(
        `${stray.join(", ")} ${stray.length === 1 ? "applies" : "apply"} only with --follow-backlog`,
        {
          hint: "add --follow-backlog (with --curio-db), or drop them",
        },
      );
    }
    return undefined;
  }
  const curioDb = flags.curioDb ?? (env.CUZKIT_CURIO_DB || undefined);
  if (curioDb === undefined) {
    throw new InvalidInputError("--follow-backlog reads Curio's backlog, and no --curio-db was given", {
      hint: "pass --curio-db postgres://USER@HOST:PORT/DB (or set CUZKIT_CURIO_DB), with --curio-schema if Curio's tables are not in schema curio",
    });
  }
  if (flags.targetProofsPerHour !== undefined || flags.targetInstances !== undefined) {
    throw new InvalidInputError("--follow-backlog sets the fleet's target itself", {
      hint: "drop --target-proofs-per-hour and --target-instances, or drop --follow-backlog",
    });
  }
  return {
    curioDb,
    policy: {
      minInstances: flags.minInstances,
      // --max-instances is the fleet's cap on billing instances; with --follow-backlog, also its maximum.
      maxInstances: flags.maxInstances,
      clearBoundMs: flags.backlogBound,
      idleWindowMs: flags.idleWindow,
      proofDeadlineMs: flags.proofDeadline,
      proveTimeoutMs: flags.proveTimeout,
    },
  };
}
