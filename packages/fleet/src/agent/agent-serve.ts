import type { DaemonSupervisor } from "@cuzkit/bench";
import { emitCurio } from "@cuzkit/tuner";
import { agentDefaults } from "../defaults.js";
import type { AgentInstructions } from "../protocol/answers.js";
import { curioNodeNameEnv } from "../protocol/env-names.js";
import type { AgentOutcome } from "./agent-options.js";
import { type AgentRun, failStep } from "./agent-run.js";
import { codeOf } from "./agent-step-error.js";
import type { TunedDaemon } from "./agent-tune.js";
import { type CompletedReading, productionWindow } from "./production-window.js";
import { runShellCommand } from "./run-command.js";

/** The outcome's reason when a stop came while the kept machine's daemon was still starting. */
const stoppedReason = "stopped before the daemon was ready to serve";

/** What the kept machine measured, for its outcome. */
export interface Measured {
  verdict: NonNullable<AgentOutcome["verdict"]>;
  proofsPerHour: number;
  tunedConfig: string;
}

/**
 * Kept: serves with the tuned config until stopped, with the serve command (Curio) started and
 * production throughput reported every window.
 */
export async function serveKept(
  run: AgentRun,
  instructions: AgentInstructions,
  tuned: TunedDaemon,
  supervisor: DaemonSupervisor,
  measured: Measured,
  keptReason: string,
): Promise<AgentOutcome> {
  const { options, stop } = run;
  run.currentPhase = "serving";
  const curioConfig = emitCurio(tuned.recommendation, { address: options.daemonAddress });
  try {
    // A stop while the daemon loads its parameters (minutes) ends the wait, not only the serving.
    await supervisor.start(tuned.configToml, "serve", { signal: stop.signal });
    run.logger.info("agent serving", { address: options.daemonAddress });
    void run.shipLogs("phase", "serving");
    if (options.serveCommand !== undefined) startServeCommand(run, options.serveCommand, instructions);
    run.production = startThroughputReports(run);
    await new Promise<void>((resolve) => {
      if (stop.signal.aborted) resolve();
      stop.signal.addEventListener("abort", () => resolve(), { once: true });
    });
  } catch (error) {
    // Told to stop (SIGTERM, or the manager gave the machine up) before it was ready: not a failure.
    if (stop.signal.aborted) return { status: "served", ...measured, curioConfig, reason: stoppedReason };
    return await failStep(run, "serving", error);
  }
  return { status: "served", ...measured, curioConfig, reason: keptReason };
}

/**
 * The serve command, with CUZK_ADDR and the node's Curio name set: the manager's name for this
 * instance, so the manager finds it by identity, not by an IP that other instances on the host share.
 */
function startServeCommand(run: AgentRun, serveCommand: string, instructions: AgentInstructions): void {
  const { options, stop } = run;
  const env = {
    ...process.env,
    CUZK_ADDR: options.daemonAddress,
    [curioNodeNameEnv]: instructions.curioNodeName ?? process.env[curioNodeNameEnv],
  };
  void runShellCommand(serveCommand, { signal: stop.signal, env }).then((outcome) => {
    if (!stop.signal.aborted)
      run.logger.warn("agent: the serve command exited", { exitCode: outcome.exitCode });
  });
}

/** Production throughput: the completed-proofs counter, read every window, reported as the delta. Answers the timer. */
function startThroughputReports(run: AgentRun): unknown {
  const { options, checker } = run;
  let lastReading: CompletedReading | undefined;
  return run.timers.setInterval(() => {
    void checker
      ?.getMetrics()
      .then(async (metrics) => {
        if (metrics.proofsCompletedTotal === undefined) return;
        const reading = { total: metrics.proofsCompletedTotal, at: Date.now() / run.timeScale };
        const body = productionWindow(lastReading, reading);
        lastReading = reading;
        if (body !== undefined) await options.reporter.throughput?.(body);
      })
      .catch((error) => run.logger.warn("agent throughput report failed", { code: codeOf(error) }));
  }, options.throughputIntervalMs ?? agentDefaults.throughputIntervalMs);
}
