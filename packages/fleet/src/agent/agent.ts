// shape-exception: the agent's phases in one file, around runAgent
import { createDaemonSupervisor, type DaemonSupervisor } from "@cuzkit/bench";
import { createCuzkClient, type SubmitProofInput } from "@cuzkit/client";
import {
  CuzkitError,
  type DaemonDialect,
  type HardwareSpec,
  type Logger,
  type ProofKind,
  silentLogger,
} from "@cuzkit/core";
import { type DetectedHardware, detectHardware, emitCurio, emitCuzkToml, recommend } from "@cuzkit/tuner";
import { stringify as toToml } from "smol-toml";
import type { BenchVerdict } from "../decision.js";
import { agentDefaults } from "../defaults.js";
import { FleetError, type FleetErrorOptions } from "../errors.js";
import type { AgentInstructions } from "../protocol/answers.js";
import { curioNodeNameEnv } from "../protocol/env-names.js";
import type { FailureBody, ProofRecord } from "../protocol/requests.js";
import { createLogShipper, createLogTail, type LogTail, type ShipReason, tailingLogger } from "./log-tail.js";
import { type CompletedReading, productionWindow } from "./production-window.js";
import { createLineRedactor, secretsFromEnv } from "./redact.js";
import type { AgentReporter } from "./reporter.js";
import { type CommandOutcome, runShellCommand } from "./run-command.js";
import { runVetting, type VettingOptions } from "./vetting.js";

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

const errorClassOf = (error: unknown) =>
  error instanceof Error
    ? error.constructor.name || error.name
    : typeof error === "string"
      ? "Error"
      : "Unknown";
/** The outcome's reason when a stop came while the kept machine's daemon was still starting. */
const stoppedReason = "stopped before the daemon was ready to serve";
const codeOf = (error: unknown) => (CuzkitError.is(error) ? error.code : "INTERNAL");
const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error)).slice(0, 4000);

type TomlSections = Record<string, Record<string, string | number | boolean>>;

/** The config with `daemon.status_listen` set when an address is given (the daemon's /status is off by default). */
function withStatusListen<C extends TomlSections>(config: C, listen: string | undefined): C {
  if (listen === undefined) return config;
  return { ...config, daemon: { ...config.daemon, status_listen: listen } };
}

/** A failed step, with the error class the manager records. */
class AgentStepError extends FleetError<"PARAMS_COMMAND_FAILED" | "NO_SAFE_CONFIG" | "WARMUP_FAILED"> {
  /** The step that failed. */
  readonly step: FailureBody["phase"];
  /** The error class the manager records (the class the machine's own tool would raise). */
  readonly errorClass: string;

  constructor(
    message: string,
    options: FleetErrorOptions<"PARAMS_COMMAND_FAILED" | "NO_SAFE_CONFIG" | "WARMUP_FAILED"> & {
      step: FailureBody["phase"];
      errorClass: string;
    },
  ) {
    super(message, { ...options, hint: options.hint ?? `the ${options.step} step failed on the machine` });
    this.step = options.step;
    this.errorClass = options.errorClass;
  }
}

/**
 * The agent on a rented machine: register, fetch parameters, tune from the detected
 * hardware, benchmark with the daemon spawned, report each phase and the final report,
 * heartbeat throughout, and serve when kept. It never throws for a failed step: the step is
 * reported with its error class and the outcome says which one.
 */
// shape-exception: the agent's run is one sequence of phases sharing the daemon, reporter and timers; each step is already its own function
export async function runAgent(options: AgentOptions): Promise<AgentOutcome> {
  const { reporter } = options;
  const timeScale = options.timeScale ?? 1;
  const secrets = [...secretsFromEnv(process.env), ...(options.logSecrets ?? [])];
  const tail = options.logTail ?? createLogTail({ redact: createLineRedactor(() => secrets) });
  const logger = tailingLogger(options.logger ?? silentLogger, tail);
  const shipper =
    reporter.logs === undefined
      ? undefined
      : createLogShipper({
          tail,
          send: (body) => reporter.logs?.(body) ?? Promise.resolve(),
          minIntervalMs: options.logShipEveryMs,
        });
  /** Ships the unsent log lines; a failed shipment is only logged (the lines wait for the next one). */
  const shipLogs = async (reason: ShipReason, phase: string) => {
    try {
      await shipper?.ship(reason, phase);
    } catch (error) {
      (options.logger ?? silentLogger).warn("agent could not ship its log tail", { code: codeOf(error) });
    }
  };
  const timers = options.timers ?? { setInterval, clearInterval: (h) => clearInterval(h as NodeJS.Timeout) };
  const stop = new AbortController();
  const onOuterAbort = () => stop.abort();
  options.signal?.addEventListener("abort", onOuterAbort, { once: true });
  let currentPhase = "register";
  let instructions: AgentInstructions;
  try {
    instructions = await reporter.register({ agentVersion: options.agentVersion ?? "0.1.0" });
  } catch (error) {
    logger.error("agent could not register", { code: codeOf(error), message: messageOf(error) });
    options.signal?.removeEventListener("abort", onOuterAbort);
    return { status: "failed", failedStep: "register", reason: messageOf(error) };
  }
  logger.info("agent registered", { instanceId: instructions.instanceId });
  // A heartbeat waits for the daemon's /status at most until the next tick: a slow or frozen
  // daemon (a read may take seconds) must never silence the agent for the manager's 3 intervals.
  let heartbeating = false;
  let statusRead: Promise<Record<string, unknown> | undefined> | undefined;
  let sendWithoutStatus: (() => void) | undefined;
  const heartbeat = timers.setInterval(() => {
    sendWithoutStatus?.();
    if (heartbeating) return;
    heartbeating = true;
    // A read still running from an earlier tick is not waited for again.
    let status: Promise<Record<string, unknown> | undefined> = Promise.resolve(undefined);
    if (statusRead === undefined && options.readDaemonStatus !== undefined) {
      const read = options.readDaemonStatus().catch(() => undefined);
      statusRead = read;
      void read.finally(() => {
        if (statusRead === read) statusRead = undefined;
      });
      const cut = new Promise<undefined>((resolve) => {
        sendWithoutStatus = () => resolve(undefined);
      });
      status = Promise.race([read, cut]);
    }
    status
      .then((status) => {
        sendWithoutStatus = undefined;
        // The parsed copy only: `raw` repeats it, and the heartbeat body is size-limited.
        const { raw: _raw, ...daemonStatus } = status ?? {};
        return reporter.heartbeat(
          status === undefined ? { phase: currentPhase } : { phase: currentPhase, daemonStatus },
        );
      })
      .then((answer) => {
        if (answer === "send-logs") void shipLogs("request", currentPhase);
        if (answer === "stop") {
          logger.warn("agent: the manager has given this machine up; stopping");
          stop.abort();
        }
      })
      .catch((error) => logger.warn("agent heartbeat failed", { code: codeOf(error) }))
      .finally(() => {
        heartbeating = false;
      });
  }, instructions.heartbeatIntervalMs);

  let supervisor: DaemonSupervisor | undefined;
  let production: unknown;
  let closeChecker = async () => {};
  const fail = async (step: FailureBody["phase"], error: unknown): Promise<AgentOutcome> => {
    const body: FailureBody =
      error instanceof AgentStepError
        ? { phase: step, errorClass: error.errorClass, code: error.code, message: error.message }
        : { phase: step, errorClass: errorClassOf(error), code: codeOf(error), message: messageOf(error) };
    logger.error("agent step failed", { ...body });
    // The tail first: once the failure is reported the machine is destroyed.
    await shipLogs("failure", step);
    await reporter
      .failure(body)
      .catch((e) => logger.warn("agent could not report the failure", { code: codeOf(e) }));
    return { status: "failed", failedStep: step, reason: body.message };
  };

  try {
    // Parameters.
    currentPhase = "params";
    try {
      await reporter.phase({ phase: "params" });
      void shipLogs("phase", "params");
      if (options.paramsCommand !== undefined) {
        const run = options.runCommand ?? ((command, signal) => runShellCommand(command, { signal }));
        const outcome = await run(options.paramsCommand, stop.signal);
        for (const line of outcome.tail) tail.line("agent", `params: ${line}`);
        if (outcome.exitCode !== 0) {
          throw new AgentStepError(
            `the params command exited ${outcome.exitCode ?? outcome.signal}: ${outcome.tail.slice(-3).join(" | ")}`,
            { step: "params", errorClass: "ParamsCommandError", code: "PARAMS_COMMAND_FAILED" },
          );
        }
      }
    } catch (error) {
      return await fail("params", error);
    }

    // Tuning.
    currentPhase = "tune";
    const kind = options.kind ?? "porep";
    let configToml: string;
    let warmupConfigToml: string | undefined;
    let recommendation: ReturnType<typeof recommend>;
    try {
      const hardware = await (options.detectHardware ?? (() => detectHardware()))();
      const dialect = options.dialect ?? (instructions.dialect as DaemonDialect);
      recommendation = recommend(hardware, { dialect, workload: { kind } });
      if (!recommendation.feasible) {
        throw new AgentStepError(
          `no safe daemon config for this machine: ${recommendation.infeasibleReason ?? ""}`,
          { step: "tune", errorClass: "UnsafeConfigError", code: "NO_SAFE_CONFIG" },
        );
      }
      configToml = emitCuzkToml({
        ...recommendation,
        config: withStatusListen(recommendation.config, options.daemonStatusListen),
      });
      if (recommendation.warmup.restart) {
        const warmupConfig = withStatusListen(recommendation.warmup.config, options.daemonStatusListen);
        warmupConfigToml = `${toToml(warmupConfig)}\n`;
      }
    } catch (error) {
      return await fail("tune", error);
    }

    // Warmup and benchmark, with the daemon spawned and watched by the harness.
    currentPhase = "warmup";
    // Lives until the end: the supervisor's readiness check uses it at every (re)start.
    const checker = createCuzkClient({ address: options.daemonAddress });
    closeChecker = () => checker.close();
    let vetting: Awaited<ReturnType<typeof runVetting>>;
    try {
      await reporter.phase({ phase: "warmup", tunedConfig: configToml });
      void shipLogs("phase", "warmup");
      supervisor = createDaemonSupervisor({
        command: options.daemonCommand,
        address: options.daemonAddress,
        onOutput: (chunk) => tail.write("daemon", chunk),
        // The daemon's status goes back to the supervisor, which checks it is the child it started.
        waitForReady: async (signal) => checker.waitForReady({ signal, timeoutMs: options.readyTimeoutMs }),
      });
      vetting = await runVetting({
        address: options.daemonAddress,
        request: options.request,
        kind,
        count: instructions.benchmarkProofs,
        concurrency: recommendation.bench.concurrency,
        // The harness measures real time: a daemon at time scale s is 1/s times faster than modelled.
        // 0 from the manager means "no threshold".
        minProofsPerHour:
          instructions.minProofsPerHour > 0 ? instructions.minProofsPerHour / timeScale : undefined,
        supervision: {
          supervisor,
          configToml,
          warmupConfigToml,
          onCrash: "stop",
        },
        signal: stop.signal,
        readyTimeoutMs: options.readyTimeoutMs,
        proofTimeoutMs: options.proofTimeoutMs,
        warmupTimeoutMs: options.warmupTimeoutMs,
        onPhase: async (phase) => {
          if (phase !== "benchmarking") return;
          currentPhase = "benchmarking";
          await reporter.phase({ phase: "benchmarking" });
          void shipLogs("phase", "benchmarking");
        },
        run: options.benchmark,
      });
    } catch (error) {
      return await fail(currentPhase === "benchmarking" ? "benchmarking" : "warmup", error);
    }
    if (!vetting.reachedTimed) {
      return await fail(
        "warmup",
        new AgentStepError(`the warmup failed: ${vetting.reason}`, {
          step: "warmup",
          errorClass: "BenchmarkFailedError",
          code: "WARMUP_FAILED",
        }),
      );
    }

    // The final report: the manager decides.
    currentPhase = "report";
    let answer: Awaited<ReturnType<AgentReporter["report"]>>;
    const proofsPerHour = vetting.proofsPerHour * timeScale;
    try {
      answer = await reporter.report({
        verdict: vetting.verdict,
        proofsPerHour,
        // The records in the daemon's modelled time too, so the manager's recount matches the rate.
        proofs: timeScale === 1 ? vetting.proofs : vetting.proofs.map((p) => inModelledTime(p, timeScale)),
        tunedConfig: configToml,
        summary: vetting.summary,
      });
    } catch (error) {
      return await fail("benchmarking", error);
    }
    const measured = {
      verdict: vetting.verdict,
      proofsPerHour,
      tunedConfig: configToml,
    };
    if (!answer.keep) {
      await supervisor.stop();
      return { status: "rejected", ...measured, reason: answer.reason };
    }

    // Kept: serve with the tuned config until stopped.
    currentPhase = "serving";
    const curioConfig = emitCurio(recommendation, { address: options.daemonAddress });
    try {
      // A stop while the daemon loads its parameters (minutes) ends the wait, not only the serving.
      await supervisor.start(configToml, "serve", { signal: stop.signal });
      logger.info("agent serving", { address: options.daemonAddress });
      void shipLogs("phase", "serving");
      if (options.serveCommand !== undefined) {
        // The node's Curio name is the manager's for this instance, so the manager finds it by
        // identity, not by an IP that other instances on the host share.
        const env = {
          ...process.env,
          CUZK_ADDR: options.daemonAddress,
          [curioNodeNameEnv]: instructions.curioNodeName ?? process.env[curioNodeNameEnv],
        };
        void runShellCommand(options.serveCommand, { signal: stop.signal, env }).then((outcome) => {
          if (!stop.signal.aborted)
            logger.warn("agent: the serve command exited", { exitCode: outcome.exitCode });
        });
      }
      // Production throughput: the completed-proofs counter, read every window, reported as the delta.
      let lastReading: CompletedReading | undefined;
      production = timers.setInterval(() => {
        void checker
          .getMetrics()
          .then(async (metrics) => {
            if (metrics.proofsCompletedTotal === undefined) return;
            const reading = { total: metrics.proofsCompletedTotal, at: Date.now() / timeScale };
            const body = productionWindow(lastReading, reading);
            lastReading = reading;
            if (body !== undefined) await reporter.throughput?.(body);
          })
          .catch((error) => logger.warn("agent throughput report failed", { code: codeOf(error) }));
      }, options.throughputIntervalMs ?? agentDefaults.throughputIntervalMs);
      await new Promise<void>((resolve) => {
        if (stop.signal.aborted) resolve();
        stop.signal.addEventListener("abort", () => resolve(), { once: true });
      });
    } catch (error) {
      // Told to stop (SIGTERM, or the manager gave the machine up) before it was ready: not a failure.
      if (stop.signal.aborted) return { status: "served", ...measured, curioConfig, reason: stoppedReason };
      return await fail("serving", error);
    }
    return { status: "served", ...measured, curioConfig, reason: answer.reason };
  } finally {
    timers.clearInterval(heartbeat);
    if (production !== undefined) timers.clearInterval(production);
    options.signal?.removeEventListener("abort", onOuterAbort);
    await supervisor?.stop().catch(() => undefined);
    await closeChecker().catch(() => undefined);
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
