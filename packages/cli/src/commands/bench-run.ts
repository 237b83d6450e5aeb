import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import {
  type BenchmarkReport,
  createDaemonSupervisor,
  createProgressOutput,
  formatReport,
  type PhaseEtas,
  runBenchmark,
  type SupervisionOptions,
  verdictExitCode,
} from "@cuzkit/bench";
import { createCuzkClient } from "@cuzkit/client";
import { type DaemonConfig, type DaemonDialect, InvalidInputError, readCuzkConfig } from "@cuzkit/core";
import { emitCuzkToml, type Recommendation, recommend } from "@cuzkit/tuner";
import { stringify as toToml } from "smol-toml";
import { appendJsonLine } from "../bench-files.js";
import { resolveAddress } from "../common.js";
import { type HardwareFlags, resolveHardwareFlags, specOf } from "../hardware-flags.js";
import { interruptOnSignals } from "../interrupt.js";
import { type CliIO, CommandExit } from "../io.js";
import { daemonDefaultParamCache, paramCacheOf } from "../param-cache.js";
import { parseWholeNumber } from "../parse.js";
import { type BuiltProofInput, buildProofInput, type ProofInputFlags } from "../proof-input.js";
import { type StuckFlags, stuckOption } from "../stuck-flags.js";
import { checkWritablePath } from "../writable-path.js";

// What `cuzkit bench` does once its flags are parsed: check everything, size or read the
// daemon's config (with --spawn), run the benchmark, print the report and exit with the verdict.

/** The flags of `cuzkit bench`, as commander parses them. */
export interface BenchFlags extends ProofInputFlags, HardwareFlags, StuckFlags {
  addr?: string;
  count: number;
  concurrency: string;
  warmup: "auto" | "none" | number;
  proofTimeout?: number;
  warmupTimeout?: number;
  readyTimeout?: number;
  batchTimeout?: number;
  deadlineMargin: number;
  minProofsPerHour?: number;
  earlyVerdict?: boolean;
  json?: boolean;
  out?: string;
  statusFile?: string;
  heartbeat: number;
  spawn?: string;
  config?: string;
  paramCache?: string;
  daemonLog?: string;
  dialect: DaemonDialect;
  onCrash?: "restart" | "stop";
  maxRestarts?: number;
  resubmit?: number;
  probeInterval: number;
  probeTimeout: number;
  unresponsiveAfter: number;
}

/** Flags that only mean something with another one; given without it they are refused, not ignored. */
function rejectConflictingBenchFlags(flags: BenchFlags): void {
  const spawnOnly = [
    ["--config", flags.config],
    ["--param-cache", flags.paramCache],
    ["--daemon-log", flags.daemonLog],
    ["--on-crash", flags.onCrash],
    ["--max-restarts", flags.maxRestarts],
  ] as const;
  for (const [flag, value] of spawnOnly) {
    if (value !== undefined && flags.spawn === undefined)
      throw new InvalidInputError(`${flag} is only used with --spawn`, {
        hint: "add --spawn to have cuzkit start and supervise the daemon, or configure the running daemon yourself",
      });
  }
  if (flags.maxRestarts !== undefined && flags.onCrash !== "restart")
    throw new InvalidInputError("--max-restarts is only used with --on-crash restart", {
      hint: "add --on-crash restart, or leave --max-restarts out (the default is to stop at the first crash)",
    });
  if (flags.warmupTimeout !== undefined && flags.warmup === "none")
    throw new InvalidInputError("--warmup-timeout is not used with --warmup none", {
      hint: "leave --warmup-timeout out, or run a warmup (--warmup auto or a number)",
    });
  if (flags.earlyVerdict && flags.minProofsPerHour === undefined)
    throw new InvalidInputError("--early-verdict needs a threshold", { hint: "add --min-proofs-per-hour N" });
}

/** A cuzk.toml with srs.param_cache set (added when absent), so the bench knows where the PCE file goes. */
function withParamCache(toml: string, dir: string): string {
  return paramCacheOf(toml) === undefined
    ? `${toml.trimEnd()}\n\n[srs]\nparam_cache = ${JSON.stringify(dir)}\n`
    : toml;
}

type Hardware = NonNullable<ReturnType<typeof specOf>>;

/** The files the run writes, each checked writable before any daemon work. */
async function checkedPaths(flags: BenchFlags, io: CliIO) {
  const outPath =
    flags.out === undefined ? undefined : await checkWritablePath("--out", flags.out, io, "runs.jsonl");
  const statusPath =
    flags.statusFile === undefined
      ? undefined
      : await checkWritablePath("--status-file", flags.statusFile, io, "bench-status.json");
  const logPath =
    flags.daemonLog === undefined
      ? undefined
      : await checkWritablePath("--daemon-log", flags.daemonLog, io, "daemon.log");
  return { outPath, statusPath, logPath };
}

/** The concurrency: given, else the recommendation's, else "auto" (which needs the machine). */
function benchConcurrency(
  flags: BenchFlags,
  recommendation: Recommendation | undefined,
  hardware: Hardware | undefined,
): number | "auto" {
  if (flags.concurrency !== "auto") {
    return parseWholeNumber(flags.concurrency, {
      what: "--concurrency",
      example: "2 (or auto with --detect)",
    });
  }
  if (!hardware) {
    throw new InvalidInputError("--concurrency auto needs the machine", {
      hint: "add --detect or --ram/--cores/--gpus, or give a number",
    });
  }
  return recommendation?.bench.concurrency ?? "auto";
}

/** The configs the spawned daemon runs: --config, else the tuned one (with a warmup config when the plan restarts). */
async function spawnConfigs(flags: BenchFlags, io: CliIO, recommendation: Recommendation | undefined) {
  let configToml: string;
  let warmupConfigToml: string | undefined;
  let configPath: string | undefined;
  if (flags.config !== undefined) {
    configPath = resolve(io.cwd, flags.config);
    configToml = await readFile(configPath, "utf8").catch((error: unknown) => {
      throw new InvalidInputError(`cannot read ${flags.config}: ${(error as Error).message}`, {
        hint: "check the path given to --config",
        cause: error,
      });
    });
  } else if (recommendation?.feasible) {
    configToml = emitCuzkToml(recommendation);
    if (recommendation.warmup.restart)
      warmupConfigToml = `# warmup config (cuzkit bench): ${recommendation.warmup.steps.join(" ")}\n${toToml(recommendation.warmup.config)}\n`;
  } else {
    throw new InvalidInputError(
      recommendation
        ? `no safe config for this machine: ${recommendation.infeasibleReason ?? ""}`
        : "--spawn needs a config",
      { hint: "give --config FILE, or the machine (--detect or --ram/--cores/--gpus) to tune one" },
    );
  }
  const paramCache = resolve(io.cwd, flags.paramCache ?? paramCacheOf(configToml) ?? daemonDefaultParamCache);
  if (warmupConfigToml !== undefined) {
    // Both daemons must use the same param cache: the warmup writes the PCE file the full one reads.
    configToml = withParamCache(configToml, paramCache);
    warmupConfigToml = withParamCache(warmupConfigToml, paramCache);
  }
  return { configToml, warmupConfigToml, configPath, paramCache };
}

/** With --spawn: the supervisor of the daemon we start, the configs the model reads, and the readiness checker to close. */
async function spawnSupervision(
  flags: BenchFlags & { spawn: string },
  io: CliIO,
  address: string,
  logPath: string | undefined,
  recommendation: Recommendation | undefined,
) {
  const { configToml, warmupConfigToml, configPath, paramCache } = await spawnConfigs(
    flags,
    io,
    recommendation,
  );
  const modelConfigs: { config: DaemonConfig; warmupConfig?: DaemonConfig | undefined } = {
    config: readCuzkConfig(configToml, flags.config === undefined ? flags.dialect : undefined).config,
    warmupConfig:
      warmupConfigToml === undefined ? undefined : readCuzkConfig(warmupConfigToml, flags.dialect).config,
  };
  // Polls at least every second, so a daemon is seen soon after it listens.
  const checker = createCuzkClient({ address, reconnect: { maxDelayMs: 1_000 } });
  const supervisor = createDaemonSupervisor({
    command: flags.spawn,
    address,
    logFile: logPath,
    waitForReady: async (signal) => checker.waitForReady({ signal, timeoutMs: flags.readyTimeout }),
  });
  const supervision: SupervisionOptions = {
    supervisor,
    configToml,
    warmupConfigToml,
    pceWait: warmupConfigToml === undefined ? undefined : { dir: paramCache },
    configPath,
    onCrash: flags.onCrash,
    maxRestarts: flags.maxRestarts,
  };
  return { supervision, modelConfigs, closeChecker: () => checker.close() };
}

/** What the run needs besides the flags: the input, the address, the machine and (with --spawn) the supervision. */
interface BenchPlan {
  input: BuiltProofInput;
  address: string;
  hardware: Hardware | undefined;
  concurrency: number | "auto";
  statusPath: string | undefined;
  supervision: SupervisionOptions | undefined;
  modelConfigs: { config: DaemonConfig; warmupConfig?: DaemonConfig | undefined } | undefined;
}

/** Runs the benchmark with progress on stderr, interruptible by signals. */
async function runWithProgress(io: CliIO, flags: BenchFlags, plan: BenchPlan): Promise<BenchmarkReport> {
  const { hardware, modelConfigs } = plan;
  const overrides: PhaseEtas = {
    warmup: flags.warmupTimeout,
    timed: flags.batchTimeout,
    "waiting-for-daemon": flags.readyTimeout,
    "starting-daemon": flags.readyTimeout,
    "restarting-daemon": flags.readyTimeout,
  };
  const progress = createProgressOutput(io.stderr, flags.count);
  const interrupt = interruptOnSignals();
  try {
    return await runBenchmark({
      address: plan.address,
      request: plan.input.request,
      kind: plan.input.kind,
      count: flags.count,
      resubmit: flags.resubmit,
      concurrency: plan.concurrency,
      hardware,
      dialect: flags.dialect,
      warmup: flags.warmup,
      signal: interrupt.signal,
      onProgress: (event, snapshot) => progress.update(event, snapshot),
      heartbeatMs: flags.heartbeat,
      watchdog: {
        probeIntervalMs: flags.probeInterval,
        probeTimeoutMs: flags.probeTimeout,
        unresponsiveAfterMs: flags.unresponsiveAfter,
      },
      phaseDeadlines: { margin: flags.deadlineMargin, overrides },
      model: hardware && modelConfigs ? { hardware, ...modelConfigs } : undefined,
      statusFile: plan.statusPath,
      earlyVerdict: flags.earlyVerdict,
      proofTimeoutMs: flags.proofTimeout,
      client: { stuck: stuckOption(flags) },
      warmupTimeoutMs: flags.warmupTimeout,
      readyTimeoutMs: flags.readyTimeout,
      minProofsPerHour: flags.minProofsPerHour,
      supervision: plan.supervision,
    });
  } finally {
    progress.finish();
    interrupt.dispose();
  }
}

/** `cuzkit bench`'s action: everything is checked before any daemon work; exits with the verdict's code. */
export async function runBenchCommand(io: CliIO, flags: BenchFlags): Promise<void> {
  const { outPath, statusPath, logPath } = await checkedPaths(flags, io);
  rejectConflictingBenchFlags(flags);
  const input = await buildProofInput(flags, io);
  const address = resolveAddress(flags.addr, io);
  const described =
    (await resolveHardwareFlags(flags)) ??
    // The daemon runs here when we spawn it: size it for this machine.
    (flags.spawn !== undefined && flags.config === undefined
      ? await resolveHardwareFlags({ detect: true })
      : undefined);
  const hardware = described === undefined ? undefined : specOf(described);
  // Tuned here only when we write the daemon's config; otherwise runBenchmark tunes the concurrency.
  const recommendation =
    hardware && flags.spawn !== undefined && flags.config === undefined
      ? recommend(hardware, { dialect: flags.dialect, workload: { kind: input.kind } })
      : undefined;
  const concurrency = benchConcurrency(flags, recommendation, hardware);
  const spawned =
    flags.spawn === undefined
      ? undefined
      : await spawnSupervision({ ...flags, spawn: flags.spawn }, io, address, logPath, recommendation);
  let report: BenchmarkReport;
  try {
    report = await runWithProgress(io, flags, {
      input,
      address,
      hardware,
      concurrency,
      statusPath,
      supervision: spawned?.supervision,
      modelConfigs: spawned?.modelConfigs,
    });
  } finally {
    await spawned?.closeChecker();
  }
  // The report is printed first, so a file that cannot be written loses nothing.
  io.stdout.write(flags.json ? `${JSON.stringify(report, null, 2)}\n` : `${formatReport(report)}\n`);
  if (outPath !== undefined) await appendJsonLine(outPath, report);
  const code = verdictExitCode(report.verdict);
  if (code !== 0) throw new CommandExit(code);
}
