import type { AgentOutcome } from "./agent-options.js";
import { type AgentRun, failStep } from "./agent-run.js";
import { AgentStepError } from "./agent-step-error.js";
import { runShellCommand } from "./run-command.js";

/** The params phase: reported, then the params command run (when given). Answers the failure, if any. */
export async function fetchParams(run: AgentRun): Promise<AgentOutcome | undefined> {
  const { options } = run;
  run.currentPhase = "params";
  try {
    await options.reporter.phase({ phase: "params" });
    void run.shipLogs("phase", "params");
    if (options.paramsCommand === undefined) return undefined;
    const runCommand = options.runCommand ?? ((command, signal) => runShellCommand(command, { signal }));
    const outcome = await runCommand(options.paramsCommand, run.stop.signal);
    for (const line of outcome.tail) run.tail.line("agent", `params: ${line}`);
    if (outcome.exitCode !== 0) {
      throw new AgentStepError(
        `the params command exited ${outcome.exitCode ?? outcome.signal}: ${outcome.tail.slice(-3).join(" | ")}`,
        { step: "params", errorClass: "ParamsCommandError", code: "PARAMS_COMMAND_FAILED" },
      );
    }
    return undefined;
  } catch (error) {
    return await failStep(run, "params", error);
  }
}
