import type { DaemonSupervisor } from "@cuzkit/bench";
import type { createCuzkClient } from "@cuzkit/client";
import { type Logger, silentLogger } from "@cuzkit/core";
import type { FailureBody } from "../protocol/requests.js";
import type { AgentOptions, AgentOutcome, AgentTimers } from "./agent-options.js";
import { codeOf, failureBodyOf } from "./agent-step-error.js";
import { createLogShipper, createLogTail, type LogTail, type ShipReason, tailingLogger } from "./log-tail.js";
import { createLineRedactor, secretsFromEnv } from "./redact.js";

/** The state of one agent run, shared by its steps. */
export interface AgentRun {
  options: AgentOptions;
  /** Real seconds per modelled second of the daemon (1: a real daemon). */
  timeScale: number;
  /** The ring buffer of the daemon's and the agent's lines. */
  tail: LogTail;
  /** The agent's logger, whose lines also go to the tail. */
  logger: Logger;
  timers: AgentTimers;
  /** Aborted by the outer signal or the manager's `stop`: ends the steps and the serving. */
  stop: AbortController;
  /** The phase the heartbeat reports. */
  currentPhase: string;
  /** The daemon's supervisor, once the warmup starts it. */
  supervisor: DaemonSupervisor | undefined;
  /** The daemon client for readiness and metrics, once the warmup starts; closed at the end. */
  checker: ReturnType<typeof createCuzkClient> | undefined;
  /** The production throughput timer, while serving. */
  production: unknown;
  /** Ships the unsent log lines; a failed shipment is only logged (the lines wait for the next one). */
  shipLogs(reason: ShipReason, phase: string): Promise<void>;
}

/** The run's state before it registers: its log tail and shipper, logger, timers and stop. */
export function createAgentRun(options: AgentOptions): AgentRun {
  const { reporter } = options;
  const secrets = [...secretsFromEnv(process.env), ...(options.logSecrets ?? [])];
  const tail = options.logTail ?? createLogTail({ redact: createLineRedactor(() => secrets) });
  const shipper =
    reporter.logs === undefined
      ? undefined
      : createLogShipper({
          tail,
          send: (body) => reporter.logs?.(body) ?? Promise.resolve(),
          minIntervalMs: options.logShipEveryMs,
        });
  return {
    options,
    timeScale: options.timeScale ?? 1,
    tail,
    logger: tailingLogger(options.logger ?? silentLogger, tail),
    timers: options.timers ?? { setInterval, clearInterval: (h) => clearInterval(h as NodeJS.Timeout) },
    stop: new AbortController(),
    currentPhase: "register",
    supervisor: undefined,
    checker: undefined,
    production: undefined,
    async shipLogs(reason, phase) {
      try {
        await shipper?.ship(reason, phase);
      } catch (error) {
        (options.logger ?? silentLogger).warn("agent could not ship its log tail", { code: codeOf(error) });
      }
    },
  };
}

/** Reports a failed step (its log tail first) and answers the `failed` outcome. */
export async function failStep(
  run: AgentRun,
  step: FailureBody["phase"],
  error: unknown,
): Promise<AgentOutcome> {
  const body = failureBodyOf(step, error);
  run.logger.error("agent step failed", { ...body });
  // The tail first: once the failure is reported the machine is destroyed.
  await run.shipLogs("failure", step);
  await run.options.reporter
    .failure(body)
    .catch((e) => run.logger.warn("agent could not report the failure", { code: codeOf(e) }));
  return { status: "failed", failedStep: step, reason: body.message };
}
