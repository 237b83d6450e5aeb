import { type CuzkitError, retry } from "@cuzkit/core";
import { AbortedError, DaemonUnavailableError } from "./errors.js";
import { toCuzkError, unreachableCode } from "./map-error.js";
import type { ResolvedClientOptions } from "./options.js";
import type { InternalCallOptions } from "./prove.js";
import type { DaemonStatus } from "./status.js";

// The daemon loads parameters (tens of GiB) before it listens, so right after a start every
// call is refused for minutes. waitUntilReady polls GetStatus with the reconnect backoff
// (injected sleep and clock) until it answers.

/** What waitUntilReady needs from the client. */
export interface ReadyDeps {
  options: ResolvedClientOptions;
  address: string;
  status(call: InternalCallOptions): Promise<DaemonStatus>;
}

/** Polls GetStatus until the daemon answers; DaemonUnavailableError after `timeoutMs`, AbortedError on abort. */
export async function waitUntilReady(
  deps: ReadyDeps,
  wait: { timeoutMs: number; signal?: AbortSignal | undefined },
): Promise<DaemonStatus> {
  const { clock, sleep, reconnect } = deps.options;
  const giveUpAt = clock.now() + wait.timeoutMs;
  // Errors that end the wait at once: the caller's abort, a host name that does not resolve.
  const final = new WeakSet<object>();
  const probe = async (): Promise<DaemonStatus> => {
    try {
      return await deps.status({
        signal: wait.signal,
        timeoutMs: Math.max(1, Math.min(reconnect.probeTimeoutMs, giveUpAt - clock.now())),
      });
    } catch (error) {
      const err = toCuzkError(error, { rpc: "GetStatus", address: deps.address, callerSignal: wait.signal });
      if (err instanceof AbortedError) final.add(err);
      // A name that does not resolve is a typo, not a daemon still loading parameters:
      // waiting minutes for it would only hide the mistake.
      if (unreachableCode(error) === "ENOTFOUND") {
        const typo = new DaemonUnavailableError(`cannot resolve the daemon's host in ${deps.address}`, {
          rpc: "GetStatus",
          address: deps.address,
          cause: error,
          hint: "check the host name in the address; cuzk itself listens on an IP address and port (127.0.0.1:9820) or unix:///path",
        });
        final.add(typo);
        throw typo;
      }
      throw err;
    }
  };
  try {
    return await retry(probe, {
      maxAttempts: Number.POSITIVE_INFINITY,
      minDelayMs: reconnect.initialDelayMs,
      maxDelayMs: reconnect.maxDelayMs,
      factor: reconnect.factor,
      jitter: 0,
      shouldRetry: (error) => !final.has(error as object) && clock.now() < giveUpAt,
      // The last probe goes out at the deadline, not after it.
      delayFor: (_error, backoffMs) => Math.min(backoffMs, giveUpAt - clock.now()),
      signal: wait.signal,
      clock,
      sleep,
    });
  } catch (error) {
    if (!final.has(error as object) && !wait.signal?.aborted && clock.now() >= giveUpAt) {
      const last = error as CuzkitError;
      throw new DaemonUnavailableError(
        `the daemon at ${deps.address} did not become ready within ${wait.timeoutMs} ms (last: ${last.message})`,
        {
          rpc: "GetStatus",
          address: deps.address,
          cause: last,
          hint:
            "check that the daemon is running and its log (it loads parameters before it listens; a missing " +
            "param_cache or a crash at start shows there); raise the wait for slow disks",
        },
      );
    }
    throw toCuzkError(error, { rpc: "GetStatus", address: deps.address, callerSignal: wait.signal });
  }
}
