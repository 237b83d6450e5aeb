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
  type SimFaults,
  startSimDaemon,
} from "@cuzkit/sim";
import { Command, Option } from "commander";
import { hardwareOptions } from "../hardware-flags.js";
import { interruptOnSignals } from "../interrupt.js";
import { type CliIO, CommandExit } from "../io.js";
import { paramCacheOf } from "../param-cache.js";
import { parseSize, parseWholeNumber, positiveNumberOption, wholeNumberOption } from "../parse.js";

/** What `createSimCommand` can be given besides the IO, for tests and embedding. */
export interface SimCommandDeps {
  /** Stops the daemon gracefully (exit code 0) when aborted. Default: SIGINT or SIGTERM of this process. */
  shutdownSignal?: AbortSignal;
  /** Called once the daemon listens. Default: nothing. */
  onStarted?: (daemon: SimDaemon) => void;
}

/** Exit code of a command whose daemon died like a killed process (128 + SIGKILL). */
export const simCrashExitCode = 137;

interface SimFlags {
  listen: string;
  statusListen?: string;
  ram: number;
  cores: number;
  gpus: string;
  memoryLimit?: number;
  config?: string;
  dialect?: string;
  timeScale?: number;
  proofTimeMs?: number;
  pceCached?: boolean;
  paramCache?: string;
  fault: string[];
  logLevel: string;
}

const faultNames = [
  "crash-after",
  "crash-at",
  "fail-next",
  "hold-after",
  "stall-after",
  "stick-after",
  "start-delay",
] as const;
const faultHint =
  "use crash-after=N, crash-at=MS, fail-next=N[:message], hold-after=N, stall-after=N, stick-after=N or start-delay=MS, e.g. --fault crash-after=3";
const logLevels: readonly LogLevel[] = ["debug", "info", "warn", "error"];

function wholeNumber(what: string, text: string, min: number): number {
  return parseWholeNumber(text, { what, min, example: String(Math.max(min, 3)) });
}

/** The simulated machine when no flag says otherwise: the Czechia incident's 2x RTX 3090 box. */
const defaultSimMachine = { ram: "251GiB", cores: 32, gpus: "2xRTX3090" } as const;

/** Parses the repeatable --fault flags into SimFaults. */
export function parseFaults(specs: readonly string[]): SimFaults {
  const faults: SimFaults = {};
  for (const spec of specs) {
    const at = spec.indexOf("=");
    const name = at < 0 ? spec : spec.slice(0, at);
    const value = at < 0 ? "" : spec.slice(at + 1);
    if (!(faultNames as readonly string[]).includes(name) || value === "") {
      throw new InvalidInputError(`unknown or incomplete fault "${spec}"`, { hint: faultHint });
    }
    switch (name as (typeof faultNames)[number]) {
      case "crash-after":
        faults.crashAfterProofs = wholeNumber("--fault crash-after", value, 1);
        break;
      case "crash-at":
        faults.crashAtMs = wholeNumber("--fault crash-at", value, 0);
        break;
      case "hold-after":
        faults.holdAfterProofs = wholeNumber("--fault hold-after", value, 1);
        break;
      case "stall-after":
        faults.stallAfterProofs = wholeNumber("--fault stall-after", value, 1);
        break;
      case "stick-after":
        faults.stickAfterProofs = wholeNumber("--fault stick-after", value, 0);
        break;
      case "start-delay":
        faults.startDelayMs = wholeNumber("--fault start-delay", value, 0);
        break;
      case "fail-next": {
        const colon = value.indexOf(":");
        const count = wholeNumber("--fault fail-next", colon < 0 ? value : value.slice(0, colon), 1);
        faults.failNextProofs = colon < 0 ? { count } : { count, message: value.slice(colon + 1) };
        break;
      }
    }
  }
  return faults;
}

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

const simHelp = [
  "",
  "Output: the first stdout line is `listening <address>`, then `status <url>` with --status-listen.",
  "Exit codes: 0 after SIGINT/SIGTERM; 137 when the simulated daemon dies (modelled OOM kill or a crash fault).",
  "",
  "Examples:",
  "  cuzkit sim --listen 127.0.0.1:9820 --status-listen 127.0.0.1:9821",
  "  cuzkit sim --listen unix:///tmp/cuzk.sock --time-scale 0.01 --pce-cached",
  "  cuzkit sim --ram 125GiB --cores 32 --gpus 2xRTX3090 --config cuzk.toml    # does this config OOM?",
  "  cuzkit sim --ram 256GiB --memory-limit 240GiB --dialect budget",
  "  cuzkit sim --listen 127.0.0.1:0 --proof-time-ms 2000 --fault crash-after=3 --fault start-delay=2000",
  "  cuzkit sim --fault fail-next=2:'partition 3 synthesis failed: test' --fault stall-after=5",
].join("\n");

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
async function runSim(io: CliIO, deps: SimCommandDeps, flags: SimFlags): Promise<void> {
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

/**
 * `cuzkit sim`: runs a simulated cuzk daemon until SIGINT/SIGTERM (exit 0). Prints
 * `listening <address>` as the first stdout line (then `status <url>` if --status-listen),
 * logs to stderr, and when the simulated daemon dies (modelled OOM or a crash fault) prints
 * the reason to stderr and ends with exit code 137, like a killed process.
 */
export function createSimCommand(io: CliIO, deps: SimCommandDeps = {}): Command {
  const machine = hardwareOptions();
  return new Command("sim")
    .description(
      "run a simulated cuzk daemon (gRPC cuzk.v1.ProvingEngine) whose proofs take the model's time, with fault injection",
    )
    .configureOutput({ writeOut: (text) => io.stdout.write(text), writeErr: (text) => io.stderr.write(text) })
    .option(
      "--listen <address>",
      "gRPC listen address: IP:port, [v6]:port or unix:///abs/path (port 0 picks a free one)",
      "127.0.0.1:9820",
    )
    .option(
      "--status-listen <address>",
      "serve the daemon's HTTP GET /status JSON on this IP:port (default: off)",
    )
    .addOption(
      machine.ram.default(parseSize(defaultSimMachine.ram, { what: "--ram" }), defaultSimMachine.ram),
    )
    .addOption(machine.cores.default(defaultSimMachine.cores))
    .addOption(machine.gpus.default(defaultSimMachine.gpus))
    .addOption(machine.memoryLimit.default(undefined, "the RAM; above it the daemon is OOM-killed"))
    .option(
      "--config <file>",
      "a cuzk.toml to simulate (default: a safe config: partition_workers 4, 1 GPU worker per GPU)",
    )
    .option(
      "--dialect <dialect>",
      `daemon dialect: ${daemonDialects.join(" or ")} (default: inferred from --config)`,
    )
    .option(
      "--time-scale <factor>",
      `real seconds per modelled second (default: ${defaultTimeScale}, a 150 s proof takes ${150_000 * defaultTimeScale} ms); 0.01 for a demo, 1 for real time`,
      positiveNumberOption("--time-scale", "0.01"),
    )
    .option(
      "--proof-time-ms <ms>",
      "every proof takes exactly this many real ms, ignoring the model (0 = instant)",
      wholeNumberOption("--proof-time-ms", 0, "2000"),
    )
    .option("--pce-cached", "a PCE cache exists: the first proof is not cold")
    .option(
      "--param-cache <dir>",
      "the daemon's srs.param_cache: PCE files are read at start and written after the first cold proof (default: srs.param_cache of --config, else off)",
    )
    .addOption(
      new Option(
        "--fault <fault>",
        "inject a fault (repeatable): crash-after=N, crash-at=MS, fail-next=N[:message], hold-after=N, stall-after=N, stick-after=N (proofs never end, the daemon still answers), start-delay=MS",
      )
        .argParser((value: string, previous: string[]) => [...previous, value])
        .default([], "none"),
    )
    .option("--log-level <level>", `stderr log level: ${logLevels.join(", ")}`, "info")
    .addHelpText("after", simHelp)
    .action((flags: SimFlags) => runSim(io, deps, flags));
}
