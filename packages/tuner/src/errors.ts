import { CuzkitError, type CuzkitErrorOptions, type DaemonPhase, formatBytes } from "@cuzkit/core";

// The tuner's errors. Bad flags and bad input use core's InvalidInputError; the tuner adds
// the one failure an operator must act on: a config the model expects to be killed.

/** What the model predicts for the config that was refused. */
export interface UnsafeConfigDetails {
  /** Modelled peak memory of the phase that decides, in bytes. */
  peakBytes: number;
  /** The phase that peaks: `steady`, `cold-start` or `warmup`. */
  phase: DaemonPhase;
  /** RAM this container may use, in bytes. */
  usableRamBytes: number;
  /** Bytes kept free as a safety margin. */
  marginBytes: number;
  /** Why no safe config exists, in one sentence. */
  reason: string;
  /** True when even force cannot help: nothing fits the usable RAM with the margin waived. Default false. */
  forceRefused?: boolean | undefined;
}

/**
 * Refused to emit a config the model expects to exceed the usable RAM (with its safety margin).
 * `force: true` (`--force`) emits one that fits with the margin waived, when there is one.
 */
export class UnsafeConfigError extends CuzkitError<"UNSAFE_CONFIG"> {
  /** Modelled peak memory in bytes. */
  readonly peakBytes: number;
  /** The phase whose peak decides. */
  readonly phase: DaemonPhase;
  /** Usable RAM in bytes. */
  readonly usableRamBytes: number;
  /** Safety margin in bytes. */
  readonly marginBytes: number;

  constructor(
    message: string,
    details: UnsafeConfigDetails & Omit<CuzkitErrorOptions<"UNSAFE_CONFIG">, "code">,
  ) {
    super(message, {
      retryable: details.retryable,
      cause: details.cause,
      code: "UNSAFE_CONFIG",
      hint:
        details.hint ??
        (details.forceRefused
          ? "nothing fits this machine even with the safety margin waived, so force: true writes nothing: rent a machine with more RAM " +
            "(or a larger container share), or try the other daemon dialect (the dialect option) or a lighter workload"
          : "rent a machine with more RAM (or a larger container share), try the other daemon dialect or a lighter workload, " +
            "or pass force: true to write a config that fits the usable RAM with the safety margin waived"),
    });
    this.peakBytes = details.peakBytes;
    this.phase = details.phase;
    this.usableRamBytes = details.usableRamBytes;
    this.marginBytes = details.marginBytes;
  }
}

/** The message of an UnsafeConfigError: the peak, the usable RAM, the margin and why. */
export function unsafeConfigMessage(details: UnsafeConfigDetails): string {
  return (
    `no safe config: the smallest one peaks at ${formatBytes(details.peakBytes)} (${details.phase}) ` +
    `while ${formatBytes(details.usableRamBytes)} is usable and ${formatBytes(details.marginBytes)} ` +
    `must stay free; ${details.reason}`
  );
}
