import { mkdirSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { createConsoleLogger, InvalidInputError } from "@cuzkit/core";
import type { AgentOptions, AgentPage, AgentReporter } from "@cuzkit/fleet/agent";
import { type HardwareFlags, resolveHardwareFlags } from "../hardware-flags.js";
import { type CliIO, CommandExit } from "../io.js";
import { type BuiltProofInput, buildProofInput, type ProofInputFlags } from "../proof-input.js";
import { warnSecretArgument } from "../secret-options.js";
import { defaultAgentStatusListen } from "./agent.js";

// What `cuzkit agent` does once its flags are parsed: check the fleet's environment and the
// flags, start the reporter (the manager's, or files on disk) and the optional page, run the
// agent until it is stopped or decided, and exit with its outcome.

/** The flags of `cuzkit agent`, as commander parses them. */
export interface AgentFlags extends ProofInputFlags, HardwareFlags {
  paramsCommand?: string;
  spawn: string;
  addr?: string;
  serveCommand?: string;
  reportDir: string;
  minProofsPerHour?: number;
  count: number;
  readyTimeout?: number;
  proofTimeout?: number;
  warmupTimeout?: number;
  statusListen: string;
  uiListen?: string;
  uiToken?: string;
  throughputEvery?: number;
  simTimeScale?: number;
}

/** How long one read of the daemon's /status may take before a heartbeat goes without it, ms. */
const statusReadTimeoutMs = 2_000;

// Loaded when the agent runs, not at start-up: other commands need none of the fleet.
// The agent's own entry: the manager's server, store and dashboard are not loaded.
const loadAgentLib = () => import("@cuzkit/fleet/agent");
type AgentLib = Awaited<ReturnType<typeof loadAgentLib>>;
type ClientLib = typeof import("@cuzkit/client");

/** The manager the agent reports to (set by `cuzkit fleet deploy`), and this machine's id. */
interface AgentEnv {
  /** All three of url, token and instance id; undefined when standalone (no CUZKIT_FLEET_URL). */
  fleet: { url: string; token: string; instanceId: string } | undefined;
  /** CUZKIT_INSTANCE_ID, also when standalone: the page's label. */
  instanceId: string | undefined;
}

/** Reads what `cuzkit agent` runs with: a fleet URL without its token or instance id is refused. */
function agentEnvOf(io: CliIO, names: AgentLib["agentEnvNames"]): AgentEnv {
  const url = io.env[names.url];
  const token = io.env[names.token];
  const instanceId = io.env[names.instanceId];
  if (url === undefined) return { fleet: undefined, instanceId };
  if (token === undefined || instanceId === undefined) {
    throw new InvalidInputError(`${names.url} is set but ${names.token} or ${names.instanceId} is not`, {
      hint: "start the machine with cuzkit fleet deploy, which sets all three",
    });
  }
  return { fleet: { url, token, instanceId }, instanceId };
}

/** Without --addr: a unix socket in a folder of this process's own under the temporary folder. */
function temporaryDaemonAddress(): string {
  const dir = join(tmpdir(), `cuzkit-agent-${process.pid}`);
  mkdirSync(dir, { recursive: true });
  return `unix://${join(dir, "cuzk.sock")}`;
}

/** --status-listen as HOST:PORT, or undefined for `off`; anything else is refused. */
function statusListenOf(flags: AgentFlags): string | undefined {
  const statusListen = flags.statusListen === "off" ? undefined : flags.statusListen;
  if (statusListen !== undefined && !/^(?:\[[0-9a-fA-F:.]+\]|[^\s:/]+):\d{1,5}$/.test(statusListen)) {
    throw new InvalidInputError(`--status-listen "${statusListen}" is not HOST:PORT`, {
      hint: `pass --status-listen ${defaultAgentStatusListen} (the daemon's status_listen), or --status-listen off`,
    });
  }
  return statusListen;
}

/**
 * The daemon's /status, read with the client's reader (typed, camelCased); a failed read throws,
 * and the agent then heartbeats without it. Undefined with --status-listen off.
 */
function daemonStatusReader(
  fetchStatusJson: ClientLib["fetchStatusJson"],
  statusListen: string | undefined,
): AgentOptions["readDaemonStatus"] {
  if (statusListen === undefined) return undefined;
  return () => fetchStatusJson(`http://${statusListen}/status`, { timeoutMs: statusReadTimeoutMs });
}

/** Reports to the manager when deployed by the fleet, else writes them under --report-dir. */
function createFleetReporter(
  lib: AgentLib,
  io: CliIO,
  flags: AgentFlags,
  env: AgentEnv,
  stop: AbortSignal,
): AgentReporter {
  if (env.fleet !== undefined) {
    const { url, token, instanceId } = env.fleet;
    return lib.createHttpReporter({ url, token, instanceId, stopRetriesOn: stop });
  }
  return lib.createDiskReporter({
    dir: resolve(io.cwd, flags.reportDir),
    minProofsPerHour: flags.minProofsPerHour,
    benchmarkProofs: flags.count,
  });
}

/** With --ui-listen: this machine's instance page, its address said on stderr. */
async function startPage(
  lib: AgentLib,
  io: CliIO,
  flags: AgentFlags,
  env: AgentEnv,
  readDaemonStatus: AgentOptions["readDaemonStatus"],
): Promise<AgentPage | undefined> {
  if (flags.uiListen === undefined) return undefined;
  const page = await lib.startAgentPage({
    listen: flags.uiListen,
    token: flags.uiToken ?? io.env.CUZKIT_UI_TOKEN,
    readDaemonStatus,
    label: env.instanceId ?? hostname(),
  });
  io.stderr.write(`agent page at ${page.url}/\n`);
  return page;
}

/** What the agent runs with, from the flags and the steps before. */
interface AgentRunParts {
  reporter: AgentReporter;
  address: string;
  input: BuiltProofInput;
  statusListen: string | undefined;
  readDaemonStatus: AgentOptions["readDaemonStatus"];
  /** The machine as the flags describe it; undefined: the agent detects it. */
  hardware: Awaited<ReturnType<typeof resolveHardwareFlags>>;
  signal: AbortSignal;
}

/** The agent's options: the flags as given, undefined where the agent's defaults apply. */
function agentOptionsOf(io: CliIO, flags: AgentFlags, parts: AgentRunParts): AgentOptions {
  const { hardware } = parts;
  return {
    reporter: parts.reporter,
    daemonCommand: flags.spawn,
    daemonAddress: parts.address,
    request: parts.input.request,
    kind: parts.input.kind,
    paramsCommand: flags.paramsCommand,
    serveCommand: flags.serveCommand,
    readyTimeoutMs: flags.readyTimeout,
    proofTimeoutMs: flags.proofTimeout,
    warmupTimeoutMs: flags.warmupTimeout,
    throughputIntervalMs: flags.throughputEvery,
    timeScale: flags.simTimeScale,
    signal: parts.signal,
    readDaemonStatus: parts.readDaemonStatus,
    daemonStatusListen: parts.statusListen,
    logger: createConsoleLogger("info", (line) => io.stderr.write(`${line}\n`)),
    detectHardware: hardware === undefined ? undefined : async () => hardware,
  };
}

/** Runs the agent with SIGINT/SIGTERM stopping it, prints its outcome and exits 0 kept, 2 not kept, 1 failed. */
async function runUntilDecided(
  lib: AgentLib,
  io: CliIO,
  options: AgentOptions,
  stop: AbortController,
): Promise<void> {
  // SIGINT/SIGTERM: the agent stops its daemon and reports, without minutes of retries.
  const onSignal = () => stop.abort();
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  try {
    const outcome = await lib.runAgent(options);
    io.stdout.write(`${JSON.stringify(outcome)}\n`);
    if (outcome.status !== "served") throw new CommandExit(outcome.status === "rejected" ? 2 : 1);
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  }
}

/** `cuzkit agent`'s action: checks, starts the reporter and page, runs the agent, closes the page. */
export async function runAgentCommand(io: CliIO, flags: AgentFlags): Promise<void> {
  const lib = await loadAgentLib();
  const { fetchStatusJson } = await import("@cuzkit/client");
  if (flags.uiToken !== undefined) warnSecretArgument(io, "--ui-token", "use CUZKIT_UI_TOKEN");
  const env = agentEnvOf(io, lib.agentEnvNames);
  const input = await buildProofInput(flags, io);
  const hardware = await resolveHardwareFlags(flags);
  const address = flags.addr ?? temporaryDaemonAddress();
  const statusListen = statusListenOf(flags);
  const readDaemonStatus = daemonStatusReader(fetchStatusJson, statusListen);
  const stop = new AbortController();
  const fleetReporter = createFleetReporter(lib, io, flags, env, stop.signal);
  const page = await startPage(lib, io, flags, env, readDaemonStatus);
  const reporter = page === undefined ? fleetReporter : page.observe(fleetReporter);
  const parts = { reporter, address, input, statusListen, readDaemonStatus, hardware, signal: stop.signal };
  try {
    await runUntilDecided(lib, io, agentOptionsOf(io, flags, parts), stop);
  } finally {
    await page?.close();
  }
}
