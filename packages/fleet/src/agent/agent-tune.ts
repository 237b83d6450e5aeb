import type { DaemonDialect } from "@cuzkit/core";
import { detectHardware, emitCuzkToml, recommend } from "@cuzkit/tuner";
import { stringify as toToml } from "smol-toml";
import type { AgentInstructions } from "../protocol/answers.js";
import type { AgentOutcome } from "./agent-options.js";
import { type AgentRun, failStep } from "./agent-run.js";
import { AgentStepError } from "./agent-step-error.js";

/** The tuned daemon configs of a machine. */
export interface TunedDaemon {
  /** The tuned cuzk.toml. */
  configToml: string;
  /** The warmup's own cuzk.toml, when the warmup restarts the daemon. */
  warmupConfigToml: string | undefined;
  recommendation: ReturnType<typeof recommend>;
}

type TomlSections = Record<string, Record<string, string | number | boolean>>;

/** The config with `daemon.status_listen` set when an address is given (the daemon's /status is off by default). */
function withStatusListen<C extends TomlSections>(config: C, listen: string | undefined): C {
  if (listen === undefined) return config;
  return { ...config, daemon: { ...config.daemon, status_listen: listen } };
}

/** The tune phase: the daemon configs recommended for the detected hardware, or the failure. */
export async function tuneDaemon(
  run: AgentRun,
  instructions: AgentInstructions,
): Promise<{ tuned: TunedDaemon } | { failed: AgentOutcome }> {
  const { options } = run;
  run.currentPhase = "tune";
  try {
    const hardware = await (options.detectHardware ?? (() => detectHardware()))();
    const dialect = options.dialect ?? (instructions.dialect as DaemonDialect);
    const recommendation = recommend(hardware, { dialect, workload: { kind: options.kind ?? "porep" } });
    if (!recommendation.feasible) {
      throw new AgentStepError(
        `no safe daemon config for this machine: ${recommendation.infeasibleReason ?? ""}`,
        {
          step: "tune",
          errorClass: "UnsafeConfigError",
          code: "NO_SAFE_CONFIG",
        },
      );
    }
    const configToml = emitCuzkToml({
      ...recommendation,
      config: withStatusListen(recommendation.config, options.daemonStatusListen),
    });
    let warmupConfigToml: string | undefined;
    if (recommendation.warmup.restart) {
      const warmupConfig = withStatusListen(recommendation.warmup.config, options.daemonStatusListen);
      warmupConfigToml = `${toToml(warmupConfig)}\n`;
    }
    return { tuned: { configToml, warmupConfigToml, recommendation } };
  } catch (error) {
    return { failed: await failStep(run, "tune", error) };
  }
}
