import { type Logger, retry, type Sleep } from "@cuzkit/core";
import type { FleetAlert } from "./alert.js";

/** Options of createWebhookSender. */
export interface WebhookSenderOptions {
  /** The webhook URL (a secret: Slack's carries its token in the path). Required. */
  url: string;
  /** Attempts per alert, the first included. Default 5. */
  maxAttempts?: number | undefined;
  /** Each POST's timeout, ms. Default 10 000. */
  timeoutMs?: number | undefined;
  /** Alerts waiting at most; beyond it the oldest is dropped (and logged). Default 100. */
  maxQueued?: number | undefined;
  /** Injected for tests. Default: global fetch. */
  fetch?: typeof fetch | undefined;
  /** Injected for tests. Default: setTimeout. */
  sleep?: Sleep | undefined;
  /** Where failures are logged (without the URL). Default: none. */
  logger?: Logger | undefined;
}

/** A sender that never blocks its caller. */
export interface WebhookSender {
  /** Queues an alert and returns at once. */
  send(alert: FleetAlert): void;
  /** Resolves when every queued alert was delivered or given up on. */
  drain(): Promise<void>;
  /** Alerts delivered, given up on, and dropped from a full queue so far. */
  readonly counts: { delivered: number; failed: number; dropped: number };
}

/** A 4xx other than 408/429 will not change on a retry: the hook is wrong, not busy. */
class PermanentWebhookError extends Error {}

/**
 * POSTs alerts as JSON (the alert's fields plus Slack's `text`) one at a time, in order, retried
 * with backoff on network errors, timeouts, 408, 429 and 5xx. The caller (the manager's loop)
 * never waits: a dead webhook costs a queue of at most `maxQueued` alerts. The URL is a secret
 * and is never logged; failures name its host only.
 */
export function createWebhookSender(options: WebhookSenderOptions): WebhookSender {
  const doFetch = options.fetch ?? fetch;
  const maxQueued = options.maxQueued ?? 100;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const host = new URL(options.url).host;
  const queue: FleetAlert[] = [];
  const counts = { delivered: 0, failed: 0, dropped: 0 };
  let running: Promise<void> | undefined;

  const post = async (alert: FleetAlert) => {
    const response = await doFetch(options.url, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(alert),
      signal: AbortSignal.timeout(timeoutMs),
    });
    await response.body?.cancel();
    if (response.ok) return;
    const message = `alert webhook at ${host} answered ${response.status}`;
    if (response.status >= 400 && response.status < 500 && response.status !== 408 && response.status !== 429)
      throw new PermanentWebhookError(message);
    throw new Error(message);
  };
  const deliver = async (alert: FleetAlert) => {
    try {
      await retry(() => post(alert), {
        maxAttempts: options.maxAttempts ?? 5,
        shouldRetry: (error) => !(error instanceof PermanentWebhookError),
        sleep: options.sleep,
      });
      counts.delivered += 1;
    } catch (error) {
      counts.failed += 1;
      // fetch's own errors do not carry the URL, but a cause might: log the message only.
      options.logger?.warn("fleet alert not delivered", {
        host,
        kind: alert.kind,
        key: alert.key,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  };
  const pump = async () => {
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) await deliver(next);
    running = undefined;
  };
  return {
    counts,
    send(alert) {
      if (queue.length >= maxQueued) {
        queue.shift();
        counts.dropped += 1;
        options.logger?.warn("fleet alert queue full: the oldest alert was dropped", { host, maxQueued });
      }
      queue.push(alert);
      running ??= pump();
    },
    async drain() {
      while (running !== undefined) await running;
    },
  };
}
