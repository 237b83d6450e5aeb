import { mkdirSync } from "node:fs";
import { hostname, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { benchDefaults } from "@cuzkit/bench";
import { defaultDeadlines } from "@cuzkit/client";
import { createConsoleLogger, InvalidInputError } from "@cuzkit/core";
import { agentDefaults, fleetDefaults } from "@cuzkit/fleet/defaults";
import { Command } from "commander";
import { addHardwareOptions, type HardwareFlags, resolveHardwareFlags } from "../hardware-flags.js";
import { type CliIO, CommandExit } from "../io.js";
import { durationOption, durationText, positiveNumberOption, wholeNumberOption } from "../parse.js";
import { addProofInputOptions, buildProofInput, type ProofInputFlags } from "../proof-input.js";
import { warnSecretArgument } from "../secret-options.js";

interface AgentFlags extends ProofInputFlags, HardwareFlags {
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

/** The daemon's HTTP /status address the agent configures and reads by default (cuzk's usual 9821). */
export const defaultAgentStatusListen = "127.0.0.1:9821";

/** How long one read of the daemon's /status may take before a heartbeat goes without it, ms. */
const statusReadTimeoutMs = 2_000;

/** `cuzkit agent`: runs on a rented machine, vets it and reports to `cuzkit fleet serve`. */
export function createAgentCommand(io: CliIO): Command {
  const command = new Command("agent").description(
    "vet this machine for the fleet: register, fetch parameters, tune, benchmark, report; serve when kept",
  );
  addProofInputOptions(command)
    .option(
      "--params-command <command>",
      "shell command that fetches the proof parameters (default: none, present)",
    )
    .option(
      "--spawn <command>",
      "how to start the daemon, with {config} and {addr}",
      "cuzk-daemon --config {config} --listen {addr}",
    )
    .option("--addr <address>", "the daemon's address (default: a unix socket in a temporary folder)")
    .option("--serve-command <command>", "started once the machine is kept, with CUZK_ADDR set (Curio)")
    .option(
      "--report-dir <dir>",
      "standalone (no CUZKIT_FLEET_URL): where reports are written",
      "cuzkit-agent",
    )
    .option(
      "--min-proofs-per-hour <n>",
      "standalone: the keep threshold",
      positiveNumberOption("--min-proofs-per-hour"),
    )
    .option(
      "--count <n>",
      "standalone: timed proofs",
      wholeNumberOption("--count", 1),
      fleetDefaults.benchmarkProofs,
    )
    .option(
      "--ready-timeout <duration>",
      `how long the daemon may take to answer (default ${durationText(benchDefaults.readyTimeoutMs)})`,
      durationOption("--ready-timeout"),
    )
    .option(
      "--proof-timeout <duration>",
      `deadline of each timed proof (default ${durationText(defaultDeadlines.proofMs)})`,
      durationOption("--proof-timeout"),
    )
    .option(
      "--warmup-timeout <duration>",
      `deadline of the warmup proof (default ${durationText(defaultDeadlines.warmupProofMs)})`,
      durationOption("--warmup-timeout"),
    )
    .option(
      "--status-listen <host:port>",
      "the daemon's HTTP /status (daemon.status_listen, written into the tuned cuzk.toml): forwarded with each heartbeat; off turns it off",
      defaultAgentStatusListen,
    )
    .option(
      "--ui-listen <host:port>",
      "serve this machine's instance page (phases, benchmark, the daemon's /status) there, e.g. 127.0.0.1:7321 (default: not served)",
    )
    .option(
      "--ui-token <token>",
      "the token the page asks for; required when --ui-listen is beyond loopback (env CUZKIT_UI_TOKEN)",
    )
    .option(
      "--throughput-every <duration>",
      `once kept: how often production throughput is reported (default ${durationText(agentDefaults.throughputIntervalMs)})`,
      durationOption("--throughput-every"),
    )
    .option(
      "--sim-time-scale <factor>",
      "the daemon is a `cuzkit sim --time-scale FACTOR`: rates and windows are reported in its modelled time (default 1, a real daemon)",
      positiveNumberOption("--sim-time-scale"),
    );
  addHardwareOptions(command)
    .addHelpText(
      "after",
      `
Environment (set by cuzkit fleet deploy): CUZKIT_FLEET_URL, CUZKIT_FLEET_TOKEN, CUZKIT_INSTANCE_ID.
Without CUZKIT_FLEET_URL the agent runs standalone and writes its reports to --report-dir.
The machine is read with --detect unless --ram/--cores/--gpus describe it.
Exit codes: 0 kept (served until stopped), 2 not kept, 1 a step failed.`,
    )
    .action(async (flags: AgentFlags) => {
      // Loaded here, not at start-up: other commands need none of the fleet.
      // The agent's own entry: the manager's server, store and dashboard are not loaded.
      const { agentEnvNames, createDiskReporter, createHttpReporter, runAgent, startAgentPage } =
        await import("@cuzkit/fleet/agent");
      const { fetchStatusJson } = await import("@cuzkit/client");
      const url = io.env[agentEnvNames.url];
      const token = io.env[agentEnvNames.token];
      const instanceId = io.env[agentEnvNames.instanceId];
      if (flags.uiToken !== undefined) warnSecretArgument(io, "--ui-token", "use CUZKIT_UI_TOKEN");
      if (url !== undefined && (token === undefined || instanceId === undefined)) {
        throw new InvalidInputError(
          `${agentEnvNames.url} is set but ${agentEnvNames.token} or ${agentEnvNames.instanceId} is not`,
          { hint: "start the machine with cuzkit fleet deploy, which sets all three" },
        );
      }
      const input = await buildProofInput(flags, io);
      const given = await resolveHardwareFlags(flags);
      let address = flags.addr;
      if (address === undefined) {
        const dir = join(tmpdir(), `cuzkit-agent-${process.pid}`);
        mkdirSync(dir, { recursive: true });
        address = `unix://${join(dir, "cuzk.sock")}`;
      }
      const statusListen = flags.statusListen === "off" ? undefined : flags.statusListen;
      if (statusListen !== undefined && !/^(?:\[[0-9a-fA-F:.]+\]|[^\s:/]+):\d{1,5}$/.test(statusListen)) {
        throw new InvalidInputError(`--status-listen "${statusListen}" is not HOST:PORT`, {
          hint: `pass --status-listen ${defaultAgentStatusListen} (the daemon's status_listen), or --status-listen off`,
        });
      }
      // The daemon's /status, read with the client's reader (typed, camelCased); a failed read
      // throws, and the agent then heartbeats without it.
      const readDaemonStatus =
        statusListen === undefined
          ? undefined
          : () => fetchStatusJson(`http://${statusListen}/status`, { timeoutMs: statusReadTimeoutMs });
      // SIGINT/SIGTERM: the agent stops its daemon and reports, without minutes of retries.
      const stop = new AbortController();
      const fleetReporter =
        url !== undefined
          ? createHttpReporter({
              url,
              token: token as string,
              instanceId: instanceId as string,
              stopRetriesOn: stop.signal,
            })
          : createDiskReporter({
              dir: resolve(io.cwd, flags.reportDir),
              minProofsPerHour: flags.minProofsPerHour,
              benchmarkProofs: flags.count,
            });
      const page =
        flags.uiListen === undefined
          ? undefined
          : await startAgentPage({
              listen: flags.uiListen,
              token: flags.uiToken ?? io.env.CUZKIT_UI_TOKEN,
              readDaemonStatus,
              label: instanceId ?? hostname(),
            });
      if (page !== undefined) io.stderr.write(`agent page at ${page.url}/\n`);
      const reporter = page === undefined ? fleetReporter : page.observe(fleetReporter);
      const onSignal = () => stop.abort();
      process.once("SIGINT", onSignal);
      process.once("SIGTERM", onSignal);
      try {
        const outcome = await runAgent({
          reporter,
          daemonCommand: flags.spawn,
          daemonAddress: address,
          request: input.request,
          kind: input.kind,
          paramsCommand: flags.paramsCommand,
          serveCommand: flags.serveCommand,
          readyTimeoutMs: flags.readyTimeout,
          proofTimeoutMs: flags.proofTimeout,
          warmupTimeoutMs: flags.warmupTimeout,
          throughputIntervalMs: flags.throughputEvery,
          timeScale: flags.simTimeScale,
          signal: stop.signal,
          readDaemonStatus,
          daemonStatusListen: statusListen,
          logger: createConsoleLogger("info", (line) => io.stderr.write(`${line}\n`)),
          detectHardware: given === undefined ? undefined : async () => given,
        });
        io.stdout.write(`${JSON.stringify(outcome)}\n`);
        if (outcome.status !== "served") throw new CommandExit(outcome.status === "rejected" ? 2 : 1);
      } finally {
        process.off("SIGINT", onSignal);
        process.off("SIGTERM", onSignal);
        await page?.close();
      }
    });
  return command;
}
