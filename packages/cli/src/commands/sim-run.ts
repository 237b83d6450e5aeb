// What `cuzkit sim` does once its flags are parsed: check them, read the config, start the
// simulated daemon, print where it listens and serve until a signal or its crash.
import { readFile } from "node:fs/promises";
import { resolve } from "node:path";
import {
  CuzkitError,
  createConsoleLogger,
  type DaemonConfig,
  type DaemonDialect,
  daemonDialects,
  defaultDaemonConfig,
  describeHardware,
  formatBytes,
  hardwareFrom,
  InvalidInputError,
  type LogLevel,
  readCuzkConfig,
} from "@cuzkit/core";
import {
  defaultSimConfig,
  defaultTimeScale,
  type SimCrashDetail,
  type SimDaemon,
  startSimDaemon,
} from "@cuzkit/sim";
import { interruptOnSignals } from "../interrupt.js";
import { type CliIO, CommandExit } from "../io.js";
import { paramCacheOf } from "../param-cache.js";
import { logLevels, type SimCommandDeps, type SimFlags, simCrashExitCode } from "./sim.js";
import { parseFaults } from "./sim-faults.js";

function parseDialect(text: string | undefined): DaemonDialect | undefined {
  if (text === undefined) return undefined;
  if (!(daemonDialects as readonly string[]).includes(text)) {
    throw new InvalidInputError(`unknown dialect "${text}"`, { hint: `use ${daemonDialects.join(" or ")}` });
  }
  return text as DaemonDialect;
}

async function loadConfig(
  path: string,
  dialect: DaemonDialect | undefined,
  io: CliIO,
): Promise<{ config: DaemonConfig; paramCache: string | undefined }> {
  const full = resolve(io.cwd, path);
  let text: string;
  try {
    text = await readFile(full, "utf8");
  } catch (error) {
    throw new CuzkitError(`cannot read the config ${full}: ${(error as Error).message}`, {
      code: "CONFIG_UNREADABLE",
      hint: "check the path given to --config (a cuzk.toml), or leave --config out to use the safe default config",
      cause: error,
    });
  }
  const read = readCuzkConfig(text, dialect);
  for (const finding of read.findings)
    io.stderr.write(`config ${finding.kind}: ${finding.key}: ${finding.message}\n`);
  return { config: read.config, paramCache: paramCacheOf(text) };
}

/** Waits for the shutdown signal or a crash, whichever comes first. */
function waitForEnd(daemon: SimDaemon, signal: AbortSignal): Promise<SimCrashDetail | undefined> {
  return new Promise((resolveEnd) => {
    const onAbort = () => {
      off();
      resolveEnd(undefined);
    };
    const off = daemon.onCrash((_reason, detail) => {
      signal.removeEventListener("abort", onAbort);
      off();
      resolveEnd(detail);
    });
    if (signal.aborted) onAbort();
    else signal.addEventListener("abort", onAbort, { once: true });
  });
}

/** What the simulated daemon runs: the machine, the config (given, else a default), the param cache, the faults, the logger. */
async function simSetup(io: CliIO, flags: SimFlags) {
  const dialect = parseDialect(flags.dialect);
  const hardware = hardwareFrom({
    ram: flags.ram,
    cores: flags.cores,
    gpus: flags.gpus,
    memoryLimit: flags.memoryLimit,
  });
  const faults = parseFaults(flags.fault);
  if (!(logLevels as readonly string[]).includes(flags.logLevel)) {
    throw new InvalidInputError(`unknown log level "${flags.logLevel}"`, {
      hint: `use ${logLevels.join(", ")}`,
    });
  }
  const loaded = flags.config !== undefined ? await loadConfig(flags.config, dialect, io) : undefined;
  const config =
    loaded?.config ?? (dialect !== undefined ? defaultDaemonConfig(dialect) : defaultSimConfig());
  const paramCache = flags.paramCache ?? loaded?.paramCache;
  const logger = createConsoleLogger(flags.logLevel as LogLevel, (line) => io.stderr.write(`${line}\n`));
  logger.info("simulating", {
    machine: describeHardware(hardware),
    dialect: config.dialect,
    synthesis:
      config.dialect === "budget"
        ? `max_parallel_synthesis=${config.maxParallelSynthesis}`
        : `partition_workers=${config.partitionWorkers}`,
    config: flags.config === undefined ? undefined : resolve(io.cwd, flags.config),
    paramCache,
    mode:
      flags.proofTimeMs === undefined
        ? `model x ${flags.timeScale ?? defaultTimeScale}`
        : `${flags.proofTimeMs} ms per proof`,
  });
  return { hardware, config, paramCache, faults, logger };
}

/** Prints where the daemon listens once it is ready, then waits for the end; a crash prints its reason and exits 137. */
async function serveUntilEnd(
  io: CliIO,
  deps: SimCommandDeps,
  daemon: SimDaemon,
  signal: AbortSignal,
): Promise<void> {
  const ended = waitForEnd(daemon, signal);
  await Promise.race([daemon.ready(), ended]);
  if (daemon.state === "running" || daemon.state === "stalled") {
    io.stdout.write(`listening ${daemon.address}\n`);
    if (daemon.statusUrl) io.stdout.write(`status ${daemon.statusUrl}\n`);
    deps.onStarted?.(daemon);
  }
  const crash = await ended;
  if (crash) {
    io.stderr.write(`${crash.message}\n`);
    if (crash.reason === "oom") {
      io.stderr.write(
        `hint: the model needs more than ${formatBytes(crash.usableRamBytes)} for this config; lower partition_workers or pipeline.max_parallel_synthesis (see \`cuzkit tune\`)\n`,
      );
    }
    throw new CommandExit(simCrashExitCode);
  }
}

/** `cuzkit sim`'s action: set up, start the simulated daemon, serve until a signal or a crash, stop it. */
export async function runSim(io: CliIO, deps: SimCommandDeps, flags: SimFlags): Promise<void> {
  const { hardware, config, paramCache, faults, logger } = await simSetup(io, flags);
  const shutdown = deps.shutdownSignal
    ? { signal: deps.shutdownSignal, dispose() {} }
    : interruptOnSignals(["SIGINT", "SIGTERM"]);
  let daemon: SimDaemon | undefined;
  try {
    daemon = await startSimDaemon({
      listen: flags.listen,
      statusListen: flags.statusListen,
      hardware,
      config,
      timeScale: flags.timeScale,
      proofTimeMs: flags.proofTimeMs,
      pceCached: flags.pceCached ?? false,
      paramCacheDir: paramCache === undefined ? undefined : resolve(io.cwd, paramCache),
      faults,
      logger,
    });
    await serveUntilEnd(io, deps, daemon, shutdown.signal);
  } finally {
    shutdown.dispose();
    await daemon?.stop();
  }
}
