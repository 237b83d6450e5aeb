import { oomHint } from "@cuzkit/client";
import { CuzkitError } from "@cuzkit/core";
import type { FailureClass } from "../records.js";
import type { RunState } from "./state.js";

/**
 * How the run ends early: `unstable` (the daemon died, froze or kept failing during the batch),
 * `failed` (could not benchmark), `early` (the sequential test decided), `interrupted` (a signal
 * or the caller).
 */
export type StopKind = "unstable" | "failed" | "early" | "interrupted";

/** Thrown inside the run to end it early. */
export class StopBenchmark extends Error {
  constructor(
    message: string,
    readonly kind: StopKind,
    readonly failureClass: FailureClass = "stopped",
    readonly hint = "",
  ) {
    super(message);
  }
}

/** Ends the run with `reason`, unless it already ended. */
export function stopWith(run: RunState, reason: StopBenchmark): void {
  if (!run.stop.signal.aborted) run.stop.abort(reason);
}

/** Why the run ended early, or undefined while it runs. */
export function stopInfo(run: RunState): StopBenchmark | undefined {
  const { signal } = run.stop;
  return signal.aborted && signal.reason instanceof StopBenchmark ? signal.reason : undefined;
}

/** Throws the stop's reason once the run was stopped. */
export function throwIfStopped(signal: AbortSignal): void {
  if (signal.aborted) throw signal.reason;
}

/** `unstable` during the timed batch (it spoils the rate), `failed` before it (no rate at all). */
export function stopKindForPhase(run: RunState): StopKind {
  return run.phase.current === "timed" ? "unstable" : "failed";
}

/** Listens to the caller's signal: its abort interrupts the run. Returns the unsubscribe function. */
export function followCallerSignal(run: RunState): () => void {
  const { signal } = run.o;
  if (!signal) return () => {};
  const onCallerAbort = () => {
    const reason = signal.reason;
    stopWith(
      run,
      new StopBenchmark(
        reason instanceof Error && reason.name !== "AbortError" ? reason.message : "aborted by the caller",
        "interrupted",
      ),
    );
  };
  signal.addEventListener("abort", onCallerAbort, { once: true });
  if (signal.aborted) onCallerAbort();
  return () => signal.removeEventListener("abort", onCallerAbort);
}

/** Records what ended the phase sequence: a stop of the run's own, or an error that could not benchmark. */
export function stopOnError(run: RunState, caught: unknown): void {
  const stopped = caught instanceof StopBenchmark ? caught : stopInfo(run);
  if (!stopped) {
    // The reason is one line: a hint with the daemon's log lines stays out of it (the exits have them).
    const text = CuzkitError.is(caught)
      ? `${caught.message}${caught.hint && !caught.hint.includes("\n") ? ` (${caught.hint})` : ""}`
      : String(caught);
    stopWith(run, new StopBenchmark(text, "failed"));
  } else if (caught instanceof StopBenchmark) stopWith(run, caught);
  run.o.logger.error("benchmark stopped", { reason: stopInfo(run)?.message });
}

/** What to do about a proof lost to a dead or frozen daemon. */
export function hintFor(failureClass: FailureClass): string {
  return failureClass === "froze"
    ? "the daemon stopped answering (not even GetStatus): check its log for the last thing it did, and `cuzkit status`"
    : failureClass === "died"
      ? oomHint
      : failureClass === "stuck"
        ? "the daemon answered but finished nothing for the stuck window: check its log and `nvidia-smi`, and restart it if it stays so"
        : "";
}
