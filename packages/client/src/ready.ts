import type { CuzkitError } from "@cuzkit/core";
import pRetry, { AbortError as RetryStop } from "p-retry";
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
  const startMs = clock.now();
  const giveUpAt = startMs + wait.timeoutMs;
  let lastError: CuzkitError | undefined;
  try {
    return await pRetry(
      async () => {
        try {
          return await deps.status({
            signal: wait.signal,
            timeoutMs: Math.max(1, Math.min(reconnect.probeTimeoutMs, giveUpAt - clock.now())),
          });
        } catch (error) {
          const err = toCuzkError(error, {
            rpc: "GetStatus",
            address: deps.address,
            callerSignal: wait.signal,
          });
          lastError = err;
          if (err instanceof AbortedError) throw new RetryStop(err);
          // A name that does not resolve is a typo, not a daemon still loading parameters:
          // waiting minutes for it would only hide the mistake.
          if (unreachableCode(error) === "ENOTFOUND") {
            throw new RetryStop(
              new DaemonUnavailableError(`cannot resolve the daemon's host in ${deps.address}`, {
                rpc: "GetStatus",
                address: deps.address,
                cause: error,
                hint: "check the host name in the address; cuzk itself listens on an IP address and port (127.0.0.1:9820) or unix:///path",
              }),
            );
          }
          throw err;
        }
      },
      {
        retries: Number.POSITIVE_INFINITY,
        minTimeout: 0,
        maxTimeout: 0,
        onFailedAttempt: async ({ attemptNumber }) => {
          const delayMs = Math.min(
            reconnect.maxDelayMs,
            reconnect.initialDelayMs * reconnect.factor ** (attemptNumber - 1),
          );
          const now = clock.now();
          if (now >= giveUpAt) {
            throw new DaemonUnavailableError(
              `the daemon at ${deps.address} did not become ready within ${wait.timeoutMs} ms` +
                (lastError ? ` (last: ${lastError.message})` : ""),
              {
                rpc: "GetStatus",
                address: deps.address,
                cause: lastError,
                hint:
                  "check that the daemon is running and its log (it loads parameters before it listens; a missing " +
                  "param_cache or a crash at start shows there); raise the wait for slow disks",
              },
            );
          }
          await sleep(Math.min(delayMs, giveUpAt - now), wait.signal);
        },
      },
    );
  } catch (error) {
    throw toCuzkError(error, { rpc: "GetStatus", address: deps.address, callerSignal: wait.signal });
  }
}
