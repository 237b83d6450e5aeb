import { createDaemonSupervisor, type DaemonSupervisor } from "@cuzkit/bench";
import { createCuzkClient } from "@cuzkit/client";
import type { AgentInstructions } from "../protocol/answers.js";
import type { ProofRecord } from "../protocol/requests.js";
import type { AgentOutcome } from "./agent-options.js";
import { type AgentRun, failStep } from "./agent-run.js";
import { AgentStepError } from "./agent-step-error.js";
import type { TunedDaemon } from "./agent-tune.js";
import type { AgentReporter } from "./reporter.js";
import { runVetting, type VettingResult } from "./vetting.js";

/** A vetted machine: its measurement and the manager's answer to its report. */
export interface Benchmarked {
  supervisor: DaemonSupervisor;
  vetting: VettingResult;
  /** The rate in the daemon's modelled time, proofs/hour. */
  proofsPerHour: number;
  answer: Awaited<ReturnType<AgentReporter["report"]>>;
}

/**
 * Warmup and benchmark, with the daemon spawned and watched by the harness, then the final
 * report (the manager decides). Answers the measurement and the answer, or the failure.
 */
export async function benchmarkAndReport(
  run: AgentRun,
  instructions: AgentInstructions,
  tuned: TunedDaemon,
): Promise<{ done: Benchmarked } | { failed: AgentOutcome }> {
  const started = await startAndVet(run, instructions, tuned);
  if ("failed" in started) return started;
  const { supervisor, vetting } = started;
  if (!vetting.reachedTimed) {
    const error = new AgentStepError(`the warmup failed: ${vetting.reason}`, {
      step: "warmup",
      errorClass: "BenchmarkFailedError",
      code: "WARMUP_FAILED",
    });
    return { failed: await failStep(run, "warmup", error) };
  }
  run.currentPhase = "report";
  const { timeScale } = run;
  const proofsPerHour = vetting.proofsPerHour * timeScale;
  try {
    const answer = await run.options.reporter.report({
      verdict: vetting.verdict,
      proofsPerHour,
      // The records in the daemon's modelled time too, so the manager's recount matches the rate.
      proofs: timeScale === 1 ? vetting.proofs : vetting.proofs.map((p) => inModelledTime(p, timeScale)),
      tunedConfig: tuned.configToml,
      summary: vetting.summary,
    });
    return { done: { supervisor, vetting, proofsPerHour, answer } };
  } catch (error) {
    return { failed: await failStep(run, "benchmarking", error) };
  }
}

/** The warmup and timed proofs: the daemon supervised, each phase reported as it begins. */
async function startAndVet(
  run: AgentRun,
  instructions: AgentInstructions,
  tuned: TunedDaemon,
): Promise<{ supervisor: DaemonSupervisor; vetting: VettingResult } | { failed: AgentOutcome }> {
  const { options } = run;
  run.currentPhase = "warmup";
  // Lives until the end: the supervisor's readiness check uses it at every (re)start.
  const checker = createCuzkClient({ address: options.daemonAddress });
  run.checker = checker;
  try {
    await options.reporter.phase({ phase: "warmup", tunedConfig: tuned.configToml });
    void run.shipLogs("phase", "warmup");
    const supervisor = createDaemonSupervisor({
      command: options.daemonCommand,
      address: options.daemonAddress,
      onOutput: (chunk) => run.tail.write("daemon", chunk),
      // The daemon's status goes back to the supervisor, which checks it is the child it started.
      waitForReady: async (signal) => checker.waitForReady({ signal, timeoutMs: options.readyTimeoutMs }),
    });
    run.supervisor = supervisor;
    const vetting = await runVetting({
      address: options.daemonAddress,
      request: options.request,
      kind: options.kind ?? "porep",
      count: instructions.benchmarkProofs,
      concurrency: tuned.recommendation.bench.concurrency,
      // The harness measures real time: a daemon at time scale s is 1/s times faster than modelled.
      // 0 from the manager means "no threshold".
      minProofsPerHour:
        instructions.minProofsPerHour > 0 ? instructions.minProofsPerHour / run.timeScale : undefined,
      supervision: {
        supervisor,
        configToml: tuned.configToml,
        warmupConfigToml: tuned.warmupConfigToml,
        onCrash: "stop",
      },
      signal: run.stop.signal,
      readyTimeoutMs: options.readyTimeoutMs,
      proofTimeoutMs: options.proofTimeoutMs,
      warmupTimeoutMs: options.warmupTimeoutMs,
      onPhase: async (phase) => {
        if (phase !== "benchmarking") return;
        run.currentPhase = "benchmarking";
        await options.reporter.phase({ phase: "benchmarking" });
        void run.shipLogs("phase", "benchmarking");
      },
      run: options.benchmark,
    });
    return { supervisor, vetting };
  } catch (error) {
    return {
      failed: await failStep(run, run.currentPhase === "benchmarking" ? "benchmarking" : "warmup", error),
    };
  }
}

/** A proof record with its times in the daemon's modelled time (real ms over the time scale). */
function inModelledTime(record: ProofRecord, timeScale: number): ProofRecord {
  const scale = (ms: number | undefined) => (ms === undefined ? undefined : ms / timeScale);
  return {
    ...record,
    wallMs: scale(record.wallMs),
    submitMs: scale(record.submitMs),
    settleMs: scale(record.settleMs),
  };
}
