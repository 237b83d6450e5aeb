/** How a drain ended. */
export type DrainOutcome =
  /** Not a Curio node (or no Curio link): nothing to drain. */
  | "not-curio"
  /** The node owns no task any more, and Curio has had a poll to see the cordon. */
  | "drained"
  /** The deadline passed with tasks still owned: destroyed anyway. */
  | "deadline"
  /** The destroy was cancelled: the node is schedulable again (or, when that failed, stored `cordoned`). */
  | "cancelled"
  /** The manager stopped mid-drain (`onAbort: "keep"`): the drain stays stored and is resumed at the next start. */
  | "interrupted"
  /**
   * HarmonyDB kept failing (past the link's retries, or a refusal such as no UPDATE grant): the
   * node was uncordoned (best effort; else stored `cordoned`), the instance is kept, and a
   * `curio-drain-failed` event says why with the error's code.
   */
  | "failed"
  /** The instance left `active` (before the cordon, or during the drain: its destroy is elsewhere). */
  | "gone"
  /**
   * Two nodes could be the instance's (or its node is another instance's too): nothing was
   * cordoned, and the instance must not be destroyed automatically (a `curio-identity-conflict`
   * event says why).
   */
  | "conflict";

/** What a drain that answered "conflict" found (for the caller's error). */
export interface DrainConflict {
  reason: string;
}

/** Options of cordonAndDrain. */
export interface DrainOptions {
  /** Stops the drain (see onAbort). Default: none. */
  signal?: AbortSignal | undefined;
  /**
   * What an abort does: `uncordon` (an operator's cancel: the node is schedulable again and the
   * instance stays) or `keep` (a manager stopping: the stored `draining` state stays, with a
   * `curio-drain-interrupted` event, and the next start resumes it). Default `uncordon`.
   */
  onAbort?: "uncordon" | "keep" | undefined;
  /** Hears why a drain answered "conflict". Default: nothing. */
  onConflict?: ((conflict: DrainConflict) => void) | undefined;
  /** Hears the HarmonyDB error of a drain that answered "failed". Default: nothing. */
  onFailed?: ((error: unknown) => void) | undefined;
}
