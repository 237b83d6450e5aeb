import type { SubmitProofInput } from "@cuzkit/client";
import type { DaemonDialect, HardwareSpec, Logger, ProofKind } from "@cuzkit/core";
import type { DetectedHardware } from "@cuzkit/tuner";
import type { BenchVerdict } from "../decision.js";
import type { FailureBody } from "../protocol/requests.js";
import type { LogTail } from "./log-tail.js";
import type { AgentReporter } from "./reporter.js";
import type { CommandOutcome } from "./run-command.js";
import type { VettingOptions } from "./vetting.js";

/** Timers the agent's heartbeat uses; injectable so tests never wait. */
export interface AgentTimers {
  setInterval(callback: () => void, ms: number): unknown;
  clearInterval(handle: unknown): void;
}

/** Options of runAgent. */
export interface AgentOptions {
  /** Where to report: createHttpReporter (with the manager) or createDiskReporter (standalone). Required. */
  reporter: AgentReporter;
  /** Shell command that fetches the proof parameters (`--params-command`). Default: none, they are assumed present. */
  paramsCommand?: string | undefined;
  /** Shell command that starts the daemon, with `{config}` and `{addr}` (createDaemonSupervisor). Required. */
  daemonCommand: string;
  /** The daemon's address, e.g. `unix:///run/cuzk/cuzk.sock`. Required. */
  daemonAddress: string;
  /** The proof request the benchmark sends (build it with @cuzkit/client). Required. */
  request: SubmitProofInput;
  /** Its proof kind. Default "porep". */
  kind?: ProofKind | undefined;
  /** The daemon dialect. Default: the manager's instruction, else "budget". */
  dialect?: DaemonDialect | undefined;
  /** How to read the machine. Default detectHardware() of @cuzkit/tuner. */
  detectHardware?: (() => Promise<HardwareSpec | DetectedHardware>) | undefined;
  /** Runs the params command. Default: `sh -c`. */
  runCommand?: ((command: string, signal: AbortSignal) => Promise<CommandOutcome>) | undefined;
  /**
   * Shell command started once the machine is kept (Curio), with CUZK_ADDR set, and
   * CURIO_NODE_NAME set to the manager's name for the node (pass no `--name` in it: a flag beats
   * the variable). Default none.
   */
  serveCommand?: string | undefined;
  /** How often a kept machine reports its production throughput, ms. Default 30 minutes. */
  throughputIntervalMs?: number | undefined;
  /**
   * Real seconds per modelled second of a simulated daemon (`cuzkit sim --time-scale`): the
   * benchmark's rate, the early verdict's threshold and the production windows are then in the
   * daemon's modelled time, so a fleet on simulated machines sees rates a real one would.
   * Default 1 (a real daemon).
   */
  timeScale?: number | undefined;
  /** How long to wait for the daemon to answer, ms. Default: the harness's (10 min). */
  readyTimeoutMs?: number | undefined;
  /** Deadline of each timed proof, ms. Default: the harness's. */
  proofTimeoutMs?: number | undefined;
  /** Deadline of the warmup proof, ms. Default: the harness's. */
  warmupTimeoutMs?: number | undefined;
  /** Stops the agent (and serving). */
  signal?: AbortSignal | undefined;
  /**
   * Reads the daemon's HTTP /status for each heartbeat (such as the client's fetchStatusJson), so
   * the manager's instance page can show it; a failed read, or one still running at the next
   * tick, sends the heartbeat without it (one read at a time). Default: none.
   */
  readDaemonStatus?: (() => Promise<Record<string, unknown> | undefined>) | undefined;
  /**
   * The daemon's HTTP status address (`HOST:PORT`), written into the tuned cuzk.toml as
   * `daemon.status_listen` so the daemon serves the /status that readDaemonStatus reads.
   * Default: none (the tuned config leaves the endpoint off, as the daemon does).
   */
  daemonStatusListen?: string | undefined;
  /** Heartbeat timers. Default: the global setInterval. */
  timers?: AgentTimers | undefined;
  /** The benchmark harness (tests). Default runBenchmark via the vetting adapter. */
  benchmark?: VettingOptions["run"] | undefined;
  /** Version string sent at register. Default "0.1.0". */
  agentVersion?: string | undefined;
  logger?: Logger | undefined;
  /**
   * The ring buffer of the daemon's output and the agent's own lines, shipped to the manager on a
   * failure, at each phase and on request. Default: a new one (logTailDefaults' bounds) whose lines
   * are redacted of `logSecrets` and the secrets of the environment (secretsFromEnv).
   */
  logTail?: LogTail | undefined;
  /** Secret values never to ship (the fleet token when it is not in the environment). Default: none besides secretsFromEnv(process.env). */
  logSecrets?: readonly string[] | undefined;
  /** The least time between two log shipments, except on a failure, ms. Default logTailDefaults.shipEveryMs (30 s). */
  logShipEveryMs?: number | undefined;
}

/** How the agent ended. */
export interface AgentOutcome {
  /** `served`: kept, served until stopped (or stopped while its daemon started); `rejected`: benchmarked and not kept; `failed`: a step failed. */
  status: "served" | "rejected" | "failed";
  /** The step that failed. */
  failedStep?: FailureBody["phase"] | undefined;
  verdict?: BenchVerdict | undefined;
  proofsPerHour?: number | undefined;
  /** The tuned cuzk.toml. */
  tunedConfig?: string | undefined;
  /** Curio's [Cuzk] section for this machine, once kept. */
  curioConfig?: string | undefined;
  reason: string;
}
