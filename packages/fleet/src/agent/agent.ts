import type { AgentInstructions } from "../protocol/answers.js";
import { benchmarkAndReport } from "./agent-benchmark.js";
import { startHeartbeat } from "./agent-heartbeat.js";
import type { AgentOptions, AgentOutcome } from "./agent-options.js";
import { fetchParams } from "./agent-params.js";
import { type AgentRun, createAgentRun } from "./agent-run.js";
import { serveKept } from "./agent-serve.js";
import { codeOf, messageOf } from "./agent-step-error.js";
import { tuneDaemon } from "./agent-tune.js";

export type { AgentOptions, AgentOutcome, AgentTimers } from "./agent-options.js";

/**
 * The agent on a rented machine: register, fetch parameters, tune from the detected
 * hardware, benchmark with the daemon spawned, report each phase and the final report,
 * heartbeat throughout, and serve when kept. It never throws for a failed step: the step is
 * reported with its error class and the outcome says which one.
 */
export async function runAgent(options: AgentOptions): Promise<AgentOutcome> {
  const run = createAgentRun(options);
  const { logger, timers } = run;
  const onOuterAbort = () => run.stop.abort();
  options.signal?.addEventListener("abort", onOuterAbort, { once: true });
  let instructions: AgentInstructions;
  try {
    instructions = await options.reporter.register({ agentVersion: options.agentVersion ?? "0.1.0" });
  } catch (error) {
    logger.error("agent could not register", { code: codeOf(error), message: messageOf(error) });
    options.signal?.removeEventListener("abort", onOuterAbort);
    return { status: "failed", failedStep: "register", reason: messageOf(error) };
  }
  logger.info("agent registered", { instanceId: instructions.instanceId });
  const heartbeat = startHeartbeat(run, instructions.heartbeatIntervalMs);
  try {
    return await vetAndServe(run, instructions);
  } finally {
    timers.clearInterval(heartbeat);
    if (run.production !== undefined) timers.clearInterval(run.production);
    options.signal?.removeEventListener("abort", onOuterAbort);
    await run.supervisor?.stop().catch(() => undefined);
    await run.checker?.close().catch(() => undefined);
  }
}

/** The registered machine's phases in order: params, tune, warmup and benchmark, report, serve. */
async function vetAndServe(run: AgentRun, instructions: AgentInstructions): Promise<AgentOutcome> {
  const paramsFailed = await fetchParams(run);
  if (paramsFailed !== undefined) return paramsFailed;
  const tune = await tuneDaemon(run, instructions);
  if ("failed" in tune) return tune.failed;
  const { tuned } = tune;
  const benchmarked = await benchmarkAndReport(run, instructions, tuned);
  if ("failed" in benchmarked) return benchmarked.failed;
  const { supervisor, vetting, proofsPerHour, answer } = benchmarked.done;
  const measured = {
    verdict: vetting.verdict,
    proofsPerHour,
    tunedConfig: tuned.configToml,
  };
  if (!answer.keep) {
    await supervisor.stop();
    return { status: "rejected", ...measured, reason: answer.reason };
  }
  return serveKept(run, instructions, tuned, supervisor, measured, answer.reason);
}
