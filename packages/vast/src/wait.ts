import { InvalidInputError, type Logger } from "@cuzkit/core";
import type { CallOptions } from "./call.js";
import { VastAbortedError, VastInstanceFailedError, VastWaitTimeoutError } from "./errors.js";
import { terminalFailureStatuses, type VastInstance, type VastInstanceStatus } from "./instances.js";

/** Options of `waitForStatus`. */
export interface WaitForStatusOptions {
  /** Cancels the wait and its polls. */
  signal?: AbortSignal | undefined;
  /** Give up after this long, in ms. Default 1800000 (30 min: loading a large image can take long). */
  timeoutMs?: number | undefined;
  /** Wait between polls, in ms. Default 10000 (as Vast.ai's docs advise). */
  pollIntervalMs?: number | undefined;
  /** Called with each polled state, for progress output. */
  onPoll?: ((instance: VastInstance) => void) | undefined;
}

/** Defaults of `waitForStatus`. */
export const defaultWaitOptions = { timeoutMs: 30 * 60_000, pollIntervalMs: 10_000 } as const;

/**
 * Polls an instance until `actual_status` equals `target`. `exited`, `unknown` and `offline`
 * are terminal failures (unless they are the target) and a vanished instance fails too:
 * both throw VastInstanceFailedError carrying `status_msg`. Running out of time throws
 * VastWaitTimeoutError. Uses the client's clock and sleep.
 */
export async function waitForStatus(
  deps: {
    showInstance: (id: number, call: CallOptions) => Promise<VastInstance | null>;
    clock: { now(): number };
    sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
    logger?: Logger | undefined;
  },
  id: number,
  target: VastInstanceStatus,
  options: WaitForStatusOptions = {},
): Promise<VastInstance> {
  const timeoutMs = options.timeoutMs ?? defaultWaitOptions.timeoutMs;
  const pollIntervalMs = options.pollIntervalMs ?? defaultWaitOptions.pollIntervalMs;
  if (!(timeoutMs >= 0) || !(pollIntervalMs > 0)) {
    throw new InvalidInputError("timeoutMs must be >= 0 and pollIntervalMs > 0", {
      hint: "such as 1800000 and 10000",
    });
  }
  const endpoint = `GET /api/v0/instances/${id}/`;
  const deadline = deps.clock.now() + timeoutMs;
  for (;;) {
    const call: CallOptions = {};
    if (options.signal !== undefined) call.signal = options.signal;
    const instance = await deps.showInstance(id, call);
    if (instance === null) {
      throw new VastInstanceFailedError(`instance ${id} no longer exists (destroyed or never started)`, {
        actualStatus: null,
        endpoint,
      });
    }
    options.onPoll?.(instance);
    const status = instance.actualStatus;
    if (status === target) return instance;
    const detail = instance.statusMsg ? `: ${instance.statusMsg}` : "";
    if (status !== null && terminalFailureStatuses.includes(status)) {
      throw new VastInstanceFailedError(
        `instance ${id} is ${status} and will not become ${target}${detail}`,
        { actualStatus: status, endpoint, serverMessage: instance.statusMsg ?? "" },
      );
    }
    if (deps.clock.now() + pollIntervalMs > deadline) {
      throw new VastWaitTimeoutError(
        `instance ${id} is still ${status ?? "provisioning"} after ${timeoutMs} ms, not ${target}${detail}`,
        { endpoint, serverMessage: instance.statusMsg },
      );
    }
    deps.logger?.debug("vast waiting for an instance, polling again", {
      instanceId: id,
      status: status ?? "provisioning",
      target,
      waitMs: pollIntervalMs,
    });
    try {
      await deps.sleep(pollIntervalMs, options.signal);
    } catch (cause) {
      throw new VastAbortedError(`waiting for instance ${id} was cancelled`, { endpoint, cause });
    }
  }
}
