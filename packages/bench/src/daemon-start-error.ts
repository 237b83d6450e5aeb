import { CuzkitError, type CuzkitErrorOptions } from "@cuzkit/core";
import type { DaemonExit } from "./daemon-exit.js";

export type DaemonStartErrorCode = "DAEMON_START_FAILED" | "ADDRESS_IN_USE" | "DAEMON_NOT_OURS";

/** Error thrown when the daemon cannot be started, does not answer, or is not the one we started. */
export class DaemonStartError extends CuzkitError<DaemonStartErrorCode> {
  /** The child's exit when it exited before it was seen ready; undefined for other failures. */
  readonly exit: DaemonExit | undefined;
  constructor(
    message: string,
    options: CuzkitErrorOptions<DaemonStartErrorCode> & { exit?: DaemonExit | undefined } = {},
  ) {
    const { exit, ...rest } = options;
    super(message, { ...rest, code: rest.code ?? "DAEMON_START_FAILED" });
    this.exit = exit;
  }
}
