import { type Clock, type Logger, type Sleep, silentLogger } from "@cuzkit/core";
import type { FleetTarget } from "../economics/run-planner.js";
import { FleetConfigError } from "../errors.js";
import type { FleetManager } from "../manager/fleet-manager.js";
import type { FleetRunStep } from "../manager/fleet-run.js";
import { repeatUntilStopped } from "../repeat-until-stopped.js";
import { type AlertWatcher, createAlertWatcher } from "./alert-watcher.js";
import { createWebhookSender, type WebhookSender } from "./webhook-sender.js";

/** Options of startFleetAlerts. */
export interface FleetAlertsOptions {
  /** The manager to watch. Required. */
  manager: Pick<FleetManager, "store" | "config" | "machines">;
  /** The webhook URL (http or https; a secret, never logged). Required. */
  webhookUrl: string;
  /** The fleet run's target, for the below-target alert. Default: none. */
  target?: FleetTarget | undefined;
  /** How long under target before it alerts, ms. Default 30 min. */
  belowTargetForMs?: number | undefined;
  /** How often it checks on its own (fleet run also checks after each step), ms. Default 30 s. */
  everyMs?: number | undefined;
  /** Where delivery failures and check errors are logged. Default: none. */
  logger?: Logger | undefined;
  /** Injected for tests. Default: the system clock. */
  clock?: Clock | undefined;
  /** Injected for tests (the loop's and the retries' waits). Default: setTimeout. */
  sleep?: Sleep | undefined;
  /** Injected for tests. Default: global fetch. */
  fetch?: typeof fetch | undefined;
}

/** A running alert loop. */
export interface FleetAlerts {
  /** Checks now, with what a fleet run step found (its budget bound). Never throws. */
  check(step?: FleetRunStep): Promise<void>;
  /** Stops the loop and waits for queued alerts to be delivered or given up. */
  stop(): Promise<void>;
  /** The sender's counts. */
  readonly sender: WebhookSender;
}

/** Throws FleetConfigError unless `url` is an absolute http(s) URL; the message never repeats it. */
export function checkAlertWebhookUrl(url: string): void {
  let parsed: URL | undefined;
  try {
    parsed = new URL(url);
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || (parsed.protocol !== "http:" && parsed.protocol !== "https:")) {
    throw new FleetConfigError("the alert webhook is not an http(s) URL", {
      hint: "give the full URL, e.g. https://hooks.slack.com/services/..., in CUZKIT_FLEET_ALERT_WEBHOOK or --alert-webhook-file",
    });
  }
}

/**
 * Watches the fleet (createAlertWatcher) every `everyMs` and POSTs its alerts to the webhook
 * (createWebhookSender): retried, deduplicated, and never in the way of the manager's loops.
 */
export function startFleetAlerts(options: FleetAlertsOptions): FleetAlerts {
  checkAlertWebhookUrl(options.webhookUrl);
  const logger = options.logger ?? silentLogger;
  const sender = createWebhookSender({
    url: options.webhookUrl,
    logger,
    sleep: options.sleep,
    fetch: options.fetch,
  });
  const watcher: AlertWatcher = createAlertWatcher({
    manager: options.manager,
    sender,
    target: options.target,
    belowTargetForMs: options.belowTargetForMs,
    clock: options.clock,
  });
  const check = async (step?: FleetRunStep) => {
    try {
      await watcher.check(step);
    } catch (error) {
      logger.warn("fleet alert check failed", {
        error: error instanceof Error ? error.message : String(error),
      });
    }
  };
  const stopLoop = repeatUntilStopped(check, options.everyMs ?? 30_000, options.sleep);
  return {
    sender,
    check,
    async stop() {
      await stopLoop();
      await sender.drain();
    },
  };
}
